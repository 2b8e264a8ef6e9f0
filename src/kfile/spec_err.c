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
