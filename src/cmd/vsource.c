/* vsource.c: a submission screened and put under its exercise's header
 * (vsource.h, verify.h). */
#include "vsource.h"
#include "toolkit.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The submission's `//@` lines kept: the defines that replace the starting
 * file's, and the exercise kernel's own line. */
#define VS_MAX_DEFINES 32
typedef struct kept {
	char *define_name[VS_MAX_DEFINES];
	char *define_line[VS_MAX_DEFINES];
	int ndefines;
	char *kernel_line;
	int ign_lo, ign_hi;  /* the run of ignored lines being gathered */
	sbuf ignored;
} kept;

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* [p, end): the word at p (after blanks) into [*w, *w + return) */
static int word_at(const char **p, const char *end, const char **w)
{
	while (*p < end && blank(**p))
		(*p)++;
	*w = *p;
	while (*p < end && !blank(**p))
		(*p)++;
	return (int)(*p - *w);
}

static int word_is(const char *w, int n, const char *s)
{
	return (size_t)n == strlen(s) && memcmp(w, s, (size_t)n) == 0;
}

/* the identifier at [w, w+n) up to a non-identifier character */
static int ident_len(const char *w, int n)
{
	int i = 0;
	while (i < n && is_ident_char((unsigned char)w[i]))
		i++;
	return i;
}

static void ignore_line(kept *k, int line)
{
	if (k->ign_hi == line - 1 && k->ign_hi > 0) {
		k->ign_hi = line;
		return;
	}
	if (k->ign_lo > 0) {
		if (k->ignored.len)
			sb_puts(&k->ignored, ", ");
		if (k->ign_lo == k->ign_hi)
			sb_printf(&k->ignored, "%d", k->ign_lo);
		else
			sb_printf(&k->ignored, "%d-%d", k->ign_lo, k->ign_hi);
	}
	k->ign_lo = k->ign_hi = line;
}

static const spec_var *start_var(const spec *start, const char *w, int n)
{
	for (int i = 0; i < start->nvars; i++)
		if (word_is(w, n, start->vars[i].name))
			return &start->vars[i];
	return NULL;
}

/* [p, end) normalised into b: blanks collapsed, a trailing // comment and
 * the blanks around it dropped */
static void normal_line(const char *p, const char *end, sbuf *b)
{
	while (p < end && blank(*p))
		p++;
	const char *c = p + 3;
	while (c + 1 < end && !(c[0] == '/' && c[1] == '/'))
		c++;
	if (c + 1 < end)
		end = c;
	while (end > p && blank(end[-1]))
		end--;
	for (; p < end; p++)
		if (!blank(*p) || !blank(p[1]))
			sb_putc(b, blank(*p) ? ' ' : *p);
}

/* 1 when the starting file's header has the line [bol, end), as normal_line sees it */
static int start_has_line(const spec *start, const char *bol, const char *end)
{
	sbuf want = {0};
	normal_line(bol, end, &want);
	int found = 0;
	for (const char *p = start->src; *p && !found;) {
		const char *nl = strchr(p, '\n'), *e = nl ? nl : p + strlen(p);
		sbuf got = {0};
		normal_line(p, e, &got);
		found = got.len == want.len && got.len > 0 && memcmp(got.s, want.s, got.len) == 0;
		sb_free(&got);
		p = nl ? nl + 1 : e;
	}
	sb_free(&want);
	return found;
}

/* A `//@` line of the submission (p after "//@", line its number): kept,
 * ignored, or refused (-1 with *why). */
