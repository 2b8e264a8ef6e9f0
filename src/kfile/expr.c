/* expr.c: the integer expression language of //@ lines and `set`.
 *
 * A recursive-descent parser that evaluates as it goes. Grammar, lowest
 * precedence first (as in C):
 *
 *   shift   := sum (('<<' | '>>') sum)*
 *   sum     := product (('+' | '-') product)*
 *   product := unary (('*' | '/' | '%') unary)*
 *   unary   := ('-' | '+') unary | primary
 *   primary := NUMBER | NAME | FUNC '(' shift ',' shift ')' | '(' shift ')'
 *
 * Every operation is checked: division by zero and int64 overflow are errors,
 * never undefined behaviour. Floats are handled before the parser runs: an
 * expression that is exactly [-]FLOAT or [-]FLOATNAME is a float value; a
 * float anywhere else is an error. In float mode (expr_eval_float, for a
 * value that a kernel takes as float or double) the same grammar computes
 * in double precision: integers and floats mix, 5/2 is 2.5. */
#include "expr.h"
#include "util.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 200 /* nesting of parentheses and unary operators */

/* The position of name (len bytes) in t, or -1. */
static int symtab_find(const symtab *t, const char *name, size_t len)
{
	if (t->ix.n == t->n && t->n > 0)
		return nix_get(&t->ix, name, len);
	for (int i = 0; i < t->n; i++)
		if (strlen(t->v[i].name) == len && memcmp(t->v[i].name, name, len) == 0)
			return i;
	return -1;
}

/* The index made again from the names (after a removal). */
static void symtab_reindex(symtab *t)
{
	nix_free(&t->ix);
	for (int i = 0; i < t->n; i++)
		nix_put(&t->ix, t->v[i].name, i);
}

void symtab_set(symtab *t, const char *name, value v, int hidden)
{
	if (t->ix.n != t->n)
		symtab_reindex(t);
	int i = symtab_find(t, name, strlen(name));
	if (i >= 0) {
		t->v[i].v = v;
		t->v[i].hidden = hidden;
		return;
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->v = xrealloc(t->v, (size_t)t->cap * sizeof *t->v);
	}
	t->v[t->n] = (sym){ xstrdup(name), v, hidden };
	nix_put(&t->ix, t->v[t->n].name, t->n);
	t->n++;
}

const sym *symtab_get(const symtab *t, const char *name, int len)
{
	int i = symtab_find(t, name, len < 0 ? strlen(name) : (size_t)len);
	return i >= 0 ? &t->v[i] : NULL;
}

int symtab_remove(symtab *t, const char *name)
{
	int i = symtab_find(t, name, strlen(name));
	if (i < 0)
		return -1;
	free(t->v[i].name);
	memmove(&t->v[i], &t->v[i + 1], (size_t)(t->n - i - 1) * sizeof t->v[0]);
	t->n--;
	symtab_reindex(t);
	return 0;
}

void symtab_free(symtab *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	nix_free(&t->ix);
	t->v = NULL;
	t->n = t->cap = 0;
}

typedef struct parser {
	const char *s; /* the whole expression: column 1 */
	const char *p; /* next character */
	const symtab *t;
	int depth;
	int col;       /* where the error is */
	char *err;
	int fl;        /* float mode: every value is a double (expr_eval_float) */
} parser;

static int perr(parser *ps, const char *at, const char *fmt, ...) PRINTF_LIKE(3, 4);

static int perr(parser *ps, const char *at, const char *fmt, ...)
{
	sbuf b = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	free(ps->err);
	ps->err = sb_steal(&b);
	ps->col = (int)(at - ps->s) + 1;
	return -1;
}

