/* say.c: narration that takes its figures from the device and from earlier
 * results, so a lesson states nothing that is only true of one card:
 *   {gpu} {sms} {l2} {mem}           the GPU (without one, the architecture's)
 *   {median K} {gbps K} {roof K} {gflops K}   K's last run (K may carry [SEL])
 *   {overlap K}                      the share of copy time under kernels in its timeline
 *   {speedup A B}                    median(B) / median(A)
 *   {line K FIGURE TEXT}             the line of K's last `lines` that holds TEXT
 *                                    and its figure: "line 90: 32.0x"
 *   {{ and }}                        braces
 * A kernel's figures come from its latest timed run, whatever ran since (a
 * `metrics` run has counters and no times). A figure that is not there is
 * said in words, never as a bare mark: "(no timed run of K)". */
#include "say.h"
#include "expect.h"
#include "perline.h"

#include <stdlib.h>
#include <string.h>

/* K's latest timed run; NULL, with what is missing said in b, without one */
static const run_record *timed(app *a, const char *label, sbuf *b)
{
	const run_record *r = expect_find_timed(a, label);
	if (!r)
		sb_printf(b, "(no timed run of %s)", label);
	return r;
}

/* One placeholder's text into b; -1 when the name is not one. */
static int expand_one(app *a, char *inner, sbuf *b)
{
	if (strncmp(inner, "line ", 5) == 0) {
		/* {line K FIGURE TEXT...}: the text is the rest, spaces and all */
		char *k = inner + 5, *f, *t;
		while (*k == ' ')
			k++;
		if (!(f = strchr(k, ' ')))
			return -1;
		*f++ = 0;
		while (*f == ' ')
			f++;
		if (!(t = strchr(f, ' ')))
			return -1;
		*t++ = 0;
		while (*t == ' ')
			t++;
		return *t ? perline_say(k, f, t, b) : -1;
	}
	char *w[3] = { 0 };
	int n = 0;
	for (char *save = NULL, *t = strtok_r(inner, " ", &save); t && n < 3; t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	if (n == 0)
		return -1;
	char x[64];
	if (n == 1) {
		devinfo d;
		app_current_dev(a, &d);
		if (strcmp(w[0], "gpu") == 0)
			sb_puts(b, a->gpu == 1 && d.name[0] ? d.name : "GPU");
		else if (strcmp(w[0], "sms") == 0)
			sb_printf(b, "%d", d.sm_count);
		else if (strcmp(w[0], "l2") == 0) {
			fmt_bytes((double)d.l2_bytes, x, sizeof x);
			sb_puts(b, x);
		} else if (strcmp(w[0], "mem") == 0 && d.total_mem > 0) {
			fmt_bytes((double)d.total_mem, x, sizeof x);
			sb_puts(b, x);
		} else if (strcmp(w[0], "mem") == 0)
			sb_puts(b, "(its memory size: no GPU)");
		else
			return -1;
		return 0;
	}
	if (n == 2 && (strcmp(w[0], "median") == 0 || strcmp(w[0], "gbps") == 0 || strcmp(w[0], "roof") == 0 ||
	               strcmp(w[0], "gflops") == 0 || strcmp(w[0], "overlap") == 0)) {
		const run_record *r = timed(a, w[1], b);
		if (!r)
			return 0;
		if (a->opt.mask_times) {
			sb_puts(b, "<t>");
			return 0;
		}
		if (strcmp(w[0], "median") == 0) {
			fmt_time_ms(r->st.median, x, sizeof x);
			sb_puts(b, x);
		} else if (strcmp(w[0], "gbps") == 0) {
			sb_printf(b, "%.0f GB/s", r->gbps);
		} else if (strcmp(w[0], "roof") == 0) {
			sb_printf(b, "%.0f%%", r->roof_frac * 100);
		} else if (strcmp(w[0], "overlap") == 0) {
			if (r->overlap < 0)
				sb_printf(b, "(no timeline of %s)", w[1]);
			else
				sb_printf(b, "%.0f%%", r->overlap * 100);
		} else {
			sb_printf(b, "%.0f GFLOP/s", r->gflops);
		}
		return 0;
	}
	if (n == 3 && strcmp(w[0], "speedup") == 0) {
		const run_record *ra = timed(a, w[1], b);
		const run_record *rb = ra ? timed(a, w[2], b) : NULL;
		if (!ra || !rb)
			return 0;
		if (a->opt.mask_times)
			sb_puts(b, "<t>");
		else
			sb_printf(b, "%.2fx", rb->st.median / ra->st.median);
		return 0;
	}
	return -1;
}

char *say_expand(app *a, const char *text, char **bad)
{
	sbuf b = { 0 };
	*bad = NULL;
	for (const char *p = text; *p; p++) {
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			sb_putc(&b, *p++);
			continue;
		}
		const char *close = p[0] == '{' ? strchr(p, '}') : NULL;
		if (!close) {
			sb_putc(&b, *p);
			continue;
		}
		char *inner = xstrndup(p + 1, (size_t)(close - p - 1));
		char *copy = xstrdup(inner);
		if (expand_one(a, copy, &b) != 0) {
			sb_add(&b, p, (size_t)(close - p + 1));
			if (!*bad)
				*bad = xstrdup(inner);
		}
		free(copy);
		free(inner);
		p = close;
	}
	return b.s ? sb_steal(&b) : xstrdup("");
}
