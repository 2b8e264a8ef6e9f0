/* spec.c: a kernel file: its //@ header and the __global__ functions in it.
 *
 * spec_parse works in three steps:
 *   1. discover(): a copy of the C++ source with comments, literals and
 *      preprocessor lines blanked out is cut into tokens, and every
 *      `__global__` function definition becomes a spec_kernel.
 *   2. each //@ line is parsed in order, into the spec or, for
 *      `//@ kernel NAME ...`, into that kernel's overrides.
 *   3. what needs the whole file is checked last: the buffers that checks
 *      name, and a grid and a block for every kernel that can be launched.
 *
 * Expressions are not evaluated here; they are kept as text with the line
 * and column of their first character (plan.c evaluates them). */
#include "spec.h"
#include "spec_names.h"
#include "spec_scan.h"
#include "tmap.h"
#include "spec_lines.h"
#include "cxxlex.h"
#include "ref.h"
#include "util.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char *const directive_names[] = {
	"define", "param", "buffer", "global", "grid", "block", "cluster", "smem", "bytes", "flops", "check", "link", "include",
	"kernel", "streams", "arch", "sequence", "tensormap",
};
static const char *const override_names[] = {
	"grid", "block", "cluster", "smem", "bytes", "flops", "check", "skip",
};
static const char *const dtype_names[] = {
	"float", "double", "int", "unsigned", "long", "half", "bfloat16", "int8", "uint8", "int16",
	"uint16", "uint64", "fp8_e4m3", "fp8_e5m2", "float2", "float4", "double2", "int2", "int4", "uint2", "uint4", "half2",
	"bfloat162", "char4", "uchar4",
};
_Static_assert(sizeof dtype_names / sizeof dtype_names[0] == DT__COUNT, "every type has a name here");
static const char *const link_names[] = { "cudadevrt" };

/* ---- errors ---------------------------------------------------------- */

static int verrat(const spec *s, char **err, int line, int col, const char *fmt, va_list ap)
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

static int errat(const spec *s, char **err, int line, int col, const char *fmt, ...) PRINTF_LIKE(5, 6);

static int errat(const spec *s, char **err, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verrat(s, err, line, col, fmt, ap);
	va_end(ap);
	return -1;
}

/* Reports msg (which it frees) followed by the candidates for name:
 *   MSG (LABEL: a, b, c); did you mean 'b'?      or      MSG (NONE) */
static int err_choices(const spec *s, char **err, int line, int col, char *msg,
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
	errat(s, err, line, col, "%s", b.s);
	sb_free(&b);
	return -1;
}

/* Names of the kernels or buffers of s, for err_choices (caller frees the array). */
static const char **kernel_names(const spec *s)
{
	const char **v = xmalloc(((size_t)s->nkernels + 1) * sizeof *v);
	for (int i = 0; i < s->nkernels; i++)
		v[i] = s->kernels[i].name;
	return v;
}

static const char **buffer_names(const spec *s)
{
	const char **v = xmalloc(((size_t)s->nbufs + 1) * sizeof *v);
	for (int i = 0; i < s->nbufs; i++)
		v[i] = s->bufs[i].name;
	return v;
}

/* ---- memory ---------------------------------------------------------- */

static void check_free(spec_check *c)
{
	free(c->out);
	free(c->ref);
	for (int i = 0; i < SPEC_MAX_CHECK_ARGS; i++)
		free(c->args[i].text);
	memset(c, 0, sizeof *c);
}

/* Frees every slot, used or not: unused slots are zeroed. */
static void launch_free(spec_launch *l)
{
	for (int i = 0; i < SPEC_MAX_DIMS; i++) {
		free(l->grid[i].text);
		free(l->block[i].text);
		free(l->cluster[i].text);
	}
	free(l->smem.text);
	free(l->bytes.text);
	free(l->flops.text);
	for (int i = 0; i < SPEC_MAX_CHECKS; i++)
		check_free(&l->checks[i]);
	spec_launch_init(l);
}

void spec_free(spec *s)
{
	for (int i = 0; i < s->nvars; i++) {
		free(s->vars[i].name);
		free(s->vars[i].value.text);
	}
	for (int i = 0; i < s->nbufs; i++) {
		free(s->bufs[i].name);
		free(s->bufs[i].count.text);
		free(s->bufs[i].list);
	}
	for (int i = 0; i < s->nkernels; i++) {
		spec_kernel *k = &s->kernels[i];
		free(k->name);
		free(k->expr);
		free(k->base);
		for (int j = 0; j < k->ntparams; j++)
			free(k->tparams[j].name);
		free(k->tparams);
		for (int j = 0; j < k->nparams; j++) {
			free(k->params[j].type);
			free(k->params[j].name);
		}
		free(k->params);
		launch_free(&k->over);
	}
	for (int i = 0; i < s->nincludes; i++)
		free(s->includes[i]);
	for (int i = 0; i < s->nlinks; i++)
		free(s->links[i]);
	for (int i = 0; i < s->nincdirs; i++)
		free(s->incdirs[i].dir);
	free(s->incdirs);
	for (int i = 0; i < s->ncheck_at; i++) {
		free(s->check_at[i].name);
		free(s->check_at[i].value.text);
	}
	free(s->check_at);
	free(s->streams.text);
	free(s->split);
	for (int i = 0; i < s->ntmaps; i++)
		tmap_free(&s->tmaps[i]);
	free(s->tmaps);
	launch_free(&s->base);
	free(s->vars);
	free(s->bufs);
	free(s->kernels);
	free(s->includes);
	free(s->links);
	free(s->path);
	free(s->src);
	free(s->summary);
	memset(s, 0, sizeof *s);
}

int spec_text_check(const char *path, const char *text, size_t len, char **err)
{
	int line, col, byte = cxx_bad_byte(text, len, &line, &col);
	if (byte < 0)
		return 0;
	if (err) {
		free(*err);
		*err = cxx_bad_byte_msg(path, byte, line, col);
	}
	return -1;
}

/* ---- //@ lines: the cursor -------------------------------------------- */

typedef struct cur {
	spec *s;
	char **err;
	const char *bol; /* column 1 of the line */
	const char *p;   /* next character */
	const char *end; /* end of the directive: before a // comment and trailing blanks */
	int line;
} cur;

static int col_of(const cur *c, const char *p)
{
	return (int)(p - c->bol) + 1;
}

static int cerr(cur *c, const char *at, const char *fmt, ...) PRINTF_LIKE(3, 4);

static int cerr(cur *c, const char *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verrat(c->s, c->err, c->line, col_of(c, at), fmt, ap);
	va_end(ap);
	return -1;
}

static int cerr_choices(cur *c, const char *at, char *msg, const char *name, int len,
                        const char *const *cands, int n, const char *label, const char *none)
{
	return err_choices(c->s, c->err, c->line, col_of(c, at), msg, name, len, cands, n, label, none);
}

