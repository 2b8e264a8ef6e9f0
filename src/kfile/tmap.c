/* tmap.c: the text of a `//@ tensormap` line:
 *
 *   NAME = BUF[D0, D1, ...] box B0, B1, ... [swizzle none|32B|64B|128B]
 *          [interleave none|16B|32B] [l2promo none|64B|128B|256B] [oob zero|nan]
 *
 * Expressions are kept as text with their columns (plan_tmap.c evaluates
 * them). */
#include "tmap.h"
#include "spec_scan.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tcur {
	const char *p0, *p, *end;
	int line, col0;
	int *errcol;
	char **why;
} tcur;

static int col(const tcur *c, const char *at)
{
	return c->col0 + (int)(at - c->p0);
}

static int terr(tcur *c, const char *at, const char *fmt, ...) PRINTF_LIKE(3, 4);

static int terr(tcur *c, const char *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sbuf b = {0};
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	free(*c->why);
	*c->why = sb_steal(&b);
	*c->errcol = col(c, at);
	return -1;
}

static void blank(tcur *c)
{
	while (c->p < c->end && scan_is_blank(*c->p))
		c->p++;
}

static int word(tcur *c, const char **w)
{
	blank(c);
	*w = c->p;
	int n = scan_ident(c->p, c->end);
	c->p += n;
	return n;
}

static const char *const keys[] = { "swizzle", "interleave", "l2promo", "oob" };

/* 1 when a key word of the options starts at q. */
static int key_at(const tcur *c, const char *q)
{
	for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
		size_t n = strlen(keys[i]);
		if ((size_t)(c->end - q) >= n && strncmp(q, keys[i], n) == 0 &&
		    (q + n == c->end || scan_is_blank(q[n])) && (q == c->p0 || !is_ident_char((unsigned char)q[-1])))
			return 1;
	}
	return 0;
}

/* A list of expressions split at top-level commas, up to `close` (']') or,
 * with close 0, up to an option's key word or the end. */
static int expr_list(tcur *c, char close, spec_expr *out, int *n, const char *what)
{
	*n = 0;
	int depth = 0;
	const char *a = c->p;
	for (const char *q = c->p;; q++) {
		int stop = q == c->end || (depth == 0 && ((close && *q == close) || (!close && key_at(c, q))));
		if (q < c->end && *q == '(')
			depth++;
		else if (q < c->end && *q == ')')
			depth -= depth > 0;
		if (!stop && !(depth == 0 && *q == ','))
			continue;
		const char *x = a, *e = q;
		while (x < e && scan_is_blank(*x))
			x++;
		while (e > x && scan_is_blank(e[-1]))
			e--;
		if (x == e)
			return terr(c, x, "expected %s", what);
		if (*n == TMAP_MAX_RANK)
			return terr(c, x, "more than %d dimensions (TMA's most)", TMAP_MAX_RANK);
		out[(*n)++] = (spec_expr){ xstrndup(x, (size_t)(e - x)), c->line, col(c, x) };
		if (stop) {
			if (close && q == c->end)
				return terr(c, q, "expected '%c' to close the dimensions", close);
			c->p = q + (close != 0);
			return 0;
		}
		a = q + 1;
	}
}

/* One option's value: a size in bytes ("128B") among `allowed`, or none. */
static int bytes_value(tcur *c, const char *key, const int *allowed, int nallowed, const char *spelled, int *out)
{
	blank(c);
	const char *a = c->p;
	while (c->p < c->end && !scan_is_blank(*c->p))
		c->p++;
	int n = (int)(c->p - a);
	if (n == 4 && strncmp(a, "none", 4) == 0) {
		*out = 0;
		return 0;
	}
	char *e = NULL, buf[16];
	snprintf(buf, sizeof buf, "%.*s", n < 15 ? n : 15, a);
	long v = strtol(buf, &e, 10);
	for (int i = 0; i < nallowed && n > 0 && e && strcmp(e, "B") == 0; i++)
		if (v == allowed[i]) {
			*out = (int)v;
			return 0;
		}
	return terr(c, a, n ? "'%.*s' is not a %s: %s" : "%.*sexpected a %s: %s", n, a, key, spelled);
}