static void skip_ws(parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static int ident_len(const char *p)
{
	int n = 0;
	if (!is_ident_start((unsigned char)p[0]))
		return 0;
	while (is_ident_char((unsigned char)p[n]))
		n++;
	return n;
}

/* Length of the token at p, for messages: a name, a number, `<<`, or one character. */
static int token_len(const char *p)
{
	int n = 0;
	if (is_ident_char((unsigned char)*p) || *p == '.') {
		while (is_ident_char((unsigned char)p[n]) || p[n] == '.')
			n++;
		return n;
	}
	if ((p[0] == '<' || p[0] == '>') && p[1] == p[0])
		return 2;
	return 1;
}

static int starts_number(const char *p)
{
	return isdigit((unsigned char)p[0]) || (p[0] == '.' && isdigit((unsigned char)p[1]));
}

/* Scans the number at p into v (integer or float literal) and sets *end.
 * Integers are decimal or 0x hexadecimal. */
static int scan_number(parser *ps, const char *p, value *v, const char **end)
{
	const char *q = p;
	uint64_t x = 0;
	int overflow = 0;
	memset(v, 0, sizeof *v);
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
		for (q = p + 2; isxdigit((unsigned char)*q); q++) {
			int d = isdigit((unsigned char)*q) ? *q - '0' : tolower((unsigned char)*q) - 'a' + 10;
			overflow |= x > ((uint64_t)INT64_MAX - (uint64_t)d) / 16;
			x = x * 16 + (uint64_t)d;
		}
	} else {
		for (; isdigit((unsigned char)*q); q++) {
			int d = *q - '0';
			overflow |= x > ((uint64_t)INT64_MAX - (uint64_t)d) / 10;
			x = x * 10 + (uint64_t)d;
		}
		char *f;
		double d = strtod(p, &f);
		if (f > q) { /* a '.' or an exponent: a float literal */
			v->is_float = 1;
			v->f = d;
			q = f;
		}
	}
	if (is_ident_char((unsigned char)*q) || *q == '.')
		return perr(ps, p, "invalid number '%.*s'", token_len(p), p);
	if (v->is_float && !isfinite(v->f))
		return perr(ps, p, "float literal '%.*s' out of range", (int)(q - p), p);
	if (!v->is_float && overflow)
		return perr(ps, p, "integer overflow in '%.*s'", (int)(q - p), p);
	v->i = (int64_t)x;
	*end = q;
	return 0;
}

/* "unknown param 'X' in expression (known: A, B)", listing visible names. */
static int unknown_name(parser *ps, const char *at, int len)
{
	sbuf known = {0};
	for (int i = 0; i < ps->t->n; i++)
		if (!ps->t->v[i].hidden)
			sb_printf(&known, "%s%s", known.len ? ", " : "", ps->t->v[i].name);
	int r = perr(ps, at, "unknown param '%.*s' in expression (%s%s)", len, at,
	             known.len ? "known: " : "none declared", known.len ? known.s : "");
	sb_free(&known);
	return r;
}

/* a op b for the binary operators and functions; at locates errors. */
static int apply_int(parser *ps, const char *at, char op, int64_t a, int64_t b, int64_t *r)
{
	switch (op) {
	case '+':
		if (__builtin_add_overflow(a, b, r))
			break;
		return 0;
	case '-':
		if (__builtin_sub_overflow(a, b, r))
			break;
		return 0;
	case '*':
		if (__builtin_mul_overflow(a, b, r))
			break;
		return 0;
	case '/': case '%': case 'c': /* c: cdiv, rounding up */
		if (b == 0)
			return perr(ps, at, "division by zero");
		if (b == -1) { /* INT64_MIN / -1 overflows and INT64_MIN % -1 is undefined */
			if (op == '%') {
				*r = 0;
				return 0;
			}
			if (a == INT64_MIN)
				break;
			*r = -a;
			return 0;
		}
		*r = op == '%' ? a % b : a / b;
		if (op == 'c' && a % b != 0 && (a < 0) == (b < 0))
			++*r;
		return 0;
	case '<': case '>': /* << and >> */
		if (b < 0 || b > 63)
			return perr(ps, at, "shift count %lld out of range (0 to 63)", (long long)b);
		if (op == '>') {
			*r = a >= 0 ? a >> b : ~(~a >> b); /* arithmetic, portably */
			return 0;
		}
		if (b == 63) {
			if (a != 0 && a != -1)
				break;
			*r = a == 0 ? 0 : INT64_MIN;
			return 0;
		}
		if (__builtin_mul_overflow(a, (int64_t)1 << b, r))
			break;
		return 0;
	case 'm':
		*r = a < b ? a : b;
		return 0;
	case 'M':
		*r = a > b ? a : b;
		return 0;
	}
	return perr(ps, at, "integer overflow");
}