static void skip_blank(cur *c)
{
	while (c->p < c->end && scan_is_blank(*c->p))
		c->p++;
}

static int at_end(cur *c)
{
	skip_blank(c);
	return c->p == c->end;
}

/* 1 when the next non-blank character is ch (then skipped). */
static int accept(cur *c, char ch)
{
	skip_blank(c);
	if (c->p == c->end || *c->p != ch)
		return 0;
	c->p++;
	return 1;
}

/* Reads a name after blanks into *w; returns its length, 0 when there is none. */
static int read_word(cur *c, const char **w)
{
	skip_blank(c);
	*w = c->p;
	int n = 0;
	if (c->p < c->end && is_ident_start((unsigned char)*c->p))
		while (c->p + n < c->end && is_ident_char((unsigned char)c->p[n]))
			n++;
	c->p += n;
	return n;
}

/* Length of the token at p, for messages: a name or one character. */
static int token_len(const cur *c, const char *p)
{
	int n = 0;
	while (p + n < c->end && is_ident_char((unsigned char)p[n]))
		n++;
	return n ? n : 1;
}

/* Nothing may follow `what` on the line. */
static int expect_end(cur *c, const char *what)
{
	if (at_end(c))
		return 0;
	return cerr(c, c->p, "unexpected '%.*s' after %s", token_len(c, c->p), c->p, what);
}

/* Reads a number (strtod syntax, finite) at the cursor; -1 when there is none. */
static int read_number(cur *c, double *v)
{
	skip_blank(c);
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
static spec_expr make_expr(const cur *c, const char *a, const char *e)
{
	while (a < e && scan_is_blank(*a))
		a++;
	while (e > a && scan_is_blank(e[-1]))
		e--;
	return (spec_expr){ xstrndup(a, (size_t)(e - a)), c->line, col_of(c, a) };
}

/* The rest of the line as one expression, for `what`. */
static int rest_expr(cur *c, const char *what, spec_expr *e)
{
	if (at_end(c))
		return cerr(c, c->p, "expected an expression after %s", what);
	*e = make_expr(c, c->p, c->end);
	c->p = c->end;
	return 0;
}

/* Splits [c->p, stop) at commas outside parentheses into out[0..max).
 * what names the list in messages ("dimensions in 'grid'"). */
static int split_list(cur *c, const char *stop, spec_expr *out, int max, int *n, const char *what)
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
				return cerr(c, x, "expected an expression %s ','", q == stop ? "after" : "before");
			if (*n == max)
				return cerr(c, x, "too many %s (at most %d)", what, max);
			out[(*n)++] = make_expr(c, a, q);
			if (q == stop)
				break;
			a = q + 1;
		}
	}
	c->p = stop;
	return 0;
}

/* ---- //@ define, param, buffer, link ---------------------------------- */

/* A define, param or buffer name must be new. */
static int check_new_name(cur *c, const char *w, int n)
{
	const spec *s = c->s;
	for (int i = 0; i < s->nvars; i++)
		if (scan_word_is(w, n, s->vars[i].name))
			return cerr(c, w, "duplicate name '%.*s' (already a %s at line %d)", n, w,
			            s->vars[i].is_define ? "define" : "param", s->vars[i].line);
	for (int i = 0; i < s->nbufs; i++)
		if (scan_word_is(w, n, s->bufs[i].name))
			return cerr(c, w, "duplicate name '%.*s' (already a buffer at line %d)", n, w,
			            s->bufs[i].line);
	for (int i = 0; i < s->ntmaps; i++)
		if (scan_word_is(w, n, s->tmaps[i].name))
			return cerr(c, w, "duplicate name '%.*s' (already a tensormap at line %d)", n, w,
			            s->tmaps[i].line);
	return 0;
}

/* -DNAME would rewrite every NAME in the source, kernel parameters included. */
static int check_define_clash(cur *c, const char *w, int n)
{
	const spec *s = c->s;
	for (int i = 0; i < s->nkernels; i++) {
		const spec_kernel *k = &s->kernels[i];
		if (scan_word_is(w, n, k->base))
			return cerr(c, w, "define '%.*s' is also the name of a kernel (a define becomes "
			            "a -D macro and would rewrite it)", n, w);
		for (int j = 0; j < k->nparams; j++)
			if (scan_word_is(w, n, k->params[j].name))
				return cerr(c, w, "define '%.*s' is also a parameter of kernel '%s': declare it "
				            "with '//@ param' (a define becomes a -D macro and would rewrite "
				            "the parameter)", n, w, k->name);
		for (int j = 0; j < k->ntparams; j++)
			if (scan_word_is(w, n, k->tparams[j].name))
				return cerr(c, w, "define '%.*s' is also a template parameter of kernel '%s': "
				            "rename one (a define becomes a -D macro and would rewrite the "
				            "template parameter)", n, w, k->name);
	}
	return 0;
}

/* define NAME = EXPR, param NAME = EXPR */
static int dir_var(cur *c, const char *dir)
{
	spec_var v = { .is_define = strcmp(dir, "define") == 0 };
	const char *w;
	int n = read_word(c, &w);
	if (n == 0)
		return cerr(c, c->p, "expected a name after '%s'", dir);
	if (check_new_name(c, w, n) != 0 || (v.is_define && check_define_clash(c, w, n) != 0))
		return -1;
	if (!accept(c, '='))
		return cerr(c, c->p, "expected '=' after %s name '%.*s'", dir, n, w);
	if (rest_expr(c, "'='", &v.value) != 0)
		return -1;
	v.name = xstrndup(w, (size_t)n);
	v.line = c->line;
	v.col = col_of(c, w);
	PUSH(c->s->vars, c->s->nvars, v);
	return 0;
}

/* value(X): the cursor is after `value`. */
static int parse_init_value(cur *c, double *v)
{
	if (!accept(c, '('))
		return cerr(c, c->p, "expected '(' after 'value'");
	skip_blank(c);
	const char *at = c->p;
	if (read_number(c, v) != 0)
		return cerr(c, at, "expected a number inside 'value(...)'");
	if (!accept(c, ')'))
		return cerr(c, c->p, "expected ')' after 'value(%.*s'", (int)(c->p - at), at);
	return 0;
}

/* After TYPE[EXPR]: an init (random zero one iota value(X) poison) and the
 * flags output, managed and prefetch (managed only), in any order. */
/* {V, V, ...}: the values of a global, after its '{' */
static int list_values(cur *c, spec_buffer *b, const char *open, const char *name, int nlen)
{
	for (;;) {
		skip_blank(c);
		if (b->nlist > 0 && accept(c, '}'))
			return 0;
		double v;
		const char *at = c->p;
		if (read_number(c, &v) != 0)
			return cerr(c, at, at < c->end ? "expected a number in the values of '%.*s', not '%.*s'"
			                               : "expected a number and '}' in the values of '%.*s'%.*s",
			            nlen, name, at < c->end ? token_len(c, at) : 0, at);
		if (b->nlist >= (1 << 16))
			return cerr(c, open, "global '%.*s' has more than 65536 values", nlen, name);
		PUSH(b->list, b->nlist, v);
		skip_blank(c);
		if (accept(c, '}'))
			return 0;
		if (!accept(c, ','))
			return cerr(c, c->p, "expected ',' or '}' after value %d of '%.*s'", b->nlist, nlen, name);
	}
}

