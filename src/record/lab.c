/* lab.c: the lab report, HTML or Markdown, drawn from measurement records. */
#include "lab.h"
#include "chart.h"
#include "explain.h"
#include "metrics.h"
#include "roofline.h"
#include "util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- the kernel's source ---- */

static const char *base_name(const char *name, size_t *len)
{
	const char *lt = strchr(name, '<');
	size_t n = lt ? (size_t)(lt - name) : strlen(name);
	const char *b = name;
	for (const char *q = name; q + 1 < name + n; q++)
		if (q[0] == ':' && q[1] == ':')
			b = q + 2;
	*len = n - (size_t)(b - name);
	return b;
}

static int ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

char *lab_kernel_source(const char *src, const char *name)
{
	size_t nl;
	const char *n = base_name(name, &nl);
	for (const char *g = strstr(src, "__global__"); g; g = strstr(g + 10, "__global__")) {
		/* the name, then '(' before the body starts */
		const char *body = strchr(g, '{');
		const char *semi = strchr(g, ';');
		if (!body || (semi && semi < body))
			continue;
		const char *hit = NULL;
		for (const char *q = g; q + nl <= body && !hit; q++)
			if (strncmp(q, n, nl) == 0 && !ident(q[-1]) && !ident(q[nl])) {
				const char *r = q + nl;
				while (*r == ' ' || *r == '\t' || *r == '\n')
					r++;
				if (*r == '(')
					hit = q;
			}
		if (!hit)
			continue;
		/* from the start of the line; a template line just above belongs to it */
		const char *start = g;
		while (start > src && start[-1] != '\n')
			start--;
		if (start > src) {
			const char *prev = start - 1;
			while (prev > src && prev[-1] != '\n')
				prev--;
			if (strncmp(prev, "template", 8) == 0)
				start = prev;
		}
		int depth = 0;
		const char *e = body;
		for (; *e; e++) {
			if (*e == '{')
				depth++;
			else if (*e == '}' && --depth == 0)
				break;
		}
		if (!*e)
			return NULL;
		return xstrndup(start, (size_t)(e + 1 - start));
	}
	return NULL;
}

/* ---- writing ---- */