/* a op b in float mode: + - * / min max in double precision; the others
 * are integer operations. */
static int apply_float(parser *ps, const char *at, char op, double a, double b, double *r)
{
	switch (op) {
	case '+': *r = a + b; break;
	case '-': *r = a - b; break;
	case '*': *r = a * b; break;
	case '/':
		if (b == 0)
			return perr(ps, at, "division by zero");
		*r = a / b;
		break;
	case 'm': *r = a < b ? a : b; break;
	case 'M': *r = a > b ? a : b; break;
	default:
		return perr(ps, at, "'%s' takes integers, not a floating-point value",
		            op == '%' ? "%" : op == 'c' ? "cdiv" : op == '<' ? "<<" : ">>");
	}
	if (!isfinite(*r))
		return perr(ps, at, "floating-point overflow");
	return 0;
}

static int apply(parser *ps, const char *at, char op, value a, value b, value *r)
{
	memset(r, 0, sizeof *r);
	if (ps->fl) {
		r->is_float = 1;
		return apply_float(ps, at, op, a.f, b.f, &r->f);
	}
	return apply_int(ps, at, op, a.i, b.i, &r->i);
}

/* A number or a name's value as this mode holds it: in float mode every
 * value is a double; otherwise a float is an error. */
static int take(parser *ps, const char *at, int len, value x, int is_name, value *v)
{
	memset(v, 0, sizeof *v);
	if (ps->fl) {
		v->is_float = 1;
		v->f = x.is_float ? x.f : (double)x.i;
		return 0;
	}
	if (x.is_float)
		return is_name ? perr(ps, at, "float param '%.*s' in integer expression", len, at)
		               : perr(ps, at, "float literal '%.*s' in integer expression", len, at);
	v->i = x.i;
	return 0;
}

static int parse_shift(parser *ps, value *v);

/* The operator of function NAME (cdiv, min, max), or 0. */
static char func_op(const char *name, int len)
{
	static const struct { const char *name; char op; } funcs[] = {
		{ "cdiv", 'c' }, { "min", 'm' }, { "max", 'M' },
	};
	for (size_t i = 0; i < ARRAY_LEN(funcs); i++)
		if ((int)strlen(funcs[i].name) == len && strncmp(funcs[i].name, name, (size_t)len) == 0)
			return funcs[i].op;
	return 0;
}

/* FUNC '(' args ')': the name is at `at`, ps->p at the '('. */
static int parse_call(parser *ps, const char *at, int len, value *v)
{
	char op = func_op(at, len);
	if (!op)
		return perr(ps, at, "unknown function '%.*s' (known: cdiv, min, max)", len, at);
	value args[2];
	memset(args, 0, sizeof args);
	int n = 0;
	ps->p++;
	skip_ws(ps);
	if (*ps->p == ')')
		ps->p++;
	else
		for (;;) {
			value x;
			if (parse_shift(ps, &x) != 0)
				return -1;
			if (n < 2)
				args[n] = x;
			n++;
			skip_ws(ps);
			if (*ps->p == ',') {
				ps->p++;
				continue;
			}
			if (*ps->p == ')') {
				ps->p++;
				break;
			}
			return perr(ps, ps->p, "expected ',' or ')' in arguments of '%.*s'", len, at);
		}
	if (n != 2)
		return perr(ps, at, "%.*s takes 2 arguments", len, at);
	return apply(ps, at, op, args[0], args[1], v);
}

