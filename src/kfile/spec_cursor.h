/* spec_cursor.h: the cursor over one //@ line. Each reader moves c->p
 * past what it read; errors return -1 with *c->err "path:line:col: ...". */
#ifndef CUPLAY_SPEC_CURSOR_H
#define CUPLAY_SPEC_CURSOR_H

#include "spec_types.h"
#include "util.h"

typedef struct cur {
	spec *s;
	char **err;
	const char *bol; /* column 1 of the line */
	const char *p;   /* next character */
	const char *end; /* end of the directive: before a // comment and trailing blanks */
	int line;
} cur;

int cur_col(const cur *c, const char *p);
int cur_err(cur *c, const char *at, const char *fmt, ...) PRINTF_LIKE(3, 4);
int cur_err_choices(cur *c, const char *at, char *msg, const char *name, int len,
                    const char *const *cands, int n, const char *label, const char *none);
void cur_skip_blank(cur *c);
int cur_at_end(cur *c);
/* 1 when the next non-blank character is ch (then skipped). */
int cur_accept(cur *c, char ch);
/* Reads a name after blanks into *w; returns its length, 0 when there is none. */
int cur_word(cur *c, const char **w);
/* Length of the token at p, for messages: a name or one character. */
int cur_token_len(const cur *c, const char *p);
/* Nothing may follow `what` on the line. */
int cur_expect_end(cur *c, const char *what);
/* Reads a number (strtod syntax, finite) at the cursor; -1 when there is none. */
int cur_number(cur *c, double *v);
/* The text [a, e), trimmed, as an expression located in this line. */
spec_expr cur_expr(const cur *c, const char *a, const char *e);
/* The rest of the line as one expression, for `what`. */
int cur_rest_expr(cur *c, const char *what, spec_expr *e);
/* Splits [c->p, stop) at commas outside parentheses into out[0..max).
 * what names the list in messages ("dimensions in 'grid'"). */
int cur_split_list(cur *c, const char *stop, spec_expr *out, int max, int *n, const char *what);

#endif
