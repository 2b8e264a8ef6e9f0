/* spec_err.c: a kernel file's errors, "path:line:col: ...". */
#include "spec_err.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int spec_verrat(const spec *s, char **err, int line, int col, const char *fmt, va_list ap)
{
	sbuf b = {0};
	sb_printf(&b, "%s:%d:%d: ", s->path, line, col);
	sb_vprintf(&b, fmt, ap);
	if (err) {
		free(*err);
		*err = sb_steal(&b);
	} else {
		sb_free(&b);
	}
	return -1;
}

int spec_errat(const spec *s, char **err, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	spec_verrat(s, err, line, col, fmt, ap);
	va_end(ap);
	return -1;
}

/* Reports msg (which it frees) followed by the candidates for name:
 *   MSG (LABEL: a, b, c); did you mean 'b'?      or      MSG (NONE) */
int spec_err_choices(const spec *s, char **err, int line, int col, char *msg,
                       const char *name, int len, const char *const *cands, int n,
                       const char *label, const char *none)
{
	sbuf b = {0};
	sb_puts(&b, msg);
	free(msg);
	if (n == 0) {
		sb_printf(&b, " (%s)", none);
	} else {
		sb_printf(&b, " (%s: ", label);
		for (int i = 0; i < n; i++)
			sb_printf(&b, "%s%s", i ? ", " : "", cands[i]);
		sb_putc(&b, ')');
		char *key = xstrndup(name, (size_t)len);
		const char *near = nearest_name(key, cands, n);
		free(key);
		if (near)
			sb_printf(&b, "; did you mean '%s'?", near);
	}
	spec_errat(s, err, line, col, "%s", b.s);
	sb_free(&b);
	return -1;
}

/* Names of the kernels or buffers of s, for spec_err_choices (caller frees the array). */
const char **spec_kernel_names(const spec *s)
{
	const char **v = xmalloc(((size_t)s->nkernels + 1) * sizeof *v);
	for (int i = 0; i < s->nkernels; i++)
		v[i] = s->kernels[i].name;
	return v;
}

const char **spec_buffer_names(const spec *s)
{
	const char **v = xmalloc(((size_t)s->nbufs + 1) * sizeof *v);
	for (int i = 0; i < s->nbufs; i++)
		v[i] = s->bufs[i].name;
	return v;
}

void spec_errs_add(spec_errs *e, int line, int col, char *msg)
{
	e->v = xrealloc(e->v, ((size_t)e->n + 1) * sizeof *e->v);
	e->v[e->n] = (spec_errmsg){ line, col, e->n, msg };
	e->n++;
}

void spec_errs_at(spec_errs *e, const spec *s, int line, int col, const char *fmt, ...)
{
	char *m = NULL;
	va_list ap;
	va_start(ap, fmt);
	spec_verrat(s, &m, line, col, fmt, ap);
	va_end(ap);
	spec_errs_add(e, line, col, m);
}

void spec_errs_maybe(spec_errs *e, const char *name, int len)
{
	if (len <= 0)
		return;
	e->maybe = xrealloc(e->maybe, ((size_t)e->nmaybe + 1) * sizeof *e->maybe);
	e->maybe[e->nmaybe++] = xstrndup(name, (size_t)len);
}

int spec_errs_is_maybe(const spec_errs *e, const char *name)
{
	for (int i = 0; i < e->nmaybe; i++)
		if (strcmp(e->maybe[i], name) == 0)
			return 1;
	return 0;
}

static int by_line(const void *a, const void *b)
{
	const spec_errmsg *x = a, *y = b;
	if (x->line != y->line)
		return (x->line > y->line) - (x->line < y->line);
	if (x->col != y->col)
		return (x->col > y->col) - (x->col < y->col);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

int spec_errs_done(spec_errs *e, const spec *s, char **err)
{
	int n = e->n, shown = n < SPEC_MAX_ERRORS ? n : SPEC_MAX_ERRORS;
	if (e->n > 1)
		qsort(e->v, (size_t)e->n, sizeof *e->v, by_line);
	sbuf b = {0};
	for (int i = 0; i < shown; i++)
		sb_printf(&b, "%s%s", i ? "\n" : "", e->v[i].msg);
	if (e->stopped)
		sb_printf(&b, "\n%s:%d: more errors from this line on: too many (%d shown), the rest of the header not read", s->path, e->stopped, shown);
	else if (n > shown)
		sb_printf(&b, "\n%s:%d: %d more error%s from this line on, not shown", s->path, e->v[shown].line,
		          n - shown, n - shown == 1 ? "" : "s");
	for (int i = 0; i < e->n; i++)
		free(e->v[i].msg);
	for (int i = 0; i < e->nmaybe; i++)
		free(e->maybe[i]);
	free(e->maybe);
	free(e->v);
	memset(e, 0, sizeof *e);
	if (n == 0) {
		sb_free(&b);
		return 0;
	}
	if (err) {
		free(*err);
		*err = sb_steal(&b);
	} else {
		sb_free(&b);
	}
	return -1;
}