static int header_line(const spec *start, const struct exercise *ex, const char *name, int line, const char *bol,
                       const char *p, const char *end, kept *k, char **why)
{
	const char *w;
	int n = word_at(&p, end, &w);
	if (word_is(w, n, "include") || word_is(w, n, "link")) {
		*why = xasprintf("%s:%d: '//@ %.*s' is not allowed: a submission uses the toolkit's headers and "
		                 "libraries alone", name, line, n, w);
		return -1;
	}
	if (word_is(w, n, "define")) {
		const char *d;
		int dn = word_at(&p, end, &d);
		dn = ident_len(d, dn);
		const spec_var *v = start_var(start, d, dn);
		if (v && v->is_define) {
			for (int i = 0; i < k->ndefines; i++)
				if (word_is(d, dn, k->define_name[i])) {
					*why = xasprintf("%s:%d: '%s' is defined twice", name, line, k->define_name[i]);
					return -1;
				}
			if (k->ndefines == VS_MAX_DEFINES) {
				*why = xasprintf("%s:%d: too many defines (at most %d)", name, line, VS_MAX_DEFINES);
				return -1;
			}
			k->define_name[k->ndefines] = xstrndup(d, (size_t)dn);
			k->define_line[k->ndefines++] = xstrndup(bol, (size_t)(end - bol));
			return 0;
		}
		if (!v) {
			*why = xasprintf("%s:%d: '//@ define %.*s': the exercise's file defines no '%.*s' (its defines "
			                 "are the knobs a submission may set; a constant of one's own is a #define)",
			                 name, line, dn, d, dn, d);
			return -1;
		}
		if (!start_has_line(start, bol, end)) {
			*why = xasprintf("%s:%d: '%.*s' is a size of the exercise's, set by it (restore the line or "
			                 "remove it)", name, line, dn, d);
			return -1;
		}
		ignore_line(k, line);
		return 0;
	}
	if (word_is(w, n, "kernel")) {
		const char *kn;
		int knl = word_at(&p, end, &kn);
		if (!word_is(kn, knl, ex->kernel)) {
			ignore_line(k, line);
			return 0;
		}
		static const char *const banned[] = { "check", "bytes", "flops", "skip", "tol", "sequence" };
		for (const char *q = p; q < end;) {
			const char *t;
			int tn = word_at(&q, end, &t);
			tn = ident_len(t, tn);
			for (size_t b = 0; b < sizeof banned / sizeof *banned; b++)
				if (word_is(t, tn, banned[b])) {
					*why = xasprintf("%s:%d: '%s' on the kernel's line is the exercise's to say: the "
					                 "line may give the launch (grid, block, cluster, smem) alone", name, line,
					                 banned[b]);
					return -1;
				}
		}
		if (k->kernel_line) {
			*why = xasprintf("%s:%d: a second '//@ kernel %s' line", name, line, ex->kernel);
			return -1;
		}
		k->kernel_line = xstrndup(bol, (size_t)(end - bol));
		return 0;
	}
	if (!start_has_line(start, bol, end)) {
		*why = xasprintf("%s:%d: '//@ %.*s' differs from the exercise's header: sizes, buffers, checks, "
		                 "tolerances and timing are the exercise's (restore the line or remove it)", name, line,
		                 n, w);
		return -1;
	}
	ignore_line(k, line); /* the exercise's own line, copied */
	return 0;
}

int vsource_toolkit_header(const char *h)
{
	if (!*h || h[0] == '/' || strstr(h, "..") || strchr(h, '\\'))
		return 0;
	int n;
	const toolkit_shim *sh = toolkit_shims(&n);
	for (int i = 0; i < n; i++)
		if (strcmp(sh[i].name, h) == 0)
			return 1;
	const char *why;
	const char *const *dirs = toolkit_include_dirs(&n, &why);
	for (int i = 0; i < n; i++) {
		char *path = xasprintf("%s/%s", dirs[i], h);
		struct stat st;
		int ok = stat(path, &st) == 0 && S_ISREG(st.st_mode);
		free(path);
		if (ok)
			return 1;
	}
	return 0;
}

/* A `#include` line (p after '#'): the toolkit's headers only. */
static int include_line(const char *name, int line, const char *p, const char *end, char **why)
{
	const char *w;
	int n = word_at(&p, end, &w);
	if (!word_is(w, n, "include") && !(n > 7 && memcmp(w, "include", 7) == 0 && (w[7] == '<' || w[7] == '"')))
		return 0;
	const char *q = w + 7;
	while (q < end && blank(*q))
		q++;
	char close = q < end && *q == '<' ? '>' : q < end && *q == '"' ? '"' : 0;
	const char *e = close ? memchr(q + 1, close, (size_t)(end - q - 1)) : NULL;
	if (close == '"') {
		*why = xasprintf("%s:%d: '#include \"...\"' is not allowed: a submission is one file, and may "
		                 "include the toolkit's headers alone (#include <...>)", name, line);
		return -1;
	}
	char *h = e ? xstrndup(q + 1, (size_t)(e - q - 1)) : NULL;
	int ok = h && vsource_toolkit_header(h);
	if (!ok)
		*why = h ? xasprintf("%s:%d: '#include <%s>' is not a header of the CUDA toolkit: a submission "
		                     "may include the toolkit's headers alone", name, line, h)
		         : xasprintf("%s:%d: an #include of a computed name is not allowed: a submission may "
		                     "include the toolkit's headers alone, as #include <...>", name, line);
	free(h);
	return ok ? 0 : -1;
}

