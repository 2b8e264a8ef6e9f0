/* expr.h: the integer expression language of //@ lines and `set`.
 *
 *   64-bit integers, + - * / % ( ), unary -, cdiv(a,b), min(a,b), max(a,b),
 *   and names looked up in a symbol table (defines, params, device facts).
 *   A float literal or float-valued name is allowed only as the whole
 *   expression (e.g. `//@ param alpha = 2.5`); in arithmetic it is an error,
 *   except in float mode (expr_eval_float).
 */
#ifndef CUPLAY_EXPR_H
#define CUPLAY_EXPR_H

#include <stdint.h>

#include "util.h"

typedef struct value {
	int is_float;
	int64_t i;
	double f;
} value;

typedef struct sym {
	char *name;
	value v;
	int hidden; /* device facts: resolvable, but not listed in "known:" */
} sym;

typedef struct symtab {
	sym *v;
	int n, cap;
	name_ix ix; /* the names, by hash, while it holds all n */
} symtab;

void symtab_set(symtab *t, const char *name, value v, int hidden);
const sym *symtab_get(const symtab *t, const char *name, int len);
/* Removes name; 0, or -1 when it is not there. */
int symtab_remove(symtab *t, const char *name);
void symtab_free(symtab *t);

/* Evaluates s. On error returns -1, sets *col to the 1-based column in s
 * where the problem is and *err to the message without location, e.g.
 * "unknown param 'TILE' in expression (known: N, TILE_SIZE, PAD)". */
int expr_eval(const char *s, const symtab *t, value *out, int *col, char **err);

/* The same in floating point, for a value a kernel takes as float or
 * double: literals and names of either kind, + - * / min max in double
 * precision (5/2 is 2.5); %, cdiv, << and >> are errors. The result is
 * always a float. */
int expr_eval_float(const char *s, const symtab *t, value *out, int *col, char **err);

/* The names an expression uses, for checking them before any value is
 * known: the next name in s from *pos on that is not a function's (a name
 * before a '(': cdiv, min, max), 1 with *at its offset in s, *len its length and
 * *pos past it; 0 when there is none. */
int expr_next_name(const char *s, int *pos, int *at, int *len);

/* 1 when NAME (len bytes) is a device fact: SM_COUNT, WARP_SIZE, L2_BYTES
 * (the names plan.c gives every expression). */
int expr_is_fact(const char *name, int len);

/* Formats v the way it is passed to NVRTC and shown to users. */
void value_format(value v, char *buf, int n);

#endif