static int option(tcur *c, spec_tmap *t)
{
	static const int sw[] = { 32, 64, 128 }, il[] = { 16, 32 }, l2[] = { 64, 128, 256 };
	const char *w;
	int n = word(c, &w);
	if (n == 7 && strncmp(w, "swizzle", 7) == 0) {
		t->swizzle_col = col(c, w);
		return bytes_value(c, "swizzle", sw, 3, "none, 32B, 64B or 128B", &t->swizzle);
	}
	if (n == 10 && strncmp(w, "interleave", 10) == 0) {
		t->interleave_col = col(c, w);
		return bytes_value(c, "interleave", il, 2, "none, 16B or 32B", &t->interleave);
	}
	if (n == 7 && strncmp(w, "l2promo", 7) == 0)
		return bytes_value(c, "l2promo", l2, 3, "none, 64B, 128B or 256B", &t->l2promo);
	if (n == 3 && strncmp(w, "oob", 3) == 0) {
		const char *v;
		int vn = word(c, &v);
		if (vn == 4 && strncmp(v, "zero", 4) == 0)
			t->oob_nan = 0;
		else if (vn == 3 && strncmp(v, "nan", 3) == 0)
			t->oob_nan = 1;
		else
			return terr(c, v, "expected 'zero' or 'nan' after 'oob' (what out-of-bounds elements read as)");
		return 0;
	}
	return terr(c, w, "unexpected '%.*s': expected swizzle, interleave, l2promo or oob", n ? n : 1, w);
}

int spec_tmap_find(const spec *s, const char *name)
{
	for (int i = 0; i < s->ntmaps; i++)
		if (strcmp(s->tmaps[i].name, name) == 0)
			return i;
	return -1;
}

void tmap_free(spec_tmap *t)
{
	free(t->name);
	free(t->buf);
	for (int i = 0; i < TMAP_MAX_RANK; i++) {
		free(t->dims[i].text);
		free(t->box[i].text);
	}
	memset(t, 0, sizeof *t);
}

int tmap_parse(const char *p, const char *end, int line, int col_of_p, spec_tmap *t, int *errcol, char **why)
{
	tcur c = { p, p, end, line, col_of_p, errcol, why };
	memset(t, 0, sizeof *t);
	t->l2promo = 128; /* what CUTLASS and the CUDA samples use: whole L2 lines */
	const char *w;
	int n = word(&c, &w);
	if (n == 0)
		return terr(&c, w, "expected a name after 'tensormap' (tensormap NAME = BUF[D0, D1] box B0, B1)");
	t->name = xstrndup(w, (size_t)n);
	t->line = line;
	t->col = col(&c, w);
	blank(&c);
	int r = -1;
	if (c.p == c.end || *c.p != '=') {
		terr(&c, c.p, "expected '=' after tensormap name '%s'", t->name);
		goto out;
	}
	c.p++;
	if ((n = word(&c, &w)) == 0) {
		terr(&c, w, "expected a buffer name after '='");
		goto out;
	}
	t->buf = xstrndup(w, (size_t)n);
	t->buf_col = col(&c, w);
	blank(&c);
	if (c.p == c.end || *c.p != '[') {
		terr(&c, c.p, "expected '[' and the dimensions of '%s', outermost first: %s[ROWS, COLS]", t->buf, t->buf);
		goto out;
	}
	c.p++;
	if (expr_list(&c, ']', t->dims, &t->rank, "a dimension") != 0)
		goto out;
	if ((n = word(&c, &w)) != 3 || strncmp(w, "box", 3) != 0) {
		terr(&c, w, "expected 'box' and the box's dimensions after the buffer's");
		goto out;
	}
	t->box_col = col(&c, w);
	if (expr_list(&c, 0, t->box, &t->nbox, "a box dimension") != 0)
		goto out;
	if (t->nbox != t->rank) {
		terr(&c, c.p0 + (t->box_col - c.col0), "the box has %d side%s, the shape of '%s' %d", t->nbox,
		     t->nbox == 1 ? "" : "s", t->buf, t->rank);
		goto out;
	}
	for (blank(&c); c.p < c.end; blank(&c))
		if (option(&c, t) != 0)
			goto out;
	r = 0;
out:
	if (r != 0)
		tmap_free(t);
	return r;
}