static int buffer_words(cur *c, spec_buffer *b, const char *name, int nlen)
{
	static const char *const words[] = {
		"random", "zero", "one", "iota", "value", "poison", "output", "managed", "prefetch", "host",
		"pinned", "scratch",
	};
	static const init_kind inits[] = {
		INIT_RANDOM, INIT_ZERO, INIT_ONE, INIT_IOTA, INIT_VALUE, INIT_POISON,
	};
	const char *what = b->global ? "global" : "buffer";
	const char *init_at = NULL;
	int init_len = 0, host = 0, pinned = 0;
	const char *pinned_at = NULL, *managed_at = NULL, *host_at = NULL;
	while (!at_end(c)) {
		skip_blank(c);
		if (b->global && *c->p == '{') {
			const char *w = c->p++;
			if (init_at)
				return cerr(c, w, "global '%.*s' has two inits, '%.*s' and a list", nlen, name,
				            init_len, init_at);
			init_at = w;
			init_len = 1;
			b->init = INIT_LIST;
			if (list_values(c, b, w, name, nlen) != 0)
				return -1;
			continue;
		}
		const char *w;
		int n = read_word(c, &w);
		if (n == 0)
			return cerr(c, w, "unexpected '%.*s' in %s '%.*s' (expected random, zero, one, iota, "
			            "value(X), poison%s, output%s)", token_len(c, w), w, what, nlen, name,
			            b->global ? ", {V, ...}" : "", b->global ? "" : ", managed or host");
		int i = 0;
		while (i < (int)ARRAY_LEN(words) && !scan_word_is(w, n, words[i]))
			i++;
		if (b->global && i >= 7 && i < (int)ARRAY_LEN(words))
			return cerr(c, w, "a global cannot be '%s': it lives in the module", words[i]);
		if (i == (int)ARRAY_LEN(words))
			return cerr_choices(c, w, xasprintf("unknown word '%.*s' in %s '%.*s'", n, w, what, nlen, name),
			                    w, n, words, b->global ? 7 : (int)ARRAY_LEN(words), "expected", "");
		if (i >= (int)ARRAY_LEN(inits)) {
			int *flag = i == 6 ? &b->output : i == 7 ? &b->managed : i == 8 ? &b->prefetch
			          : i == 9 ? &host : i == 10 ? &pinned : &b->scratch;
			if (i == 7)
				managed_at = w;
			else if (i == 9)
				host_at = w;
			else if (i == 10)
				pinned_at = w;
			if (*flag)
				return cerr(c, w, "duplicate '%s' in %s '%.*s'", words[i], what, nlen, name);
			*flag = 1;
			continue;
		}
		if (init_at)
			return cerr(c, w, "%s '%.*s' has two inits, '%.*s' and '%.*s'", what, nlen, name,
			            init_len, init_at, n, w);
		init_at = w;
		init_len = n;
		b->init = inits[i];
		if (b->init == INIT_VALUE && parse_init_value(c, &b->init_value) != 0)
			return -1;
	}
	if (b->prefetch && !b->managed)
		return cerr(c, c->p, "buffer '%.*s' has 'prefetch' without 'managed': only unified memory is "
		            "prefetched", nlen, name);
	if (pinned && !host)
		return cerr(c, pinned_at, "buffer '%.*s' has 'pinned' without 'host': only host memory is pinned "
		            "(write 'host pinned')", nlen, name);
	if (host && b->managed)
		return cerr(c, host_at > managed_at ? host_at : managed_at, "buffer '%.*s' is both 'managed' and 'host': unified memory moves by "
		            "itself, a host buffer is copied (choose one)", nlen, name);
	b->host = !host ? BUF_DEVICE : pinned ? BUF_HOST_PINNED : BUF_HOST_PAGEABLE;
	if (b->scratch && (b->output || host || b->managed))
		return cerr(c, c->p, "buffer '%.*s' is 'scratch', the steps' own: it cannot be an output, managed "
		            "or on the host", nlen, name);
	b->output |= b->scratch; /* reset before each run like an output */
	if (!init_at) /* an output nobody initialises is poisoned, so unwritten parts show */
		b->init = b->output ? INIT_POISON : INIT_RANDOM;
	return 0;
}

/* buffer NAME TYPE[EXPR] [INIT] [output] [managed [prefetch]]
 * global NAME TYPE[[EXPR]] [INIT|{V, ...}] [output] */
static int dir_buffer(cur *c, const char *dir)
{
	spec_buffer b = { .line = c->line, .global = strcmp(dir, "global") == 0 };
	const char *what = b.global ? "global" : "buffer";
	const char *w, *tw;
	int n = read_word(c, &w);
	if (n == 0)
		return cerr(c, c->p, "expected a name after '%s'", dir);
	if (check_new_name(c, w, n) != 0)
		return -1;
	b.col = col_of(c, w);
	int tn = read_word(c, &tw);
	if (tn == 0)
		return cerr(c, c->p, "expected a type after %s name '%.*s' (float, double, int, "
		            "half, int8, float4, ...: 'help buffers')", what, n, w);
	if (dtype_parse(tw, tn, &b.type) != 0)
		return cerr_choices(c, tw, xasprintf("unknown %s type '%.*s'", what, tn, tw), tw, tn,
		                    dtype_names, (int)ARRAY_LEN(dtype_names), "known", "");
	skip_blank(c);
	if (b.global && (at_end(c) || *c->p != '[')) {
		b.count = (spec_expr){ xstrdup("1"), c->line, col_of(c, tw) }; /* one element */
	} else {
		if (!accept(c, '['))
			return cerr(c, c->p, "expected '[' after %s type '%.*s'", what, tn, tw);
		const char *open = c->p - 1, *close = NULL;
		for (const char *q = c->p; q < c->end && !close; q++)
			if (*q == ']')
				close = q;
		if (!close)
			return cerr(c, c->end, "expected ']' after the size of %s '%.*s'", what, n, w);
		b.count = make_expr(c, open + 1, close);
		if (b.count.text[0] == 0) {
			free(b.count.text);
			return cerr(c, close, "expected the size of %s '%.*s' inside '[]'", what, n, w);
		}
		c->p = close + 1;
	}
	if (buffer_words(c, &b, w, n) != 0) {
		free(b.count.text);
		free(b.list);
		return -1;
	}
	b.name = xstrndup(w, (size_t)n);
	PUSH(c->s->bufs, c->s->nbufs, b);
	return 0;
}

