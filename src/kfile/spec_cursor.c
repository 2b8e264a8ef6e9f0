/* spec_cursor.c: the cursor over one //@ line: blanks, words, numbers,
 * expressions and lists, and errors at a column of the line. */
#include "spec_cursor.h"
#include "spec_scan.h"
#include "spec_err.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cur_col(const cur *c, const char *p)
{
	return (int)(p - c->bol) + 1;
}

int cur_err(cur *c, const char *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	spec_verrat(c->s, c->err, c->line, cur_col(c, at), fmt, ap);
	va_end(ap);
	return -1;
}

int cur_err_choices(cur *c, const char *at, char *msg, const char *name, int len,
                    const char *const *cands, int n, const char *label, const char *none)
{
	return spec_err_choices(c->s, c->err, c->line, cur_col(c, at), msg, name, len, cands, n, label, none);
}

void cur_skip_blank(cur *c)
{
	while (c->p < c->end && scan_is_blank(*c->p))
		c->p++;
}

int cur_at_end(cur *c)
{
	cur_skip_blank(c);
	return c->p == c->end;
}

/* 1 when the next non-blank character is ch (then skipped). */
int cur_accept(cur *c, char ch)
{
	cur_skip_blank(c);
	if (c->p == c->end || *c->p != ch)
		return 0;
	c->p++;
	return 1;
}

/* Reads a name after blanks into *w; returns its length, 0 when there is none. */
int cur_word(cur *c, const char **w)
{
	cur_skip_blank(c);
	*w = c->p;
	int n = scan_ident(c->p, c->end);
	c->p += n;
	return n;
}

/* Length of the token at p, for messages: a name or one character. */
int cur_token_len(const cur *c, const char *p)
{
	int n = 0;
	while (p + n < c->end && is_ident_char((unsigned char)p[n]))
		n++;
	return n ? n : 1;
}

/* Nothing may follow `what` on the line. */
int cur_expect_end(cur *c, const char *what)
{
	if (cur_at_end(c))
		return 0;
	return cur_err(c, c->p, "unexpected '%.*s' after %s", cur_token_len(c, c->p), c->p, what);
}

/* Reads a number (strtod syntax, finite) at the cursor; -1 when there is none. */
int cur_number(cur *c, double *v)
{
	cur_skip_blank(c);
	const char *a = c->p, *q = a;
	while (q < c->end && !scan_is_blank(*q) && *q != ')' && *q != ',' && *q != '}')
		q++;
	char buf[64], *e;
	if (q == a || q - a >= (int)sizeof buf)
		return -1;
	memcpy(buf, a, (size_t)(q - a));
	buf[q - a] = 0;
	*v = strtod(buf, &e);
	if (*e || !isfinite(*v))
		return -1;
	c->p = q;
	return 0;
}

/* The text [a, e), trimmed, as an expression located in this line. */
spec_expr cur_expr(const cur *c, const char *a, const char *e)
{
	while (a < e && scan_is_blank(*a))
		a++;
	while (e > a && scan_is_blank(e[-1]))
		e--;
	return (spec_expr){ xstrndup(a, (size_t)(e - a)), c->line, cur_col(c, a) };
}

/* The rest of the line as one expression, for `what`. */
int cur_rest_expr(cur *c, const char *what, spec_expr *e)
{
	if (cur_at_end(c))
		return cur_err(c, c->p, "expected an expression after %s", what);
	*e = cur_expr(c, c->p, c->end);
	c->p = c->end;
	return 0;
}

/* Splits [c->p, stop) at commas outside parentheses into out[0..max).
 * what names the list in messages ("dimensions in 'grid'"). */
int cur_split_list(cur *c, const char *stop, spec_expr *out, int max, int *n, const char *what)
{
	const char *a = c->p;
	int depth = 0;
	*n = 0;
	for (const char *q = c->p;; q++) {
		if (q < stop && *q == '(') {
			depth++;
		} else if (q < stop && *q == ')') {
			depth -= depth > 0;
		} else if (q == stop || (*q == ',' && depth == 0)) {
			const char *x = a;
			while (x < q && scan_is_blank(*x))
				x++;
			if (x == q)
				return cur_err(c, x, "expected an expression %s ','", q == stop ? "after" : "before");
			if (*n == max)
				return cur_err(c, x, "too many %s (at most %d)", what, max);
			out[(*n)++] = cur_expr(c, a, q);
			if (q == stop)
				break;
			a = q + 1;
		}
	}
	c->p = stop;
	return 0;
}