static int parse_primary(parser *ps, value *v)
{
	skip_ws(ps);
	const char *at = ps->p;
	if (*at == 0)
		return perr(ps, at, "expected an expression");
	if (*at == '(') {
		ps->p++;
		if (parse_shift(ps, v) != 0)
			return -1;
		skip_ws(ps);
		if (*ps->p != ')')
			return perr(ps, ps->p, "expected ')' to match '(' at column %d", (int)(at - ps->s) + 1);
		ps->p++;
		return 0;
	}
	if (starts_number(at)) {
		value x;
		if (scan_number(ps, at, &x, &ps->p) != 0)
			return -1;
		return take(ps, at, (int)(ps->p - at), x, 0, v);
	}
	int len = ident_len(at);
	if (len == 0)
		return perr(ps, at, "expected an expression, found '%.*s'", token_len(at), at);
	ps->p += len;
	skip_ws(ps);
	const sym *s = symtab_get(ps->t, at, len);
	/* a name followed by '(' is a call, unless it is a param (then the '(' is an error) */
	if (*ps->p == '(' && (!s || func_op(at, len)))
		return parse_call(ps, at, len, v);
	if (!s)
		return unknown_name(ps, at, len);
	return take(ps, at, len, s->v, 1, v);
}

static int parse_unary(parser *ps, value *v)
{
	skip_ws(ps);
	const char *at = ps->p;
	if (*at != '-' && *at != '+')
		return parse_primary(ps, v);
	if (++ps->depth > MAX_DEPTH)
		return perr(ps, at, "expression nested too deeply");
	ps->p++;
	value x;
	if (parse_unary(ps, &x) != 0)
		return -1;
	ps->depth--;
	value zero = { ps->fl, 0, 0 };
	return *at == '-' ? apply(ps, at, '-', zero, x, v) : (*v = x, 0);
}

static int parse_product(parser *ps, value *v)
{
	if (parse_unary(ps, v) != 0)
		return -1;
	for (;;) {
		skip_ws(ps);
		const char *at = ps->p;
		if (*at != '*' && *at != '/' && *at != '%')
			return 0;
		ps->p++;
		value b;
		if (parse_unary(ps, &b) != 0 || apply(ps, at, *at, *v, b, v) != 0)
			return -1;
	}
}

static int parse_sum(parser *ps, value *v)
{
	if (parse_product(ps, v) != 0)
		return -1;
	for (;;) {
		skip_ws(ps);
		const char *at = ps->p;
		if (*at != '+' && *at != '-')
			return 0;
		ps->p++;
		value b;
		if (parse_product(ps, &b) != 0 || apply(ps, at, *at, *v, b, v) != 0)
			return -1;
	}
}

static int parse_shift(parser *ps, value *v)
{
	if (++ps->depth > MAX_DEPTH)
		return perr(ps, ps->p, "expression nested too deeply");
	if (parse_sum(ps, v) != 0)
		return -1;
	for (;;) {
		skip_ws(ps);
		const char *at = ps->p;
		if (!((at[0] == '<' || at[0] == '>') && at[1] == at[0])) {
			ps->depth--;
			return 0;
		}
		ps->p += 2;
		value b;
		if (parse_sum(ps, &b) != 0 || apply(ps, at, at[0], *v, b, v) != 0)
			return -1;
	}
}

/* 1 when s is exactly [-]FLOAT_LITERAL or [-]FLOAT_NAME (blanks allowed
 * around), with the value in *f. Anything else goes to the integer parser,
 * which reports a float used in arithmetic. */