/* link NAME... */
static int dir_link(cur *c, const char *dir)
{
	const char *w;
	int n = read_word(c, &w);
	if (n == 0)
		return cerr(c, c->p, "expected a library name after '%s' (known: cudadevrt)", dir);
	for (; n > 0; n = read_word(c, &w)) {
		int known = 0;
		for (size_t i = 0; i < ARRAY_LEN(link_names); i++)
			known |= scan_word_is(w, n, link_names[i]);
		if (!known)
			return cerr_choices(c, w, xasprintf("unknown link library '%.*s'", n, w), w, n,
			                    link_names, (int)ARRAY_LEN(link_names), "known", "");
		int dup = 0;
		for (int i = 0; i < c->s->nlinks; i++)
			dup |= scan_word_is(w, n, c->s->links[i]);
		if (!dup)
			PUSH(c->s->links, c->s->nlinks, xstrndup(w, (size_t)n));
	}
	return expect_end(c, "'link'");
}

/* ---- //@ grid, block, smem, bytes, flops, check ------------------------ */

/* Where a launch line goes: the file's lines (k == NULL) or a kernel's overrides. */
typedef struct scope {
	spec_launch *l;
	const spec_kernel *k;
} scope;

static int duplicate(cur *c, const char *at, const char *dir, const scope *sc, int first)
{
	if (sc->k)
		return cerr(c, at, "duplicate '%s' override for kernel '%s' (first at line %d)",
		            dir, sc->k->name, first);
	return cerr(c, at, "duplicate '%s' line (first at line %d)", dir, first);
}

/* The arguments of REF(...): the cursor is at the '('. */
static int check_args(cur *c, spec_check *ch)
{
	const char *close = NULL;
	int depth = 0;
	for (const char *q = c->p; q < c->end && !close; q++) {
		if (*q == '(')
			depth++;
		else if (*q == ')' && --depth == 0)
			close = q;
	}
	if (!close)
		return cerr(c, c->end, "expected ')' after the arguments of '%s'", ch->ref);
	c->p++;
	skip_blank(c);
	if (c->p == close) {
		c->p = close + 1;
		return 0;
	}
	char *what = xasprintf("arguments to '%s'", ch->ref);
	int r = split_list(c, close, ch->args, SPEC_MAX_CHECK_ARGS, &ch->nargs, what);
	free(what);
	c->p = close + 1;
	return r;
}

/* Resolves ch->ref: a reference when called with arguments, else a kernel. */
/* A line's fault found outside spec.c (spec_lines.c), at its column. */
static int line_err(cur *c, int r, int col, char *why)
{
	if (r != 0)
		r = cerr(c, c->bol + col - 1, "%s", why ? why : "?");
	free(why);
	return r;
}

static int check_target(cur *c, spec_check *ch, const char *at, int call)
{
	int len = (int)strlen(ch->ref);
	if (call) {
		const ref_fn *f = ref_find(ch->ref);
		if (!f) {
			int n = 0;
			const ref_fn *t = ref_table(&n);
			const char **names = xmalloc(((size_t)n + 1) * sizeof *names);
			for (int i = 0; i < n; i++)
				names[i] = t[i].name;
			int r = cerr_choices(c, at, xasprintf("unknown reference '%s'", ch->ref), ch->ref, len,
			                     names, n, "known", "no references");
			free(names);
			return r;
		}
		if (f->opts) {
			int col = 0;
			char *why = NULL;
			int r = spec_check_words(ch, f, col_of(c, at), &col, &why);
			return line_err(c, r, col, why);
		}
		if (ch->nargs != f->nargs)
			return cerr(c, at, "'%s' takes %d argument%s, not %d: %s", f->name, f->nargs,
			            f->nargs == 1 ? "" : "s", ch->nargs, f->synopsis);
		return 0;
	}
	if (spec_kernel_find(c->s, ch->ref) >= 0) {
		ch->is_kernel = 1;
		return 0;
	}
	const ref_fn *f = ref_find(ch->ref);
	if (f)
		return cerr(c, at, "reference '%s' needs its arguments: %s", f->name, f->synopsis);
	const char **names = kernel_names(c->s);
	int r = cerr_choices(c, at, xasprintf("unknown kernel '%s' in check", ch->ref), ch->ref, len,
	                     names, c->s->nkernels, "kernels", "no __global__ functions in the file");
	free(names);
	return r;
}

/* OUT = REF(ARG, ...) [tol X], OUT = KERNEL [tol X]: the cursor is after OUT. */
static int check_body(cur *c, spec_check *ch, const char *out, int outlen)
{
	if (!accept(c, '='))
		return cerr(c, c->p, "expected '=' after check output '%.*s'", outlen, out);
	const char *r;
	int rn = read_word(c, &r);
	if (rn == 0)
		return cerr(c, c->p, "expected a reference or a kernel name after '='");
	ch->ref = xstrndup(r, (size_t)rn);
	skip_blank(c);
	int call = c->p < c->end && *c->p == '(';
	if ((call && check_args(c, ch) != 0) || check_target(c, ch, r, call) != 0)
		return -1;
	const char *tw;
	int tn = read_word(c, &tw);
	if (tn > 0 && !scan_word_is(tw, tn, "tol"))
		return cerr(c, tw, "unexpected '%.*s' after check (expected 'tol X' or the end of the line)",
		            tn, tw);
	if (tn > 0) {
		skip_blank(c);
		const char *at = c->p;
		if (read_number(c, &ch->tol) != 0 || ch->tol <= 0)
			return cerr(c, at, "expected a positive number after 'tol'");
	}
	return expect_end(c, "check");
}