static void esc(FILE *f, lab_format fmt, const char *s)
{
	for (; s && *s; s++) {
		if (fmt == LAB_HTML && *s == '<')
			fputs("&lt;", f);
		else if (fmt == LAB_HTML && *s == '>')
			fputs("&gt;", f);
		else if (fmt == LAB_HTML && *s == '&')
			fputs("&amp;", f);
		else if (fmt == LAB_HTML && *s == '"')
			fputs("&quot;", f);
		else if (fmt == LAB_MARKDOWN && *s == '|')
			fputs("\\|", f);
		else if (fmt == LAB_MARKDOWN && *s == '\n')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

/* a table: begin, header cells, rows of cells, end */
typedef struct tw {
	FILE *f;
	lab_format fmt;
	int ncols, col;
} tw;

static void t_begin(tw *t, FILE *f, lab_format fmt, const char *const *head, int n)
{
	t->f = f;
	t->fmt = fmt;
	t->ncols = n;
	if (fmt == LAB_HTML) {
		fputs("<table>\n<thead><tr>", f);
		for (int i = 0; i < n; i++) {
			fputs("<th>", f);
			esc(f, fmt, head[i]);
			fputs("</th>", f);
		}
		fputs("</tr></thead>\n<tbody>\n", f);
	} else {
		fputc('|', f);
		for (int i = 0; i < n; i++) {
			fputc(' ', f);
			esc(f, fmt, head[i]);
			fputs(" |", f);
		}
		fputs("\n|", f);
		for (int i = 0; i < n; i++)
			fputs(" --- |", f);
		fputc('\n', f);
	}
}

static void t_cell(tw *t, const char *s, int num)
{
	if (t->col == 0)
		fputs(t->fmt == LAB_HTML ? "<tr>" : "|", t->f);
	if (t->fmt == LAB_HTML) {
		fputs(num ? "<td class=\"n\">" : "<td>", t->f);
		esc(t->f, t->fmt, s);
		fputs("</td>", t->f);
	} else {
		fputc(' ', t->f);
		esc(t->f, t->fmt, s);
		fputs(" |", t->f);
	}
	if (++t->col == t->ncols) {
		fputs(t->fmt == LAB_HTML ? "</tr>\n" : "\n", t->f);
		t->col = 0;
	}
}

static void t_end(tw *t)
{
	fputs(t->fmt == LAB_HTML ? "</tbody>\n</table>\n" : "\n", t->f);
}

/* Text on one Markdown line (a heading: a file name): a character that
 * would start emphasis, a link, a code span, HTML or an entity is
 * escaped, a control byte written as \xNN, so the name reads as it is. */
static void md_line(FILE *f, const char *text)
{
	for (const unsigned char *s = (const unsigned char *)text; *s; s++) {
		/* '_' inside a word (kernels_src) starts nothing */
		int inword = *s == '_' && s > (const unsigned char *)text && isalnum(s[-1]) && isalnum(s[1]);
		if (*s < 0x20 || *s == 0x7f)
			fprintf(f, "\\\\x%02x", *s);
		else if (strchr("\\`*_[]<>#|~&", *s) && !inword)
			fprintf(f, "\\%c", *s);
		else
			fputc(*s, f);
	}
}

static void heading(FILE *f, lab_format fmt, int level, const char *text)
{
	if (fmt == LAB_HTML) {
		fprintf(f, "<h%d>", level);
		esc(f, fmt, text);
		fprintf(f, "</h%d>\n", level);
	} else {
		for (int i = 0; i < level; i++)
			fputc('#', f);
		fputc(' ', f);
		md_line(f, text);
		fputs("\n\n", f);
	}
}

static void para(FILE *f, lab_format fmt, const char *text)
{
	if (fmt == LAB_HTML) {
		fputs("<p>", f);
		esc(f, fmt, text);
		fputs("</p>\n", f);
	} else {
		fprintf(f, "%s\n\n", text);
	}
}

static void code(FILE *f, lab_format fmt, const char *lang, const char *text)
{
	if (fmt == LAB_HTML) {
		fputs("<pre><code>", f);
		for (const char *s = text; *s; s++) {
			if (*s == '<')
				fputs("&lt;", f);
			else if (*s == '>')
				fputs("&gt;", f);
			else if (*s == '&')
				fputs("&amp;", f);
			else
				fputc(*s, f);
		}
		fputs("</code></pre>\n", f);
	} else {
		/* a fence longer than any run of backquotes inside: the text
		 * (a kernel's comment) can never close it */
		int fence = 3;
		for (const char *s = text; *s;) {
			int run = 0;
			while (s[run] == '`')
				run++;
			if (run >= fence)
				fence = run + 1;
			s += run ? run : 1;
		}
		for (int i = 0; i < fence; i++)
			fputc('`', f);
		fprintf(f, "%s\n%s%s", lang, text, text[0] && text[strlen(text) - 1] == '\n' ? "" : "\n");
		for (int i = 0; i < fence; i++)
			fputc('`', f);
		fputs("\n\n", f);
	}
}

/* ---- the sections ---- */

static int same_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* the label of run i among the file's: its kernel, with its values where
 * the kernel was run with others too */
static char *label_of(const measurement *r, int const *idx, int n, int i)
{
	const measurement *m = &r[idx[i]];
	for (int j = 0; j < n; j++)
		if (j != i && strcmp(r[idx[j]].kernel, m->kernel) == 0 && !same_str(r[idx[j]].values, m->values))
			return xasprintf("%s [%s]", m->kernel, m->values);
	return xstrdup(m->kernel);
}

int lab_counters_only(const measurement *m)
{
	return m->nmet > 0 && !m->timed && !m->interrupted;
}

static void results(FILE *f, lab_format fmt, const measurement *r, const int *idx, int n)
{
	static const char *const head[] = { "kernel", "values", "check", "median", "±95%", "min .. max", "GB/s",
		                            "roof", "GFLOP/s", "regs", "smem", "SM MHz", "temp", "throttle",
		                            "command" };
	tw t = { 0 };
	t_begin(&t, f, fmt, head, (int)(sizeof head / sizeof head[0]));
	for (int i = 0; i < n; i++) {
		const measurement *m = &r[idx[i]];
		char b[96], lo[32], hi[32];
		if (lab_counters_only(m))
			continue; /* a `metrics` run: its counters are in their own table */
		t_cell(&t, m->kernel, 0);
		t_cell(&t, m->values, 0);
		t_cell(&t, m->launched ? measure_check_word(m) : "not launched", 0);
		if (m->timed) {
			fmt_time_ms(m->st.median, b, sizeof b);
			t_cell(&t, b, 1);
			snprintf(b, sizeof b, m->st.ci_rel * 100 < 0.095 ? "±%.2f%%" : "±%.1f%%", m->st.ci_rel * 100);
			t_cell(&t, m->st.has_ci ? b : "", 1);
			fmt_time_ms(m->st.min, lo, sizeof lo);
			fmt_time_ms(m->st.max, hi, sizeof hi);
			snprintf(b, sizeof b, "%s .. %s", lo, hi);
			t_cell(&t, b, 1);
		} else {
			t_cell(&t, m->interrupted ? "interrupted" : "", 1);
			t_cell(&t, "", 1);
			t_cell(&t, "", 1);
		}
		snprintf(b, sizeof b, "%.0f", m->gbps);
		t_cell(&t, m->gbps > 0 ? b : "", 1);
		snprintf(b, sizeof b, "%.0f%%", m->roof_frac * 100);
		t_cell(&t, m->roof_frac > 0 ? b : "", 1);
		snprintf(b, sizeof b, "%.0f", m->gflops);
		t_cell(&t, m->gflops > 0 ? b : "", 1);
		snprintf(b, sizeof b, "%d", m->res.regs);
		t_cell(&t, m->res.known ? b : "", 1);
		fmt_bytes((double)m->res.smem + (double)m->dyn_smem, b, sizeof b);
		t_cell(&t, m->res.known ? b : "", 1);
		snprintf(b, sizeof b, "%u", m->sm_mhz);
		t_cell(&t, m->cond_known && m->sm_mhz ? b : "", 1);
		snprintf(b, sizeof b, "%d C", m->temp_c);
		t_cell(&t, m->cond_known && m->temp_c >= 0 ? b : "", 1);
		t_cell(&t, m->cond_known ? m->throttle : "", 0);
		t_cell(&t, m->command ? m->command : "", 0);
	}
	t_end(&t);
}

static void speedups(FILE *f, lab_format fmt, const measurement *r, const int *idx, int n)
{
	int base = -1, ntimed = 0;
	for (int i = 0; i < n; i++)
		if (r[idx[i]].timed) {
			ntimed++;
			if (base < 0)
				base = i;
		}
	if (ntimed < 2)
		return;
	char *bl = label_of(r, idx, n, base);
	char *title = xasprintf("speedup over %s", bl);
	chart c;
	chart_init(&c, title, "x");
	free(title);
	c.baseline = 0;
	double best = 0;
	for (int i = 0; i < n; i++) {
		const measurement *m = &r[idx[i]];
		if (!m->timed)
			continue;
		double sp = r[idx[base]].st.median / m->st.median;
		char *l = label_of(r, idx, n, i);
		if (m->check != MCHECK_FAIL && sp > best) {
			best = sp;
			c.best = c.n;
		}
		chart_add(&c, l, sp, m->check == MCHECK_FAIL ? "FAIL" : NULL);
		chart_noise(&c, m->st.has_ci ? m->st.ci_rel : 0);
		free(l);
	}
	heading(f, fmt, 3, "Speedups");
	if (fmt == LAB_HTML) {
		sbuf b = { 0 };
		chart_svg_text(&c, &b, 0);
		fputs("<figure>\n", f);
		fwrite(b.s, 1, b.len, f);
		fputs("</figure>\n", f);
		sb_free(&b);
	} else {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		if (m) {
			chart_print(&c, m, 0, 0, 40);
			fclose(m);
			code(f, fmt, "", buf ? buf : "");
		}
		free(buf);
	}
	chart_free(&c);
	free(bl);
}

/* Is met_names[k] of m a raw input of another of its figures (a record keeps
 * both, for `expect` by either name)? Then the figure stands for it. */
static int covered(const measurement *m, int k)
{
	if (!strstr(m->met_names[k], "__"))
		return 0;
	for (int q = 0; q < m->nmet; q++) {
		const metric_def *d = q == k ? NULL : metrics_find(m->met_names[q]);
		for (int j = 0; d && j < 3; j++)
			if (d->raw[j] && strcmp(d->raw[j], m->met_names[k]) == 0)
				return 1;
	}
	return 0;
}

/* the name a counter is shown under: a figure's short name for a raw
 * metric that a figure shows as it is */
static const char *shown_name(const char *name)
{
	const metric_def *d = strstr(name, "__") ? metrics_by_raw(name) : NULL;
	return d ? d->name : name;
}

/* the raw ncu metrics behind a shown name ("" for a raw one) */
static void raw_of(const char *shown, char *buf, size_t n)
{
	const metric_def *d = metrics_find(shown);
	buf[0] = 0;
	for (int j = 0; d && j < 3; j++)
		if (d->raw[j])
			snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", j ? ", " : "", d->raw[j]);
}

/* a counter's value in m under its shown name, or "" */
static void counter_value(const measurement *m, const char *shown, char *b, size_t n)
{
	b[0] = 0;
	for (int q = 0; q < m->nmet; q++)
		if (strcmp(shown_name(m->met_names[q]), shown) == 0 && m->met_values[q] == m->met_values[q])
			snprintf(b, n, "%.4g", m->met_values[q]); /* NaN: not measured */
}

/* The counters of every run that read some: a row per counter, once, by its
 * short name (the raw ncu metrics as its tooltip, or in a note in
 * Markdown), a column per run. */
static void counters(FILE *f, lab_format fmt, const measurement *r, const int *idx, int n)
{
	int with[64], nw = 0;
	for (int i = 0; i < n && nw < 64; i++)
		if (r[idx[i]].nmet > 0)
			with[nw++] = i;
	if (nw == 0)
		return;
	/* the counters, in the order they first come */
	const char **names = NULL;
	int nn = 0;
	for (int j = 0; j < nw; j++) {
		const measurement *m = &r[idx[with[j]]];
		for (int k = 0; k < m->nmet; k++) {
			const char *sn = shown_name(m->met_names[k]);
			int seen = covered(m, k);
			for (int q = 0; q < nn && !seen; q++)
				seen = strcmp(names[q], sn) == 0;
			if (seen)
				continue;
			names = xrealloc(names, (size_t)(nn + 1) * sizeof *names);
			names[nn++] = sn;
		}
	}
	heading(f, fmt, 3, "Hardware counters");
	const char **head = xcalloc((size_t)nw + 1, sizeof *head);
	char **labels = xcalloc((size_t)nw, sizeof *labels);
	head[0] = "metric";
	for (int j = 0; j < nw; j++) {
		labels[j] = label_of(r, idx, n, with[j]);
		head[j + 1] = labels[j];
	}
	tw t = { 0 };
	t_begin(&t, f, fmt, head, nw + 1);
	sbuf note = { 0 };
	for (int k = 0; k < nn; k++) {
		char raw[3 * METRICS_NAME];
		raw_of(names[k], raw, sizeof raw);
		if (fmt == LAB_HTML && raw[0]) {
			fputs("<tr><td title=\"", f);
			esc(f, fmt, raw);
			fputs("\">", f);
			esc(f, fmt, names[k]);
			fputs("</td>", f);
			t.col = 1;
		} else {
			t_cell(&t, names[k], 0);
		}
		if (raw[0])
			sb_printf(&note, "%s%s: %s", note.len ? "; " : "", names[k], raw);
		for (int j = 0; j < nw; j++) {
			char b[64];
			counter_value(&r[idx[with[j]]], names[k], b, sizeof b);
			t_cell(&t, b, 1);
		}
	}
	t_end(&t);
	if (fmt == LAB_MARKDOWN && note.len) {
		char *p = xasprintf("Raw ncu metrics: %s.", note.s);
		para(f, fmt, p);
		free(p);
	}
	sb_free(&note);
	for (int j = 0; j < nw; j++)
		free(labels[j]);
	free(labels);
	free(head);
	free(names);
}

/* What `explain` said of each kernel explained: the lab's three answers. */
static void diagnosis(FILE *f, lab_format fmt, const measurement *r, const int *idx, int n)
{
	int any = 0;
	for (int i = 0; i < n && !any; i++)
		any = r[idx[i]].why != NULL;
	if (!any)
		return;
	heading(f, fmt, 3, "What limits each kernel");
	static const char *const head[] = { "kernel", "verdict", "limiter", "headroom", "rules" };
	tw t = { 0 };
	t_begin(&t, f, fmt, head, 5);
	for (int i = 0; i < n; i++) {
		const explain_out *o = r[idx[i]].why;
		if (!o)
			continue;
		char *l = label_of(r, idx, n, i);
		t_cell(&t, l, 0);
		free(l);
		t_cell(&t, o->verdict, 0);
		char b[64] = "";
		if (o->limiter >= 0)
			snprintf(b, sizeof b, "%s (%.0f%%)", explain_unit_name(o->limiter), o->sol[o->limiter]);
		t_cell(&t, b, 0);
		t_cell(&t, o->headroom_text, 0);
		sbuf rules = { 0 };
		for (int k = 0; k < o->nrules; k++)
			sb_printf(&rules, "%s%s: %s", k ? "; " : "", o->rules[k].name, o->rules[k].text);
		t_cell(&t, rules.s ? rules.s : (o->counters ? "none" : "(no counters)"), 0);
		sb_free(&rules);
	}
	t_end(&t);
}

/* The kernels that declare flops under the session's roofs. */
static void roofline_fig(FILE *f, lab_format fmt, const lab_input *in, const int *idx, int n)
{
	const measurement *r = in->runs;
	roofline rl;
	roofline_init(&rl, "roofline", in->mem_gbps, in->fp32_gflops);
	for (int i = 0; i < n; i++) {
		const measurement *m = &r[idx[i]];
		double ai;
		int declared, later = 0;
		for (int j = i + 1; j < n && !later; j++) /* the latest of each kernel and values */
			later = strcmp(r[idx[j]].kernel, m->kernel) == 0 && same_str(r[idx[j]].values, m->values) &&
			        roofline_place(&r[idx[j]], &ai, &declared) == 0;
		if (later || roofline_place(m, &ai, &declared) != 0)
			continue;
		char *l = label_of(r, idx, n, i);
		roofline_add(&rl, l, ai, m->gflops, declared);
		free(l);
	}
	if (rl.n > 0) {
		heading(f, fmt, 3, "Roofline");
		sbuf b = { 0 };
		if (fmt == LAB_HTML) {
			roofline_svg_text(&rl, &b, 0);
			fputs("<figure>\n", f);
			fwrite(b.s, 1, b.len, f);
			fputs("</figure>\n", f);
		} else {
			roofline_text(&rl, &b, 60, 14);
			code(f, fmt, "", b.s);
		}
		sb_free(&b);
	}
	roofline_free(&rl);
}

static void kernels(FILE *f, lab_format fmt, const measurement *r, const int *idx, int n)
{
	char *src = NULL;
	if (read_file(r[idx[0]].file, &src, NULL) != 0) {
		para(f, fmt, "(the file cannot be read now: no source shown)");
		return;
	}
	heading(f, fmt, 3, "Kernels");
	for (int i = 0; i < n; i++) {
		int seen = 0;
		for (int j = 0; j < i && !seen; j++)
			seen = strcmp(r[idx[j]].kernel, r[idx[i]].kernel) == 0;
		if (seen)
			continue;
		char *text = lab_kernel_source(src, r[idx[i]].kernel);
		if (text) {
			code(f, fmt, "cuda", text);
			free(text);
		}
	}
	free(src);
}

/* Each kernel's source with a bar a line (HTML), or its costly lines as a
 * table (Markdown). */
static void per_line(FILE *f, lab_format fmt, const lab_input *in)
{
	heading(f, fmt, 2, "Cost by source line");
	for (int i = 0; i < in->nlines; i++) {
		const lab_lines *l = &in->lines[i];
		char *src = NULL;
		if (read_file(l->path, &src, NULL) != 0)
			src = NULL;
		for (int fn = 0; fn < l->v->nfuncs; fn++) {
			sbuf t = { 0 };
			sb_printf(&t, "%s%s%s (%s)", l->kernel, l->v->nfuncs > 1 ? ": " : "",
			          l->v->nfuncs > 1 ? l->v->funcs[fn] : "", l->values);
			heading(f, fmt, 3, t.s);
			sb_free(&t);
			if (fmt == LAB_HTML) {
				sbuf b = { 0 };
				lines_html(&b, l->v, fn, src);
				fwrite(b.s, 1, b.len, f);
				sb_free(&b);
			} else {
				table tb;
				lines_table(&tb, l->v, fn, LS_STALL, 0, 0, 0);
				table_print(&tb, f, FMT_MARKDOWN, 0, 0);
				fputc('\n', f);
				table_free(&tb);
			}
		}
		if (!l->v->counted)
			para(f, fmt, "Instructions per line from the cubin: the counts need a GPU.");
		free(src);
	}
}

static const char style[] =
	"body{font-family:Helvetica,Arial,sans-serif;max-width:72em;margin:2em auto;padding:0 1em;color:#222}"
	"table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:0.9em}"
	"th,td{border:1px solid #ccc;padding:0.25em 0.6em;text-align:left}td{overflow-wrap:anywhere}"
	"td:first-child{overflow-wrap:normal}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums;overflow-wrap:normal}th{background:#f3f3f3}"
	"pre{background:#f7f7f7;padding:0.8em;overflow-x:auto;font-size:0.85em}"
	"figure{margin:0.5em 0 1.5em}svg{max-width:100%;height:auto}"
	"table.lines td{border:none;border-bottom:1px solid #eee;padding:0.05em 0.6em}"
	"table.lines td:nth-child(2){white-space:pre;font-size:0.85em}table.lines td:nth-child(3){width:14em}"
	"table.lines tr.q{color:#999}.bar{height:0.8em;background:#c0392b;min-width:1px}";

void lab_write(FILE *f, lab_format fmt, const lab_input *in)
{
	const measurement *r = in->runs;
	if (fmt == LAB_HTML)
		fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		           "<title>cuplay lab report</title>\n<style>%s</style>\n</head>\n<body>\n", style);
	heading(f, fmt, 1, "cuplay lab report");
	/* the GPUs the runs were on */
	sbuf who = { 0 };
	sb_printf(&who, "Made by cuplay %s on %s.", in->version ? in->version : "", in->when ? in->when : "");
	int launched = 0;
	for (int i = 0; i < in->nruns; i++) {
		launched |= r[i].launched;
		if (!r[i].device)
			continue;
		int seen = 0;
		for (int j = 0; j < i && !seen; j++)
			seen = same_str(r[j].device, r[i].device);
		if (!seen)
			sb_printf(&who, " GPU: %s.", r[i].device);
	}
	if (!launched)
		sb_puts(&who, " Compile-only: nothing was launched, so there are no times.");
	para(f, fmt, who.s);
	sb_free(&who);
	if (in->nruns == 0)
		para(f, fmt, "Nothing was run in this session yet.");
	/* per kernel file, in the order they were first run */
	int *idx = xcalloc((size_t)in->nruns + 1, sizeof *idx);
	for (int i = 0; i < in->nruns; i++) {
		int first = 1;
		for (int j = 0; j < i && first; j++)
			first = strcmp(r[j].file, r[i].file) != 0;
		if (!first)
			continue;
		int n = 0;
		for (int j = i; j < in->nruns; j++)
			if (strcmp(r[j].file, r[i].file) == 0)
				idx[n++] = j;
		heading(f, fmt, 2, r[i].file);
		kernels(f, fmt, r, idx, n);
		heading(f, fmt, 3, "Results");
		results(f, fmt, r, idx, n);
		speedups(f, fmt, r, idx, n);
		diagnosis(f, fmt, r, idx, n);
		roofline_fig(f, fmt, in, idx, n);
		counters(f, fmt, r, idx, n);
	}
	free(idx);
	if (in->nlines > 0)
		per_line(f, fmt, in);
	if (in->tl && in->ntl > 0) { /* the last run's copies and kernels, by stream */
		heading(f, fmt, 2, "Timeline");
		sbuf b = { 0 };
		if (fmt == LAB_HTML) {
			tl_svg(in->tl, in->ntl, in->tl_title, 0, &b);
			fputs("<figure>\n", f);
			fwrite(b.s, 1, b.len, f);
			fputs("</figure>\n", f);
		} else {
			tl_text(in->tl, in->ntl, in->tl_title, 80, &b);
			code(f, fmt, "", b.s);
		}
		sb_free(&b);
	}
	if (in->ncommands > 0) {
		heading(f, fmt, 2, "Commands");
		sbuf b = { 0 };
		for (int i = 0; i < in->ncommands; i++)
			sb_printf(&b, "%s\n", in->commands[i]);
		code(f, fmt, "", b.s);
		sb_free(&b);
	}
	if (fmt == LAB_HTML)
		fputs("</body>\n</html>\n", f);
}