static int whole_float(const char *s, const symtab *t, double *f)
{
	parser ps = { .s = s, .p = s, .t = t };
	double sign = 1;
	skip_ws(&ps);
	if (*ps.p == '-' || *ps.p == '+') {
		sign = *ps.p == '-' ? -1 : 1;
		ps.p++;
		skip_ws(&ps);
	}
	const char *at = ps.p;
	int len = ident_len(at);
	if (starts_number(at)) {
		value v;
		int r = scan_number(&ps, at, &v, &ps.p);
		free(ps.err);
		if (r != 0 || !v.is_float)
			return 0;
		*f = v.f;
	} else if (len > 0) {
		const sym *x = symtab_get(t, at, len);
		if (!x || !x->v.is_float)
			return 0;
		*f = x->v.f;
		ps.p += len;
	} else {
		return 0;
	}
	skip_ws(&ps);
	if (*ps.p != 0)
		return 0;
	*f *= sign;
	return 1;
}

static int eval(const char *s, const symtab *t, int fl, value *out, int *col, char **err)
{
	static const symtab empty;
	if (!t)
		t = &empty;
	memset(out, 0, sizeof *out);
	if (!fl && whole_float(s, t, &out->f)) {
		out->is_float = 1;
		return 0;
	}
	parser ps = { .s = s, .p = s, .t = t, .fl = fl };
	int r = parse_shift(&ps, out);
	if (r == 0) {
		skip_ws(&ps);
		if (*ps.p)
			r = perr(&ps, ps.p, "unexpected '%.*s' after expression", token_len(ps.p), ps.p);
	}
	if (r == 0)
		return 0;
	memset(out, 0, sizeof *out);
	if (col)
		*col = ps.col;
	if (err) {
		free(*err);
		*err = ps.err;
	} else {
		free(ps.err);
	}
	return -1;
}

int expr_eval(const char *s, const symtab *t, value *out, int *col, char **err)
{
	return eval(s, t, 0, out, col, err);
}

int expr_eval_float(const char *s, const symtab *t, value *out, int *col, char **err)
{
	return eval(s, t, 1, out, col, err);
}

void value_format(value v, char *buf, int n)
{
	if (n <= 0)
		return;
	if (!v.is_float) {
		snprintf(buf, (size_t)n, "%lld", (long long)v.i);
		return;
	}
	if (!isfinite(v.f)) {
		snprintf(buf, (size_t)n, "%s", isnan(v.f) ? "nan" : v.f < 0 ? "-inf" : "inf");
		return;
	}
	char tmp[40];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*g", prec, v.f);
		if (strtod(tmp, NULL) == v.f)
			break;
	}
	/* Keep it a float when read back, and in C++ (-DALPHA=1.0, not 1). */
	if (!strpbrk(tmp, ".e"))
		strcat(tmp, ".0");
	snprintf(buf, (size_t)n, "%s", tmp);
}

int expr_next_name(const char *s, int *pos, int *at, int *len)
{
	const char *p = s + *pos;
	while (*p) {
		if (is_ident_start((unsigned char)*p)) {
			int n = ident_len(p);
			const char *q = p + n;
			while (isspace((unsigned char)*q))
				q++;
			if (*q == '(') { /* a function's: cdiv, min, max (others are eval's to refuse) */
				p += n;
				continue;
			}
			*at = (int)(p - s);
			*len = n;
			*pos = (int)(p - s) + n;
			return 1;
		}
		if (isdigit((unsigned char)*p) || *p == '.') { /* 1e5, 0x10, 2.5f: no names inside */
			while (is_ident_char((unsigned char)*p) || *p == '.')
				p++;
			continue;
		}
		p++;
	}
	*pos = (int)(p - s);
	return 0;
}

int expr_is_fact(const char *name, int len)
{
	static const char *const facts[] = { "SM_COUNT", "WARP_SIZE", "L2_BYTES" };
	for (size_t i = 0; i < ARRAY_LEN(facts); i++)
		if ((int)strlen(facts[i]) == len && strncmp(facts[i], name, (size_t)len) == 0)
			return 1;
	return 0;
}