/* check none | check OUT = ... */
static int dir_check(cur *c, const char *at, const scope *sc)
{
	spec_launch *l = sc->l;
	const char *w;
	int n = read_word(c, &w);
	if (n == 0)
		return cerr(c, c->p, "expected an output buffer or 'none' after 'check'");
	if (scan_word_is(w, n, "none") && at_end(c)) {
		if (l->nchecks > 0)
			return cerr(c, w, "'check none' conflicts with the check at line %d", l->checks[0].line);
		l->nchecks = 0;
		l->checks[0].none = 1;
		l->checks[0].line = c->line;
		l->checks[0].col = col_of(c, w);
		return 0;
	}
	skip_blank(c);
	if (scan_word_is(w, n, "at") && *c->p != '=') {
		/* check at N=512, M=3: the params of the check pass */
		if (sc->k)
			return cerr(c, w, "'check at' applies to the whole file, not to kernel '%s'", sc->k->name);
		if (c->s->ncheck_at > 0)
			return cerr(c, w, "duplicate 'check at' line (first at line %d)", c->s->check_at[0].line);
		spec_expr items[16];
		int ni = 0;
		if (at_end(c))
			return cerr(c, c->p, "expected NAME=VALUE after 'check at'");
		if (split_list(c, c->end, items, 16, &ni, "values in 'check at'") != 0) {
			for (int i = 0; i < ni; i++) /* the values split before the error */
				free(items[i].text);
			return -1;
		}
		int rc = 0;
		for (int i = 0; i < ni; i++) {
			const char *t = items[i].text, *q = t;
			while (is_ident_char((unsigned char)*q))
				q++;
			const char *eq = q;
			while (scan_is_blank(*eq))
				eq++;
			if (rc == 0 && (q == t || !is_ident_start((unsigned char)*t) || *eq != '=' || !eq[1]))
				rc = cerr(c, c->bol + items[i].col - 1, "expected NAME=VALUE in 'check at', got '%s'", t);
			if (rc == 0) {
				const char *v = eq + 1;
				while (scan_is_blank(*v))
					v++;
				spec_var cv = { .name = xstrndup(t, (size_t)(q - t)), .line = c->line, .col = items[i].col,
				                .value = { xstrdup(v), c->line, items[i].col + (int)(v - t) } };
				PUSH(c->s->check_at, c->s->ncheck_at, cv);
			}
			free(items[i].text);
		}
		return rc;
	}
	if (l->nchecks == 0)
		return cerr(c, at, "check conflicts with 'check none' at line %d", l->checks[0].line);
	if (l->nchecks == SPEC_MAX_CHECKS)
		return cerr(c, at, "too many checks (at most %d)", SPEC_MAX_CHECKS);
	spec_check ch = { .line = c->line, .col = col_of(c, w) };
	if (check_body(c, &ch, w, n) != 0) {
		check_free(&ch);
		return -1;
	}
	ch.out = xstrndup(w, (size_t)n);
	l->checks[l->nchecks < 0 ? 0 : l->nchecks] = ch;
	l->nchecks = l->nchecks < 0 ? 1 : l->nchecks + 1;
	return 0;
}

/* grid/block EXPR[, EXPR[, EXPR]], smem/bytes/flops EXPR, check ...
 * Returns 1 when dir is none of these. */
static int launch_line(cur *c, const char *dir, const char *at, const scope *sc)
{
	spec_launch *l = sc->l;
	char *what = xasprintf("'%s'", dir);
	int r;
	if (strcmp(dir, "grid") == 0 || strcmp(dir, "block") == 0 || strcmp(dir, "cluster") == 0) {
		int *n = dir[0] == 'g' ? &l->ngrid : dir[0] == 'b' ? &l->nblock : &l->ncluster;
		spec_expr *dims = dir[0] == 'g' ? l->grid : dir[0] == 'b' ? l->block : l->cluster;
		char *list = xasprintf("dimensions in '%s'", dir);
		r = *n > 0 ? duplicate(c, at, dir, sc, dims[0].line)
		  : at_end(c) ? cerr(c, c->p, "expected an expression after %s", what)
		  : split_list(c, c->end, dims, SPEC_MAX_DIMS, n, list);
		free(list);
	} else if (strcmp(dir, "smem") == 0 || strcmp(dir, "bytes") == 0 || strcmp(dir, "flops") == 0) {
		spec_expr *e = dir[0] == 's' ? &l->smem : dir[0] == 'b' ? &l->bytes : &l->flops;
		r = e->text ? duplicate(c, at, dir, sc, e->line) : rest_expr(c, what, e);
	} else if (strcmp(dir, "check") == 0) {
		r = dir_check(c, at, sc);
	} else {
		r = 1;
	}
	free(what);
	return r;
}

/* ---- template instantiations ------------------------------------------ */

/* args split at commas outside brackets (caller frees each and the array). */
static char **split_args(const char *args, int *n)
{
	char **v = NULL;
	*n = 0;
	int depth = 0;
	const char *a = args;
	for (const char *p = args;; p++) {
		if (*p == '<' || *p == '(' || *p == '[')
			depth++;
		else if ((*p == '>' || *p == ')' || *p == ']') && depth > 0)
			depth--;
		else if (*p == 0 || (*p == ',' && depth == 0)) {
			if (p > a || *p == ',')
				PUSH(v, *n, xstrndup(a, (size_t)(p - a)));
			if (*p == 0)
				break;
			a = p + 1;
		}
	}
	return v;
}

/* A parameter of template tk as it is in an instantiation: type parameters
 * replaced by the arguments given for them, then classified again
 * ("const T*" with T = float binds to a float buffer). */
static void substitute_param(kparam *p, const spec_kernel *tk, char **args, int nargs)
{
	toks t = {0};
	scan_tokenize(p->type, &t);
	sbuf b = {0};
	int changed = 0;
	for (int i = 0; i < t.n; i++) {
		const char *with = NULL;
		for (int j = 0; j < tk->ntparams && j < nargs && !with; j++)
			if (tk->tparams[j].is_type && scan_tok_is(&t.v[i], tk->tparams[j].name))
				with = args[j];
		if (i > 0)
			sb_putc(&b, ' ');
		if (with) {
			sb_puts(&b, with);
			changed = 1;
		} else {
			sb_add(&b, t.v[i].p, (size_t)t.v[i].len);
		}
	}
	free(t.v);
	if (!changed) {
		sb_free(&b);
		return;
	}
	toks u = {0};
	scan_tokenize(b.s, &u);
	char *type = scan_type_text(&u, 0, u.n, 0);
	p->elem_known = 0;
	scan_classify(p, &u, 0, u.n, 0);
	free(u.v);
	sb_free(&b);
	free(p->type);
	p->type = type;
}

/* The instantiation TEMPLATE<args> of template kernel tk, named at
 * line:col; made once. Returns its index. */
static int instantiate(spec *s, int tk, const char *args, int line, int col)
{
	char *name = xasprintf("%s<%s>", s->kernels[tk].name, args);
	for (int i = 0; i < s->nkernels; i++)
		if (strcmp(s->kernels[i].name, name) == 0) {
			free(name);
			return i;
		}
	const spec_kernel *t = &s->kernels[tk];
	int nargs = 0;
	char **argv = split_args(args, &nargs);
	spec_kernel k = {0};
	k.name = name;
	k.expr = xstrdup(name);
	k.base = xstrdup(t->base);
	k.line = t->line;
	k.col = t->col;
	k.tmpl = tk;
	k.decl_line = line;
	k.decl_col = col;
	spec_launch_init(&k.over);
	k.nparams = t->nparams;
	k.params = xcalloc((size_t)t->nparams + 1, sizeof *k.params);
	for (int i = 0; i < t->nparams; i++) {
		k.params[i] = t->params[i];
		k.params[i].type = xstrdup(t->params[i].type);
		k.params[i].name = xstrdup(t->params[i].name);
		substitute_param(&k.params[i], t, argv, nargs);
	}
	for (int i = 0; i < nargs; i++)
		free(argv[i]);
	free(argv);
	PUSH(s->kernels, s->nkernels, k);
	return s->nkernels - 1;
}