/* Every line of the submission screened: 0, or -1 with *why. */
static int screen(const spec *start, const struct exercise *ex, const char *sub, size_t len, const char *name,
                  kept *k, char **why)
{
	int line = 0;
	for (const char *bol = sub; bol < sub + len; line++) {
		const char *nl = memchr(bol, '\n', (size_t)(sub + len - bol));
		const char *end = nl ? nl : sub + len, *p = bol;
		while (p < end && blank(*p))
			p++;
		if (end - p >= 3 && memcmp(p, "//@", 3) == 0) {
			if (header_line(start, ex, name, line + 1, bol, p + 3, end, k, why) != 0)
				return -1;
		} else if (p < end && *p == '#' && include_line(name, line + 1, p + 1, end, why) != 0) {
			return -1;
		}
		bol = end + 1;
	}
	ignore_line(k, -1); /* the last run */
	return 0;
}

/* The starting file's `//@` lines, with the submission's kept ones in place
 * of the starting file's defines and the exercise kernel's line; other
 * kernels' lines left out (the submission need not define them). */
static void header_of(const spec *start, const struct exercise *ex, const kept *k, sbuf *b, int *lines)
{
	int had_kernel = 0;
	for (const char *bol = start->src; *bol;) {
		const char *nl = strchr(bol, '\n');
		const char *end = nl ? nl : bol + strlen(bol), *p = bol;
		while (p < end && blank(*p))
			p++;
		if (end - p >= 3 && memcmp(p, "//@", 3) == 0) {
			const char *q = p + 3, *w;
			int n = word_at(&q, end, &w);
			const char *line = NULL;
			int keep = 1;
			if (word_is(w, n, "define")) {
				const char *d;
				int dn = word_at(&q, end, &d);
				dn = ident_len(d, dn);
				for (int i = 0; i < k->ndefines; i++)
					if (word_is(d, dn, k->define_name[i]))
						line = k->define_line[i];
			} else if (word_is(w, n, "kernel")) {
				const char *kn;
				int knl = word_at(&q, end, &kn);
				keep = word_is(kn, knl, ex->kernel);
				had_kernel |= keep;
				line = keep ? k->kernel_line : NULL;
			}
			if (keep) {
				if (line)
					sb_puts(b, line);
				else
					sb_add(b, bol, (size_t)(end - bol));
				sb_putc(b, '\n');
				(*lines)++;
			}
		}
		bol = nl ? nl + 1 : end;
	}
	if (!had_kernel && k->kernel_line) {
		sb_printf(b, "%s\n", k->kernel_line);
		(*lines)++;
	}
}

int vsource_make(const spec *start, const struct exercise *ex, const char *sub, size_t len, const char *name,
                 vsource *out, char **why)
{
	memset(out, 0, sizeof *out);
	kept k = {0};
	int rc = -1;
	if (memchr(sub, 0, len))
		*why = xasprintf("%s: a NUL byte in the source", name);
	else if (ex->source_limit > 0 && len > (size_t)ex->source_limit)
		*why = xasprintf("%s: %zu bytes, over the exercise's limit of %ld", name, len, ex->source_limit);
	else if (screen(start, ex, sub, len, name, &k, why) == 0)
		rc = 0;
	if (rc == 0) {
		sbuf b = {0};
		header_of(start, ex, &k, &b, &out->offset);
		char *shown = str_visible(name);
		sb_puts(&b, "#line 1 \"");
		for (const char *c = shown; *c; c++)
			sb_putc(&b, *c == '"' || *c == '\\' ? '_' : *c);
		sb_puts(&b, "\"\n");
		free(shown);
		out->offset++;
		/* the submission's //@ lines become plain comments: the header above governs */
		for (size_t i = 0; i < len; i++) {
			sb_putc(&b, sub[i]);
			if (sub[i] == '/' && i + 2 < len && sub[i + 1] == '/' && sub[i + 2] == '@') {
				size_t j = i;
				while (j > 0 && blank(sub[j - 1]))
					j--;
				if (j == 0 || sub[j - 1] == '\n') {
					sb_puts(&b, "/ ");
					i += 1;
				}
			}
		}
		out->text = sb_steal(&b);
		out->ignored = k.ignored.len ? sb_steal(&k.ignored) : NULL;
	}
	for (int i = 0; i < k.ndefines; i++) {
		free(k.define_name[i]);
		free(k.define_line[i]);
	}
	free(k.kernel_line);
	sb_free(&k.ignored);
	return rc;
}

void vsource_free(vsource *v)
{
	free(v->text);
	free(v->ignored);
	memset(v, 0, sizeof *v);
}
