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

/* A kernel file's errors, gathered as a compiler gathers them: every
 * independent error at once, each "path:line:col: ...", in the order of
 * their lines, at most SPEC_MAX_ERRORS shown (the rest counted). An error
 * that a failed line may have caused (a name that line would have
 * declared, a grid that a failed grid line would have given) is not said
 * again. */
#define SPEC_MAX_ERRORS 10
typedef struct spec_errmsg {
	int line, col, seq;
	char *msg;
} spec_errmsg;

typedef struct spec_errs {
	spec_errmsg *v;
	int n;
	int stopped;       /* the line the header was read up to (too many errors); 0: read whole */
	char **maybe;      /* the names the failed lines would have declared */
	int nmaybe;
	int launch_failed; /* a grid, block, cluster or kernel line failed */
} spec_errs;

/* Adds msg (taken), an error at line:col. */
void spec_errs_add(spec_errs *e, int line, int col, char *msg);
/* Adds the error "path:line:col: FMT" to e. */
void spec_errs_at(spec_errs *e, const spec *s, int line, int col, const char *fmt, ...) PRINTF_LIKE(5, 6);
/* A failed line would have declared name[0..len). */
void spec_errs_maybe(spec_errs *e, const char *name, int len);
/* 1 when a failed line would have declared name. */
int spec_errs_is_maybe(const spec_errs *e, const char *name);
/* No error: 0. Else -1 with *err (when err is not NULL) the messages, a
 * line each, in the order of their lines; e is emptied either way. */
int spec_errs_done(spec_errs *e, const spec *s, char **err);

#endif