/* Reads a kernel name at the cursor: NAME, A::B::NAME, NAME<ARGS> (brackets
 * balanced). Returns its length, 0 when there is none. */
static int read_kernel_name(cur *c, const char **w)
{
	int n = read_word(c, w);
	if (n == 0)
		return 0;
	const char *p = *w + n;
	for (;;) {
		if (p + 2 < c->end && p[0] == ':' && p[1] == ':' && is_ident_start((unsigned char)p[2])) {
			p += 2;
			while (p < c->end && is_ident_char((unsigned char)*p))
				p++;
			continue;
		}
		const char *q = p;
		while (q < c->end && scan_is_blank(*q))
			q++;
		if (q < c->end && *q == '<') {
			int depth = 0;
			const char *r = q;
			for (; r < c->end; r++) {
				if (*r == '<' || *r == '(')
					depth++;
				else if ((*r == '>' || *r == ')') && --depth == 0)
					break;
			}
			if (r < c->end) {
				p = r + 1;
				continue;
			}
		}
		break;
	}
	c->p = p;
	return (int)(p - *w);
}

static const char **template_names(const spec *s, int *n)
{
	const char **v = xmalloc(((size_t)s->nkernels + 1) * sizeof *v);
	*n = 0;
	for (int i = 0; i < s->nkernels; i++)
		if (s->kernels[i].is_template)
			v[(*n)++] = s->kernels[i].name;
	return v;
}

/* The kernel that `//@ kernel` names at w (n characters): an existing one,
 * or an instantiation of a template made now. Index, or -1 with the error. */
static int kernel_named(cur *c, const char *w, int n)
{
	char *name = spec_normalize_name(w, (size_t)n);
	char *lt = strchr(name, '<');
	int ki;
	if (!lt) {
		ki = spec_kernel_find(c->s, name);
		free(name);
		if (ki >= 0)
			return ki;
		const char **names = kernel_names(c->s);
		cerr_choices(c, w, xasprintf("unknown kernel '%.*s'", n, w), w, n, names, c->s->nkernels,
		             "kernels", "no __global__ functions in the file");
		free(names);
		return -1;
	}
	*lt = 0;
	const char *args = lt + 1;
	size_t al = strlen(args);
	ki = spec_kernel_find(c->s, name);
	if (ki < 0 || !c->s->kernels[ki].is_template) {
		int nt = 0;
		const char **names = template_names(c->s, &nt);
		if (ki >= 0)
			cerr(c, w, "kernel '%s' is not a template: '<...>' gives template arguments", name);
		else
			cerr_choices(c, w, xasprintf("unknown kernel template '%s'", name), name, (int)strlen(name),
			             names, nt, "templates", "no template __global__ functions in the file");
		free(names);
		free(name);
		return -1;
	}
	if (al < 1 || args[al - 1] != '>') {
		free(name);
		return cerr(c, w, "expected '>' after the template arguments of '%.*s'", n, w);
	}
	char *a = xstrndup(args, al - 1);
	int k = instantiate(c->s, ki, a, c->line, col_of(c, w));
	free(a);
	free(name);
	return k;
}

/* kernel NAME skip | kernel NAME grid|block|smem|bytes|flops|check ...
 * | kernel TEMPLATE<ARGS> [the same] */
static int dir_kernel(cur *c, const char *dir)
{
	const char *w, *d;
	int n = read_kernel_name(c, &w);
	if (n == 0)
		return cerr(c, c->p, "expected a kernel name after '%s'", dir);
	int ki = kernel_named(c, w, n);
	if (ki < 0)
		return -1;
	spec_kernel *k = &c->s->kernels[ki];
	if (k->tmpl >= 0 && at_end(c))
		return 0; /* an instantiation to run, nothing else */
	int dn = read_word(c, &d);
	if (dn == 0)
		return cerr(c, c->p, "expected an override after kernel name '%s' (grid, block, cluster, smem, "
		            "bytes, flops, check or skip)", k->name);
	if (scan_word_is(d, dn, "skip")) {
		k->skip = 1;
		return expect_end(c, "'skip'");
	}
	char *sub = xstrndup(d, (size_t)dn);
	scope sc = { &k->over, k };
	int r = launch_line(c, sub, d, &sc);
	free(sub);
	if (r <= 0)
		return r;
	return cerr_choices(c, d, xasprintf("unknown override '%.*s' for kernel '%s'", dn, d, k->name),
	                    d, dn, override_names, (int)ARRAY_LEN(override_names), "known", "");
}

/* sequence NAME = KERNEL, KERNEL, ...: a variant of several launches */
static int dir_sequence(cur *c, const char *dir)
{
	const char *w;
	int n = read_word(c, &w);
	if (n == 0)
		return cerr(c, c->p, "expected a name after '%s' (//@ sequence NAME = KERNEL, KERNEL, ...)", dir);
	if (check_new_name(c, w, n) != 0)
		return -1;
	char *name = xstrndup(w, (size_t)n);
	if (spec_kernel_find(c->s, name) >= 0) {
		free(name);
		return cerr(c, w, "'%.*s' is already a kernel or a sequence of this file", n, w);
	}
	spec_kernel k = { .name = name, .base = xstrdup(name), .line = c->line, .col = col_of(c, w), .tmpl = -1 };
	spec_launch_init(&k.over);
	int r = 0;
	if (!accept(c, '='))
		r = cerr(c, c->p, "expected '=' after sequence name '%s'", name);
	while (r == 0) {
		const char *sw;
		int sn = read_kernel_name(c, &sw);
		if (sn == 0) {
			r = cerr(c, c->p, "expected a kernel name in sequence '%s'", name);
			break;
		}
		int ki;
		if (memchr(sw, '<', (size_t)sn)) {
			ki = kernel_named(c, sw, sn); /* an instantiation: made now, or its error said */
		} else {
			char *sname = spec_normalize_name(sw, (size_t)sn);
			ki = spec_kernel_find(c->s, sname);
			free(sname);
			if (ki < 0) {
				const char **names = kernel_names(c->s);
				cerr_choices(c, sw, xasprintf("unknown step '%.*s' in sequence '%s'", sn, sw, name), sw, sn,
				             names, c->s->nkernels, "kernels", "no __global__ functions in the file");
				free(names);
			}
		}
		if (ki < 0) {
			r = -1;
			break;
		}
		const spec_kernel *sk = &c->s->kernels[ki];
		if (sk->nsteps > 0 || sk->is_template)
			r = cerr(c, sw, "step '%.*s' of sequence '%s' is a %s: a step is a kernel", sn, sw, name,
			         sk->nsteps > 0 ? "sequence" : "template (name an instantiation)");
		else if (k.nsteps == SPEC_MAX_STEPS)
			r = cerr(c, sw, "sequence '%s' has more than %d steps", name, SPEC_MAX_STEPS);
		else
			k.steps[k.nsteps++] = ki;
		if (r == 0 && !accept(c, ','))
			break;
	}
	if (r == 0)
		r = expect_end(c, "the sequence's steps");
	if (r != 0) {
		free(k.name);
		free(k.base);
		return -1;
	}
	for (int i = 0; i < k.nsteps; i++)
		c->s->kernels[k.steps[i]].is_step = 1;
	PUSH(c->s->kernels, c->s->nkernels, k);
	return 0;
}

