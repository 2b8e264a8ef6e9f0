/* spec.c: a kernel file: its //@ header and the __global__ functions in it.
 *
 * spec_parse works in three steps:
 *   1. discover(): a copy of the C++ source with comments, literals and
 *      preprocessor lines blanked out is cut into tokens, and every
 *      `__global__` function definition becomes a spec_kernel.
 *   2. each //@ line is parsed in order, into the spec or, for
 *      `//@ kernel NAME ...`, into that kernel's overrides; a line in error
 *      is said and the next read, as a compiler goes on after an error.
 *   3. what needs the whole file is checked last (spec_valid.c): the
 *      buffers that checks name, the names expressions use, the kernels'
 *      parameters against the buffers and params, and a grid and a block
 *      for every kernel that can be launched.
 *
 * Expressions are not evaluated here; they are kept as text with the line
 * and column of their first character (plan.c evaluates them). */
#include "spec.h"
#include "spec_cursor.h"
#include "spec_err.h"
#include "spec_tmpl.h"
#include "spec_valid.h"
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
/* ---- memory ---------------------------------------------------------- */

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


/* ---- //@ define, param, buffer, link ---------------------------------- */

/* A define, param or buffer name must be new. */
static int check_new_name(cur *c, const char *w, int n)
{
	const spec *s = c->s;
	int b, k = spec_name_find(s, w, (size_t)n, &b);
	if (k >= 0 && !b)
		return cur_err(c, w, "duplicate name '%.*s' (already a %s at line %d)", n, w,
		               s->vars[k].is_define ? "define" : "param", s->vars[k].line);
	if (k >= 0)
		return cur_err(c, w, "duplicate name '%.*s' (already a buffer at line %d)", n, w, s->bufs[k].line);
	for (int i = 0; i < s->ntmaps; i++)
		if (scan_word_is(w, n, s->tmaps[i].name))
			return cur_err(c, w, "duplicate name '%.*s' (already a tensormap at line %d)", n, w,
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
			return cur_err(c, w, "define '%.*s' is also the name of a kernel (a define becomes "
			            "a -D macro and would rewrite it)", n, w);
		for (int j = 0; j < k->nparams; j++)
			if (scan_word_is(w, n, k->params[j].name))
				return cur_err(c, w, "define '%.*s' is also a parameter of kernel '%s': declare it "
				            "with '//@ param' (a define becomes a -D macro and would rewrite "
				            "the parameter)", n, w, k->name);
		for (int j = 0; j < k->ntparams; j++)
			if (scan_word_is(w, n, k->tparams[j].name))
				return cur_err(c, w, "define '%.*s' is also a template parameter of kernel '%s': "
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
	int n = cur_word(c, &w);
	if (n == 0)
		return cur_err(c, c->p, "expected a name after '%s'", dir);
	if (check_new_name(c, w, n) != 0 || (v.is_define && check_define_clash(c, w, n) != 0))
		return -1;
	if (!cur_accept(c, '='))
		return cur_err(c, c->p, "expected '=' after %s name '%.*s'", dir, n, w);
	if (cur_rest_expr(c, "'='", &v.value) != 0)
		return -1;
	v.name = xstrndup(w, (size_t)n);
	v.line = c->line;
	v.col = cur_col(c, w);
	PUSH_MANY(c->s->vars, c->s->nvars, v);
	spec_name_added(c->s, 0);
	return 0;
}

/* value(X): the cursor is after `value`. */
static int parse_init_value(cur *c, double *v)
{
	if (!cur_accept(c, '('))
		return cur_err(c, c->p, "expected '(' after 'value'");
	cur_skip_blank(c);
	const char *at = c->p;
	if (cur_number(c, v) != 0)
		return cur_err(c, at, "expected a number inside 'value(...)'");
	if (!cur_accept(c, ')'))
		return cur_err(c, c->p, "expected ')' after 'value(%.*s'", (int)(c->p - at), at);
	return 0;
}

/* After TYPE[EXPR]: an init (random zero one iota value(X) poison) and the
 * flags output, managed and prefetch (managed only), in any order. */
/* {V, V, ...}: the values of a global, after its '{' */
static int list_values(cur *c, spec_buffer *b, const char *open, const char *name, int nlen)
{
	for (;;) {
		cur_skip_blank(c);
		if (b->nlist > 0 && cur_accept(c, '}'))
			return 0;
		double v;
		const char *at = c->p;
		if (cur_number(c, &v) != 0)
			return cur_err(c, at, at < c->end ? "expected a number in the values of '%.*s', not '%.*s'"
			                               : "expected a number and '}' in the values of '%.*s'%.*s",
			            nlen, name, at < c->end ? cur_token_len(c, at) : 0, at);
		if (b->nlist >= (1 << 16))
			return cur_err(c, open, "global '%.*s' has more than 65536 values", nlen, name);
		PUSH(b->list, b->nlist, v);
		cur_skip_blank(c);
		if (cur_accept(c, '}'))
			return 0;
		if (!cur_accept(c, ','))
			return cur_err(c, c->p, "expected ',' or '}' after value %d of '%.*s'", b->nlist, nlen, name);
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
	while (!cur_at_end(c)) {
		cur_skip_blank(c);
		if (b->global && *c->p == '{') {
			const char *w = c->p++;
			if (init_at)
				return cur_err(c, w, "global '%.*s' has two inits, '%.*s' and a list", nlen, name,
				            init_len, init_at);
			init_at = w;
			init_len = 1;
			b->init = INIT_LIST;
			if (list_values(c, b, w, name, nlen) != 0)
				return -1;
			continue;
		}
		const char *w;
		int n = cur_word(c, &w);
		if (n == 0)
			return cur_err(c, w, "unexpected '%.*s' in %s '%.*s' (expected random, zero, one, iota, "
			            "value(X), poison%s, output%s)", cur_token_len(c, w), w, what, nlen, name,
			            b->global ? ", {V, ...}" : "", b->global ? "" : ", managed or host");
		int i = 0;
		while (i < (int)ARRAY_LEN(words) && !scan_word_is(w, n, words[i]))
			i++;
		if (b->global && i >= 7 && i < (int)ARRAY_LEN(words))
			return cur_err(c, w, "a global cannot be '%s': it lives in the module", words[i]);
		if (i == (int)ARRAY_LEN(words))
			return cur_err_choices(c, w, xasprintf("unknown word '%.*s' in %s '%.*s'", n, w, what, nlen, name),
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
				return cur_err(c, w, "duplicate '%s' in %s '%.*s'", words[i], what, nlen, name);
			*flag = 1;
			continue;
		}
		if (init_at)
			return cur_err(c, w, "%s '%.*s' has two inits, '%.*s' and '%.*s'", what, nlen, name,
			            init_len, init_at, n, w);
		init_at = w;
		init_len = n;
		b->init = inits[i];
		if (b->init == INIT_VALUE && parse_init_value(c, &b->init_value) != 0)
			return -1;
	}
	if (b->prefetch && !b->managed)
		return cur_err(c, c->p, "buffer '%.*s' has 'prefetch' without 'managed': only unified memory is "
		            "prefetched", nlen, name);
	if (pinned && !host)
		return cur_err(c, pinned_at, "buffer '%.*s' has 'pinned' without 'host': only host memory is pinned "
		            "(write 'host pinned')", nlen, name);
	if (host && b->managed)
		return cur_err(c, host_at > managed_at ? host_at : managed_at, "buffer '%.*s' is both 'managed' and 'host': unified memory moves by "
		            "itself, a host buffer is copied (choose one)", nlen, name);
	b->host = !host ? BUF_DEVICE : pinned ? BUF_HOST_PINNED : BUF_HOST_PAGEABLE;
	if (b->scratch && (b->output || host || b->managed))
		return cur_err(c, c->p, "buffer '%.*s' is 'scratch', the steps' own: it cannot be an output, managed "
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
	int n = cur_word(c, &w);
	if (n == 0)
		return cur_err(c, c->p, "expected a name after '%s'", dir);
	if (check_new_name(c, w, n) != 0)
		return -1;
	b.col = cur_col(c, w);
	int tn = cur_word(c, &tw);
	if (tn == 0)
		return cur_err(c, c->p, "expected a type after %s name '%.*s' (float, double, int, "
		            "half, int8, float4, ...: 'help buffers')", what, n, w);
	if (dtype_parse(tw, tn, &b.type) != 0)
		return cur_err_choices(c, tw, xasprintf("unknown %s type '%.*s'", what, tn, tw), tw, tn,
		                    dtype_names, (int)ARRAY_LEN(dtype_names), "known", "");
	cur_skip_blank(c);
	if (b.global && (cur_at_end(c) || *c->p != '[')) {
		b.count = (spec_expr){ xstrdup("1"), c->line, cur_col(c, tw) }; /* one element */
	} else {
		if (!cur_accept(c, '['))
			return cur_err(c, c->p, "expected '[' after %s type '%.*s'", what, tn, tw);
		const char *open = c->p - 1, *close = NULL;
		for (const char *q = c->p; q < c->end && !close; q++)
			if (*q == ']')
				close = q;
		if (!close)
			return cur_err(c, c->end, "expected ']' after the size of %s '%.*s'", what, n, w);
		b.count = cur_expr(c, open + 1, close);
		if (b.count.text[0] == 0) {
			free(b.count.text);
			return cur_err(c, close, "expected the size of %s '%.*s' inside '[]'", what, n, w);
		}
		c->p = close + 1;
	}
	if (buffer_words(c, &b, w, n) != 0) {
		free(b.count.text);
		free(b.list);
		return -1;
	}
	b.name = xstrndup(w, (size_t)n);
	PUSH_MANY(c->s->bufs, c->s->nbufs, b);
	spec_name_added(c->s, 1);
	return 0;
}

/* link NAME... */
static int dir_link(cur *c, const char *dir)
{
	const char *w;
	int n = cur_word(c, &w);
	if (n == 0)
		return cur_err(c, c->p, "expected a library name after '%s' (known: cudadevrt)", dir);
	for (; n > 0; n = cur_word(c, &w)) {
		int known = 0;
		for (size_t i = 0; i < ARRAY_LEN(link_names); i++)
			known |= scan_word_is(w, n, link_names[i]);
		if (!known)
			return cur_err_choices(c, w, xasprintf("unknown link library '%.*s'", n, w), w, n,
			                    link_names, (int)ARRAY_LEN(link_names), "known", "");
		int dup = 0;
		for (int i = 0; i < c->s->nlinks; i++)
			dup |= scan_word_is(w, n, c->s->links[i]);
		if (!dup)
			PUSH(c->s->links, c->s->nlinks, xstrndup(w, (size_t)n));
	}
	return cur_expect_end(c, "'link'");
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
		return cur_err(c, at, "duplicate '%s' override for kernel '%s' (first at line %d)",
		            dir, sc->k->name, first);
	return cur_err(c, at, "duplicate '%s' line (first at line %d)", dir, first);
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
		return cur_err(c, c->end, "expected ')' after the arguments of '%s'", ch->ref);
	c->p++;
	cur_skip_blank(c);
	if (c->p == close) {
		c->p = close + 1;
		return 0;
	}
	char *what = xasprintf("arguments to '%s'", ch->ref);
	int r = cur_split_list(c, close, ch->args, SPEC_MAX_CHECK_ARGS, &ch->nargs, what);
	free(what);
	c->p = close + 1;
	return r;
}

/* Resolves ch->ref: a reference when called with arguments, else a kernel. */
/* A line's fault found outside spec.c (spec_lines.c), at its column. */
static int line_err(cur *c, int r, int col, char *why)
{
	if (r != 0)
		r = cur_err(c, c->bol + col - 1, "%s", why ? why : "?");
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
			int r = cur_err_choices(c, at, xasprintf("unknown reference '%s'", ch->ref), ch->ref, len,
			                     names, n, "known", "no references");
			free(names);
			return r;
		}
		if (f->opts) {
			int col = 0;
			char *why = NULL;
			int r = spec_check_words(ch, f, cur_col(c, at), &col, &why);
			return line_err(c, r, col, why);
		}
		if (ch->nargs != f->nargs)
			return cur_err(c, at, "'%s' takes %d argument%s, not %d: %s", f->name, f->nargs,
			            f->nargs == 1 ? "" : "s", ch->nargs, f->synopsis);
		return 0;
	}
	if (spec_kernel_find(c->s, ch->ref) >= 0) {
		ch->is_kernel = 1;
		return 0;
	}
	const ref_fn *f = ref_find(ch->ref);
	if (f)
		return cur_err(c, at, "reference '%s' needs its arguments: %s", f->name, f->synopsis);
	const char **names = spec_kernel_names(c->s);
	int r = cur_err_choices(c, at, xasprintf("unknown kernel '%s' in check", ch->ref), ch->ref, len,
	                     names, c->s->nkernels, "kernels", "no __global__ functions in the file");
	free(names);
	return r;
}

/* OUT = REF(ARG, ...) [tol X], OUT = KERNEL [tol X]: the cursor is after OUT. */
static int check_body(cur *c, spec_check *ch, const char *out, int outlen)
{
	if (!cur_accept(c, '='))
		return cur_err(c, c->p, "expected '=' after check output '%.*s'", outlen, out);
	const char *r;
	int rn = cur_word(c, &r);
	if (rn == 0)
		return cur_err(c, c->p, "expected a reference or a kernel name after '='");
	ch->ref = xstrndup(r, (size_t)rn);
	cur_skip_blank(c);
	int call = c->p < c->end && *c->p == '(';
	if ((call && check_args(c, ch) != 0) || check_target(c, ch, r, call) != 0)
		return -1;
	const char *tw;
	int tn = cur_word(c, &tw);
	if (tn > 0 && !scan_word_is(tw, tn, "tol"))
		return cur_err(c, tw, "unexpected '%.*s' after check (expected 'tol X' or the end of the line)",
		            tn, tw);
	if (tn > 0) {
		cur_skip_blank(c);
		const char *at = c->p;
		if (cur_number(c, &ch->tol) != 0 || ch->tol <= 0)
			return cur_err(c, at, "expected a positive number after 'tol'");
	}
	return cur_expect_end(c, "check");
}

/* check none | check OUT = ... */
static int dir_check(cur *c, const char *at, const scope *sc)
{
	spec_launch *l = sc->l;
	const char *w;
	int n = cur_word(c, &w);
	if (n == 0)
		return cur_err(c, c->p, "expected an output buffer or 'none' after 'check'");
	if (scan_word_is(w, n, "none") && cur_at_end(c)) {
		if (l->nchecks > 0)
			return cur_err(c, w, "'check none' conflicts with the check at line %d", l->checks[0].line);
		l->nchecks = 0;
		l->checks[0].none = 1;
		l->checks[0].line = c->line;
		l->checks[0].col = cur_col(c, w);
		return 0;
	}
	cur_skip_blank(c);
	if (scan_word_is(w, n, "at") && *c->p != '=') {
		/* check at N=512, M=3: the params of the check pass */
		if (sc->k)
			return cur_err(c, w, "'check at' applies to the whole file, not to kernel '%s'", sc->k->name);
		if (c->s->ncheck_at > 0)
			return cur_err(c, w, "duplicate 'check at' line (first at line %d)", c->s->check_at[0].line);
		spec_expr items[16];
		int ni = 0;
		if (cur_at_end(c))
			return cur_err(c, c->p, "expected NAME=VALUE after 'check at'");
		if (cur_split_list(c, c->end, items, 16, &ni, "values in 'check at'") != 0) {
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
				rc = cur_err(c, c->bol + items[i].col - 1, "expected NAME=VALUE in 'check at', got '%s'", t);
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
		return cur_err(c, at, "check conflicts with 'check none' at line %d", l->checks[0].line);
	if (l->nchecks == SPEC_MAX_CHECKS)
		return cur_err(c, at, "too many checks (at most %d)", SPEC_MAX_CHECKS);
	spec_check ch = { .line = c->line, .col = cur_col(c, w) };
	if (check_body(c, &ch, w, n) != 0) {
		spec_check_free(&ch);
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
		  : cur_at_end(c) ? cur_err(c, c->p, "expected an expression after %s", what)
		  : cur_split_list(c, c->end, dims, SPEC_MAX_DIMS, n, list);
		free(list);
	} else if (strcmp(dir, "smem") == 0 || strcmp(dir, "bytes") == 0 || strcmp(dir, "flops") == 0) {
		spec_expr *e = dir[0] == 's' ? &l->smem : dir[0] == 'b' ? &l->bytes : &l->flops;
		r = e->text ? duplicate(c, at, dir, sc, e->line) : cur_rest_expr(c, what, e);
	} else if (strcmp(dir, "check") == 0) {
		r = dir_check(c, at, sc);
	} else {
		r = 1;
	}
	free(what);
	return r;
}


/* Reads a kernel name at the cursor: NAME, A::B::NAME, NAME<ARGS> (brackets
 * balanced). Returns its length, 0 when there is none. */
static int read_kernel_name(cur *c, const char **w)
{
	int n = cur_word(c, w);
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
		const char **names = spec_kernel_names(c->s);
		cur_err_choices(c, w, xasprintf("unknown kernel '%.*s'", n, w), w, n, names, c->s->nkernels,
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
			cur_err(c, w, "kernel '%s' is not a template: '<...>' gives template arguments", name);
		else
			cur_err_choices(c, w, xasprintf("unknown kernel template '%s'", name), name, (int)strlen(name),
			             names, nt, "templates", "no template __global__ functions in the file");
		free(names);
		free(name);
		return -1;
	}
	if (al < 1 || args[al - 1] != '>') {
		free(name);
		return cur_err(c, w, "expected '>' after the template arguments of '%.*s'", n, w);
	}
	char *a = xstrndup(args, al - 1);
	int k = spec_instantiate(c->s, ki, a, c->line, cur_col(c, w));
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
		return cur_err(c, c->p, "expected a kernel name after '%s'", dir);
	int ki = kernel_named(c, w, n);
	if (ki < 0)
		return -1;
	spec_kernel *k = &c->s->kernels[ki];
	if (k->tmpl >= 0 && cur_at_end(c))
		return 0; /* an instantiation to run, nothing else */
	int dn = cur_word(c, &d);
	if (dn == 0)
		return cur_err(c, c->p, "expected an override after kernel name '%s' (grid, block, cluster, smem, "
		            "bytes, flops, check or skip)", k->name);
	if (scan_word_is(d, dn, "skip")) {
		k->skip = 1;
		return cur_expect_end(c, "'skip'");
	}
	char *sub = xstrndup(d, (size_t)dn);
	scope sc = { &k->over, k };
	int r = launch_line(c, sub, d, &sc);
	free(sub);
	if (r <= 0)
		return r;
	return cur_err_choices(c, d, xasprintf("unknown override '%.*s' for kernel '%s'", dn, d, k->name),
	                    d, dn, override_names, (int)ARRAY_LEN(override_names), "known", "");
}

/* sequence NAME = KERNEL, KERNEL, ...: a variant of several launches */
static int dir_sequence(cur *c, const char *dir)
{
	const char *w;
	int n = cur_word(c, &w);
	if (n == 0)
		return cur_err(c, c->p, "expected a name after '%s' (//@ sequence NAME = KERNEL, KERNEL, ...)", dir);
	if (check_new_name(c, w, n) != 0)
		return -1;
	char *name = xstrndup(w, (size_t)n);
	if (spec_kernel_find(c->s, name) >= 0) {
		free(name);
		return cur_err(c, w, "'%.*s' is already a kernel or a sequence of this file", n, w);
	}
	spec_kernel k = { .name = name, .base = xstrdup(name), .line = c->line, .col = cur_col(c, w), .tmpl = -1 };
	spec_launch_init(&k.over);
	int r = 0;
	if (!cur_accept(c, '='))
		r = cur_err(c, c->p, "expected '=' after sequence name '%s'", name);
	while (r == 0) {
		const char *sw;
		int sn = read_kernel_name(c, &sw);
		if (sn == 0) {
			r = cur_err(c, c->p, "expected a kernel name in sequence '%s'", name);
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
				const char **names = spec_kernel_names(c->s);
				cur_err_choices(c, sw, xasprintf("unknown step '%.*s' in sequence '%s'", sn, sw, name), sw, sn,
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
			r = cur_err(c, sw, "step '%.*s' of sequence '%s' is a %s: a step is a kernel", sn, sw, name,
			         sk->nsteps > 0 ? "sequence" : "template (name an instantiation)");
		else if (k.nsteps == SPEC_MAX_STEPS)
			r = cur_err(c, sw, "sequence '%s' has more than %d steps", name, SPEC_MAX_STEPS);
		else
			k.steps[k.nsteps++] = ki;
		if (r == 0 && !cur_accept(c, ','))
			break;
	}
	if (r == 0)
		r = cur_expect_end(c, "the sequence's steps");
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
	cur_skip_blank(c);
	if (c->p == c->end)
		return cur_err(c, c->p, "expected a directory after '%s'", dir);
	while (!cur_at_end(c)) {
		const char *a = c->p, *e;
		if (*a == '"') {
			e = memchr(a + 1, '"', (size_t)(c->end - a - 1));
			if (!e)
				return cur_err(c, a, "expected '\"' to close the directory name");
			spec_incdir d = { xstrndup(a + 1, (size_t)(e - a - 1)), c->line, cur_col(c, a + 1) };
			PUSH(c->s->incdirs, c->s->nincdirs, d);
			c->p = e + 1;
			continue;
		}
		e = a;
		while (e < c->end && !scan_is_blank(*e))
			e++;
		spec_incdir d = { xstrndup(a, (size_t)(e - a)), c->line, cur_col(c, a) };
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
		return cur_err(c, at, "duplicate '%s' line (first at line %d)", dir, s->streams.line);
	cur_skip_blank(c);
	const char *split = NULL;
	for (const char *q = c->p; q + 5 <= c->end; q++)
		if (strncmp(q, "split", 5) == 0 && (q == c->p || !is_ident_char((unsigned char)q[-1])) &&
		    (q + 5 == c->end || !is_ident_char((unsigned char)q[5])))
			split = q;
	if (cur_at_end(c) || split == c->p)
		return cur_err(c, c->p, "expected the number of streams after 'streams' (streams EXPR split NAME)");
	if (!split)
		return cur_err(c, c->end, "expected 'split NAME' after the number of streams: the param that is "
		            "cut in chunks");
	spec_expr e = cur_expr(c, c->p, split);
	c->p = split + 5;
	const char *w;
	int n = cur_word(c, &w);
	if (n == 0) {
		free(e.text);
		return cur_err(c, c->p, "expected a param name after 'split' (the size that is cut in chunks)");
	}
	if (cur_expect_end(c, "the split param") != 0) {
		free(e.text);
		return -1;
	}
	s->streams = e;
	s->split = xstrndup(w, (size_t)n);
	s->split_line = c->line;
	s->split_col = cur_col(c, w);
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
	int n = cur_word(&c, &w);
	if (n == 0 && cur_at_end(&c))
		return 0; /* a bare //@ */
	const char *const *names = directive_names;
	int nnames = (int)ARRAY_LEN(directive_names);
	if (n == 0)
		return cur_err_choices(&c, c.p, xstrdup("expected a directive after '//@'"), "", 0, names,
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
		cur_skip_blank(&c);
		r = (dir[0] == 'a' ? spec_arch_line : spec_tmap_line)(s, c.p, c.end, line, cur_col(&c, c.p), &col, &why);
		r = line_err(&c, r, col, why);
		c.p = c.end;
	}
	else if ((r = launch_line(&c, dir, w, &base)) > 0)
		r = cur_err_choices(&c, w, xasprintf("unknown directive '%s'", dir), w, n, names, nnames,
		                 "known", "");
	free(dir);
	return r;
}

/* What a failed //@ line at p (after "//@") would have given: the names on
 * it (a buffer, a param, a tensormap's buffer), a launch's geometry (a
 * grid, block, cluster or kernel line, or a directive misspelt). */
static void failed_line(spec_errs *e, const char *p, const char *eol)
{
	static const char *const geometry[] = { "grid", "block", "cluster", "kernel" };
	for (int i = 0; p < eol; i++) {
		while (p < eol && !is_ident_start((unsigned char)*p))
			p++;
		int n = scan_ident(p, eol);
		int known = 0;
		for (size_t d = 0; i == 0 && d < ARRAY_LEN(directive_names); d++)
			known |= scan_word_is(p, n, directive_names[d]);
		for (size_t d = 0; i == 0 && d < ARRAY_LEN(geometry); d++)
			e->launch_failed |= scan_word_is(p, n, geometry[d]);
		if (i == 0 && !known)
			e->launch_failed = 1;
		if (i > 0)
			spec_errs_maybe(e, p, n);
		p += n;
	}
}

/* Every //@ line; each error is gathered and the next line read, up to
 * SPEC_MAX_ERRORS. */
static void parse_header(spec *s, spec_errs *e)
{
	int line = 0;
	for (const char *bol = s->src; *bol;) {
		const char *eol = scan_eol(bol), *p = bol;
		line++;
		while (p < eol && scan_is_blank(*p))
			p++;
		char *msg = NULL;
		if (eol - p >= 3 && strncmp(p, "//@", 3) == 0 && header_line(s, line, bol, p + 3, eol, &msg) != 0) {
			if (e->n == SPEC_MAX_ERRORS) { /* one too many: stop here */
				free(msg);
				e->stopped = line;
				return;
			}
			failed_line(e, p + 3, eol);
			int col = 1; /* the message's own: "path:line:col: ..." */
			if (msg && strncmp(msg, s->path, strlen(s->path)) == 0)
				sscanf(msg + strlen(s->path), ":%*d:%d:", &col);
			spec_errs_add(e, line, col, msg ? msg : xasprintf("%s:%d:1: bad header line", s->path, line));
		}
		bol = *eol ? eol + 1 : eol;
	}
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
			spec_instantiate(s, tk, in->v[i].args, in->v[i].line, in->v[i].col);
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
	spec_errs errs = {0};
	parse_header(out, &errs);
	for (int i = 0; i < in.n; i++) {
		free(in.v[i].tmpl);
		free(in.v[i].args);
	}
	free(in.v);
	if (!errs.stopped)
		spec_validate(out, &errs);
	if (spec_errs_done(&errs, out, err) != 0) {
		spec_free(out);
		return -1;
	}
	return 0;
}

