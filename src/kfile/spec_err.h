/* spec_err.h: a kernel file's errors: each sets *err (when err is not NULL)
 * to "path:line:col: MSG" and returns -1. */
#ifndef CUPLAY_SPEC_ERR_H
#define CUPLAY_SPEC_ERR_H

#include "spec_types.h"
#include "util.h"

#include <stdarg.h>

int spec_verrat(const spec *s, char **err, int line, int col, const char *fmt, va_list ap);
int spec_errat(const spec *s, char **err, int line, int col, const char *fmt, ...) PRINTF_LIKE(5, 6);
/* Reports msg (which it frees) followed by the candidates for name:
 *   MSG (LABEL: a, b, c); did you mean 'b'?      or      MSG (NONE) */
int spec_err_choices(const spec *s, char **err, int line, int col, char *msg,
                     const char *name, int len, const char *const *cands, int n,
                     const char *label, const char *none);
/* Names of the kernels or buffers of s, for spec_err_choices (caller frees the array). */
const char **spec_kernel_names(const spec *s);
const char **spec_buffer_names(const spec *s);

#endif