/* include DIR... (blank-separated; quotes for a name with blanks) */
static int dir_include(cur *c, const char *dir)
{
	skip_blank(c);
	if (c->p == c->end)
		return cerr(c, c->p, "expected a directory after '%s'", dir);
	while (!at_end(c)) {
		const char *a = c->p, *e;
		if (*a == '"') {
			e = memchr(a + 1, '"', (size_t)(c->end - a - 1));
			if (!e)
				return cerr(c, a, "expected '\"' to close the directory name");
			spec_incdir d = { xstrndup(a + 1, (size_t)(e - a - 1)), c->line, col_of(c, a + 1) };
			PUSH(c->s->incdirs, c->s->nincdirs, d);
			c->p = e + 1;
			continue;
		}
		e = a;
		while (e < c->end && !scan_is_blank(*e))
			e++;
		spec_incdir d = { xstrndup(a, (size_t)(e - a)), c->line, col_of(c, a) };
		PUSH(c->s->incdirs, c->s->nincdirs, d);
		c->p = e;
	}
	return 0;
}

/* streams EXPR split NAME: a run in EXPR chunks, one per stream; param NAME
 * is what is cut, the host buffers are sliced with it. */
static int dir_streams(cur *c, const char *at, const char *dir)
{
	spec *s = c->s;
	if (s->streams.text)
		return cerr(c, at, "duplicate '%s' line (first at line %d)", dir, s->streams.line);
	skip_blank(c);
	const char *split = NULL;
	for (const char *q = c->p; q + 5 <= c->end; q++)
		if (strncmp(q, "split", 5) == 0 && (q == c->p || !is_ident_char((unsigned char)q[-1])) &&
		    (q + 5 == c->end || !is_ident_char((unsigned char)q[5])))
			split = q;
	if (at_end(c) || split == c->p)
		return cerr(c, c->p, "expected the number of streams after 'streams' (streams EXPR split NAME)");
	if (!split)
		return cerr(c, c->end, "expected 'split NAME' after the number of streams: the param that is "
		            "cut in chunks");
	spec_expr e = make_expr(c, c->p, split);
	c->p = split + 5;
	const char *w;
	int n = read_word(c, &w);
	if (n == 0) {
		free(e.text);
		return cerr(c, c->p, "expected a param name after 'split' (the size that is cut in chunks)");
	}
	if (expect_end(c, "the split param") != 0) {
		free(e.text);
		return -1;
	}
	s->streams = e;
	s->split = xstrndup(w, (size_t)n);
	s->split_line = c->line;
	s->split_col = col_of(c, w);
	return 0;
}

/* One //@ line: bol is its first character, p just after "//@". */
static int header_line(spec *s, int line, const char *bol, const char *p, const char *eol, char **err)
{
	cur c = { s, err, bol, p, eol, line };
	for (const char *q = p; q + 1 < eol; q++)
		if (q[0] == '/' && q[1] == '/') {
			c.end = q;
			break;
		}
	while (c.end > c.p && scan_is_blank(c.end[-1]))
		c.end--;
	const char *w;
	int n = read_word(&c, &w);
	if (n == 0 && at_end(&c))
		return 0; /* a bare //@ */
	const char *const *names = directive_names;
	int nnames = (int)ARRAY_LEN(directive_names);
	if (n == 0)
		return cerr_choices(&c, c.p, xstrdup("expected a directive after '//@'"), "", 0, names,
		                    nnames, "known", "");
	char *dir = xstrndup(w, (size_t)n);
	scope base = { &s->base, NULL };
	int r;
	if (strcmp(dir, "define") == 0 || strcmp(dir, "param") == 0)
		r = dir_var(&c, dir);
	else if (strcmp(dir, "buffer") == 0 || strcmp(dir, "global") == 0)
		r = dir_buffer(&c, dir);
	else if (strcmp(dir, "link") == 0)
		r = dir_link(&c, dir);
	else if (strcmp(dir, "include") == 0)
		r = dir_include(&c, dir);
	else if (strcmp(dir, "kernel") == 0)
		r = dir_kernel(&c, dir);
	else if (strcmp(dir, "streams") == 0)
		r = dir_streams(&c, w, dir);
	else if (strcmp(dir, "sequence") == 0)
		r = dir_sequence(&c, dir);
	else if (strcmp(dir, "arch") == 0 || strcmp(dir, "tensormap") == 0) {
		int col = 0;
		char *why = NULL;
		skip_blank(&c);
		r = (dir[0] == 'a' ? spec_arch_line : spec_tmap_line)(s, c.p, c.end, line, col_of(&c, c.p), &col, &why);
		r = line_err(&c, r, col, why);
		c.p = c.end;
	}
	else if ((r = launch_line(&c, dir, w, &base)) > 0)
		r = cerr_choices(&c, w, xasprintf("unknown directive '%s'", dir), w, n, names, nnames,
		                 "known", "");
	free(dir);
	return r;
}

static int parse_header(spec *s, char **err)
{
	int line = 0;
	for (const char *bol = s->src; *bol;) {
		const char *eol = strchr(bol, '\n'), *p = bol;
		if (!eol)
			eol = bol + strlen(bol);
		line++;
		while (p < eol && scan_is_blank(*p))
			p++;
		if (eol - p >= 3 && strncmp(p, "//@", 3) == 0 && header_line(s, line, bol, p + 3, eol, err) != 0)
			return -1;
		bol = *eol ? eol + 1 : eol;
	}
	return 0;
}

/* ---- checks that need the whole file ----------------------------------- */

static int is_name(const char *s)
{
	if (!is_ident_start((unsigned char)*s))
		return 0;
	while (is_ident_char((unsigned char)*s))
		s++;
	return *s == 0;
}

static int unknown_buffer(const spec *s, char **err, int line, int col, char *msg, const char *name)
{
	const char **names = buffer_names(s);
	int r = err_choices(s, err, line, col, msg, name, (int)strlen(name), names, s->nbufs,
	                    "buffers", "no buffers declared");
	free(names);
	return r;
}

/* The buffers a check names exist; a reference gets buffers where it takes
 * buffers and expressions where it takes numbers. k: the kernel overridden. */
static int validate_checks(const spec *s, const spec_launch *l, const spec_kernel *k, char **err)
{
	for (int i = 0; i < l->nchecks; i++) {
		const spec_check *ch = &l->checks[i];
		int ob = spec_buffer_find(s, ch->out);
		if (ob < 0)
			return unknown_buffer(s, err, ch->line, ch->col,
			                      xasprintf("unknown buffer '%s' in check", ch->out), ch->out);
		if (s->bufs[ob].scratch)
			return errat(s, err, ch->line, ch->col, "check names '%s', an intermediate ('scratch') of the "
			             "steps: checks compare what the last step leaves in the outputs", ch->out);
		if (!s->bufs[ob].output)
			return errat(s, err, ch->line, ch->col, "check of '%s', which is not marked output: add "
			             "'output' to its buffer line (line %d); only an output is reset before each run "
			             "and copied back, so this check could pass on what an earlier run wrote",
			             ch->out, s->bufs[ob].line);
		if (ch->is_kernel) {
			if (k && strcmp(ch->ref, k->name) == 0)
				return errat(s, err, ch->line, ch->col, "kernel '%s' cannot be checked against itself",
				             k->name);
			continue;
		}
		const ref_fn *f = ref_find(ch->ref);
		for (int j = 0; f && j < ch->nargs; j++) {
			const spec_expr *a = &ch->args[j];
			int is_buf = spec_buffer_find(s, a->text) >= 0;
			if (f->argkinds[j] == 'b' && !is_buf && !is_name(a->text))
				return errat(s, err, a->line, a->col, "expected a buffer for argument %d of %s, "
				             "found '%s'", j + 1, f->synopsis, a->text);
			if (f->argkinds[j] == 'b' && !is_buf)
				return unknown_buffer(s, err, a->line, a->col, xasprintf("unknown buffer '%s' for "
				                      "argument %d of %s", a->text, j + 1, f->synopsis), a->text);
			if (f->argkinds[j] != 'b' && is_buf)
				return errat(s, err, a->line, a->col, "argument %d of %s is a number, but '%s' is "
				             "a buffer", j + 1, f->synopsis, a->text);
		}
	}
	return 0;
}

/* Every name in an expression is declared: a misspelt define or param is
 * an error here, at `use`, not after a compile. */
static int validate_names(const spec *s, char **err)
{
	spec_unknown u;
	if (!spec_unknown_name(s, &u))
		return 0;
	const char **names = xmalloc(((size_t)s->nvars + 1) * sizeof *names);
	for (int i = 0; i < s->nvars; i++)
		names[i] = s->vars[i].name;
	int r = err_choices(s, err, u.e->line, u.e->col + u.at,
	                    xasprintf("unknown name '%.*s' in %s", u.len, u.e->text + u.at, u.what),
	                    u.e->text + u.at, u.len, names, s->nvars, "defines and params",
	                    "no defines or params declared");
	free(names);
	return r;
}

static int validate(const spec *s, char **err)
{
	for (int i = 0; i < s->ncheck_at; i++) {
		const spec_var *cv = &s->check_at[i];
		const spec_var *v = spec_var_find(s, cv->name);
		if (!v)
			return errat(s, err, cv->line, cv->col, "unknown param '%s' in 'check at'", cv->name);
		if (v->is_define)
			return errat(s, err, cv->line, cv->col, "'%s' is a define: 'check at' takes params only "
			             "(a define would need another compile)", cv->name);
		for (int j = 0; j < i; j++)
			if (strcmp(s->check_at[j].name, cv->name) == 0)
				return errat(s, err, cv->line, cv->col, "'%s' given twice in 'check at'", cv->name);
	}
	if (s->split) {
		const spec_var *v = spec_var_find(s, s->split);
		int nhost = 0;
		for (int i = 0; i < s->nbufs; i++)
			nhost += s->bufs[i].host != BUF_DEVICE;
		if (!v)
			return errat(s, err, s->split_line, s->split_col, "unknown param '%s' after 'split': declare "
			             "'//@ param %s = VALUE', the size that is cut in chunks", s->split, s->split);
		if (v->is_define)
			return errat(s, err, s->split_line, s->split_col, "'%s' is a define: 'split' cuts a param "
			             "(each chunk's kernel is given its own)", s->split);
		if (nhost == 0)
			return errat(s, err, s->streams.line, s->streams.col, "'streams' slices the host buffers, and "
			             "there is none: add 'host' to the buffers a run copies in and out");
	}
	if (validate_checks(s, &s->base, NULL, err) != 0)
		return -1;
	for (int i = 0; i < s->nkernels; i++)
		if (validate_checks(s, &s->kernels[i].over, &s->kernels[i], err) != 0)
			return -1;
	if (validate_names(s, err) != 0)
		return -1;
	for (int i = 0; i < s->nkernels; i++) {
		const spec_kernel *k = &s->kernels[i];
		spec_launch eff;
		if (k->skip || k->is_template || k->nsteps > 0)
			continue;
		spec_effective(s, i, &eff);
		const char *missing = eff.ngrid == 0 ? "grid" : eff.nblock == 0 ? "block" : NULL;
		if (missing)
			return errat(s, err, k->line, k->col, "kernel '%s' has no %s: add '//@ %s EXPR' or "
			             "'//@ kernel %s %s EXPR'", k->name, missing, missing, k->name, missing);
	}
	return 0;
}

/* The explicit instantiations of the source are kernels (the header can
 * override or skip them like any other). */
static void explicit_instances(spec *s, const insts *in)
{
	for (int i = 0; i < in->n; i++) {
		int tk = -1;
		for (int k = 0; k < s->nkernels && tk < 0; k++)
			if (s->kernels[k].is_template && strcmp(s->kernels[k].name, in->v[i].tmpl) == 0)
				tk = k;
		if (tk < 0) /* written qualified differently: by its last part */
			tk = spec_template_find(s, in->v[i].tmpl) >= 0 ? spec_template_find(s, in->v[i].tmpl) : -1;
		if (tk < 0) {
			int k = spec_kernel_find(s, in->v[i].tmpl);
			tk = k >= 0 && s->kernels[k].is_template ? k : -1;
		}
		if (tk >= 0)
			instantiate(s, tk, in->v[i].args, in->v[i].line, in->v[i].col);
	}
}

int spec_parse(const char *path, const char *src, spec *out, char **err)
{
	memset(out, 0, sizeof *out);
	out->path = xstrdup(path);
	out->src = xstrdup(src);
	if (spec_text_check(path, src, strlen(src), err) != 0) {
		spec_free(out);
		return -1;
	}
	out->summary = spec_find_summary(src);
	spec_launch_init(&out->base);
	insts in = {0};
	spec_discover(out, &in);
	explicit_instances(out, &in);
	int rc = parse_header(out, err);
	for (int i = 0; i < in.n; i++) {
		free(in.v[i].tmpl);
		free(in.v[i].args);
	}
	free(in.v);
	if (rc != 0 || validate(out, err) != 0) {
		spec_free(out);
		return -1;
	}
	return 0;
}
