/* reduce.c: a kernel file cut down to the kernels one command runs
 * (reduce.h says what is kept and when the file compiles whole). */
#include "reduce.h"
#include "cxxlex.h"
#include "spec_find.h"
#include "spec_scan.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void spec_needed(const spec *s, const int *want, int n, int *need)
{
	memset(need, 0, (size_t)s->nkernels * sizeof *need);
	for (int i = 0; i < n; i++)
		if (want[i] >= 0 && want[i] < s->nkernels)
			need[want[i]] = 1;
	for (int changed = 1; changed;) {
		changed = 0;
		for (int k = 0; k < s->nkernels; k++) {
			if (!need[k])
				continue;
			const spec_kernel *sk = &s->kernels[k];
			int more[SPEC_MAX_STEPS + 2 * SPEC_MAX_CHECKS + 1], nm = 0;
			for (int j = 0; j < sk->nsteps; j++)
				more[nm++] = sk->steps[j];
			if (sk->tmpl >= 0)
				more[nm++] = sk->tmpl;
			/* the kernels a check names: the file's and the kernel's own */
			const spec_launch *ls[2] = { &s->base, &sk->over };
			for (int l = 0; l < 2; l++)
				for (int c = 0; c < ls[l]->nchecks && c < SPEC_MAX_CHECKS; c++)
					if (ls[l]->checks[c].is_kernel && ls[l]->checks[c].ref)
						more[nm++] = spec_kernel_find(s, ls[l]->checks[c].ref);
			for (int j = 0; j < nm; j++)
				if (more[j] >= 0 && more[j] < s->nkernels && !need[more[j]])
					need[more[j]] = changed = 1;
		}
	}
}

/* ---- the file as tokens ------------------------------------------------ */

typedef struct span {
	size_t a, b;      /* [a, b) in the source */
	int kind;         /* a directive's (DIR_*) */
} span;

/* Directives by what blanking them does: nothing outside the region
 * (#pragma; a conditional group whole inside it), or what cannot be known. */
enum { DIR_PRAGMA, DIR_IF, DIR_ELSE, DIR_ENDIF, DIR_OTHER };

static int dir_kind(const char *w)
{
	static const struct { const char *w; int k; } kinds[] = {
		{ "pragma", DIR_PRAGMA }, { "ifdef", DIR_IF }, { "ifndef", DIR_IF }, { "if", DIR_IF },
		{ "elifdef", DIR_ELSE }, { "elifndef", DIR_ELSE }, { "elif", DIR_ELSE }, { "else", DIR_ELSE },
		{ "endif", DIR_ENDIF },
	};
	int n = 0;
	while (is_ident_char((unsigned char)w[n]))
		n++;
	for (size_t i = 0; i < ARRAY_LEN(kinds); i++)
		if ((int)strlen(kinds[i].w) == n && strncmp(w, kinds[i].w, (size_t)n) == 0)
			return kinds[i].k;
	return DIR_OTHER;
}

typedef struct cut {
	char *blank;      /* comments, literals, directives as spaces */
	toks t;
	span *dir;        /* the directives */
	int ndir;
	span *out;        /* the regions to blank */
	int nout;
} cut;

/* The blanked copy and where its directives are. */
static void cut_blank(const char *src, cut *c)
{
	c->blank = xstrdup(src);
	int bol = 1;
	for (size_t i = 0; src[i];) {
		if (src[i] == '\n' || src[i] == ' ' || src[i] == '\t' || src[i] == '\r' || src[i] == '\f' ||
		    src[i] == '\v') {
			bol = bol || src[i] == '\n';
			i++;
			continue;
		}
		size_t e;
		if (bol && src[i] == '#') {
			e = i;
			while (src[e] && !(src[e] == '\n' && !cxx_spliced(src, e))) {
				size_t x = cxx_skip_literal_or_comment(src, e);
				e = x > e ? x : e + 1;
			}
			const char *w = src + i + 1;
			while (*w == ' ' || *w == '\t')
				w++;
			span d = { i, e, dir_kind(w) };
			PUSH(c->dir, c->ndir, d);
		} else {
			e = cxx_skip_literal_or_comment(src, i);
		}
		bol = 0;
		if (e > i) {
			for (size_t j = i; j < e; j++)
				if (c->blank[j] != '\n')
					c->blank[j] = ' ';
			i = e;
		} else {
			i++;
		}
	}
	scan_tokenize(c->blank, &c->t);
}

static void cut_free(cut *c)
{
	free(c->blank);
	free(c->t.v);
	free(c->dir);
	free(c->out);
}

static int is_ident(const tok *x)
{
	return is_ident_start((unsigned char)x->p[0]);
}

static size_t off(const cut *c, const tok *x)
{
	return (size_t)(x->p - c->blank);
}

/* The index after the bracket that closes the one at t[i] ('(' or '{'). */
static int close_of(const toks *t, int i, const char *open, const char *shut)
{
	int depth = 0;
	for (; i < t->n; i++) {
		if (scan_tok_is(&t->v[i], open))
			depth++;
		else if (scan_tok_is(&t->v[i], shut) && --depth == 0)
			return i + 1;
	}
	return t->n;
}

/* A `__global__` declaration, the token at t[g]: where it starts (after
 * the last ';', '{' or '}'), its name, whether a definition, and its end. */
typedef struct gdecl {
	int start, name, end; /* tokens [start, end) */
	int defn;             /* a body follows */
	int inst;             /* the name is followed by '<': an explicit instantiation */
} gdecl;

static int global_at(const toks *t, int g, gdecl *d)
{
	memset(d, 0, sizeof *d);
	d->start = g;
	while (d->start > 0) {
		const tok *x = &t->v[d->start - 1];
		if (scan_tok_is(x, ";") || scan_tok_is(x, "{") || scan_tok_is(x, "}"))
			break;
		d->start--;
	}
	d->name = -1;
	for (int j = g + 1; j + 1 < t->n; j++) {
		const tok *x = &t->v[j];
		if (scan_tok_is(x, ";") || scan_tok_is(x, "{") || scan_tok_is(x, "}"))
			return -1;
		if (!is_ident(x))
			continue;
		int paren = scan_tok_is(&t->v[j + 1], "(");
		if (paren && x->len > 2 && strncmp(x->p, "__", 2) == 0) {
			j = close_of(t, j + 1, "(", ")") - 1; /* __launch_bounds__(...) */
			continue;
		}
		if (paren || scan_tok_is(&t->v[j + 1], "<")) {
			d->name = j;
			d->inst = !paren;
			break;
		}
	}
	if (d->name < 0)
		return -1;
	/* past the parameters (and a template argument list) to '{' or ';' */
	int j = d->name + 1, paren = 0;
	for (; j < t->n; j++) {
		const tok *x = &t->v[j];
		if (scan_tok_is(x, "("))
			paren++;
		else if (scan_tok_is(x, ")"))
			paren--;
		else if (paren == 0 && (scan_tok_is(x, "{") || scan_tok_is(x, ";")))
			break;
	}
	if (j >= t->n)
		return -1;
	d->defn = scan_tok_is(&t->v[j], "{");
	d->end = d->defn ? close_of(t, j, "{", "}") : j + 1;
	return 0;
}

/* The kernel of s defined with its name at tok x, or -1. */
static int kernel_at(const spec *s, const tok *x)
{
	for (int k = 0; k < s->nkernels; k++)
		if (s->kernels[k].tmpl < 0 && s->kernels[k].nsteps == 0 && s->kernels[k].line == x->line &&
		    s->kernels[k].col == x->col)
			return k;
	return -1;
}

/* The kernel (or template) of s whose identifier is the tok x, or -1
 * (the first; -2 when two have it). */
static int kernel_named(const spec *s, const tok *x)
{
	int found = -1;
	for (int k = 0; k < s->nkernels; k++)
		if (s->kernels[k].tmpl < 0 && s->kernels[k].nsteps == 0 && scan_tok_is(x, s->kernels[k].base))
			found = found == -1 ? k : -2;
	return found;
}

/* The uses of the name w in the tokens outside the regions to blank. */
static int kept_uses(const cut *c, const char *w)
{
	int n = 0, r = 0;
	for (int i = 0; i < c->t.n; i++) {
		size_t o = off(c, &c->t.v[i]);
		while (r < c->nout && c->out[r].b <= o)
			r++;
		if (r < c->nout && o >= c->out[r].a)
			continue;
		n += scan_tok_is(&c->t.v[i], w);
	}
	return n;
}

static int region_uses(const cut *c, const span *sp, const char *w)
{
	for (int i = 0; i < c->t.n; i++) {
		size_t o = off(c, &c->t.v[i]);
		if (o >= sp->a && o < sp->b && scan_tok_is(&c->t.v[i], w))
			return 1;
	}
	return 0;
}

/* The regions to blank: the definitions, prototypes and explicit
 * instantiations of the kernels not needed. NULL, or why not. */
static char *find_regions(const spec *s, const int *need, cut *c, int *nkept)
{
	*nkept = 0;
	for (int g = 0; g < c->t.n; g++) {
		if (!scan_tok_is(&c->t.v[g], "__global__"))
			continue;
		gdecl d;
		if (global_at(&c->t, g, &d) != 0)
			return xasprintf("a __global__ declaration at line %d was not understood", c->t.v[g].line);
		int k = d.defn ? kernel_at(s, &c->t.v[d.name]) : kernel_named(s, &c->t.v[d.name]);
		if (k < 0)
			return xasprintf("the __global__ '%.*s' at line %d is not a kernel of the file (defined twice?)",
			                 c->t.v[d.name].len, c->t.v[d.name].p, c->t.v[d.name].line);
		if (need[k]) {
			*nkept += d.defn;
		} else {
			span sp = { off(c, &c->t.v[d.start]), off(c, &c->t.v[d.end - 1]) + (size_t)c->t.v[d.end - 1].len, 0 };
			PUSH(c->out, c->nout, sp);
		}
		g = d.end - 1;
	}
	return NULL;
}

/* Why blanking c->out could change what the kept kernels are, or NULL. */
static char *unsafe(const spec *s, const int *need, const cut *c)
{
	for (int i = 0; i + 2 < c->t.n; i++)
		if (scan_tok_is(&c->t.v[i], "<") && c->t.v[i + 1].p == c->t.v[i].p + 1 &&
		    scan_tok_is(&c->t.v[i + 1], "<") && c->t.v[i + 2].p == c->t.v[i].p + 2 &&
		    scan_tok_is(&c->t.v[i + 2], "<"))
			return xasprintf("a kernel is launched at line %d (dynamic parallelism)", c->t.v[i].line);
	/* inside a region: #pragma, and conditional groups whole */
	for (int r = 0; r < c->nout; r++) {
		int depth = 0;
		for (int d = 0; d < c->ndir; d++) {
			const span *x = &c->dir[d];
			if (x->a < c->out[r].a || x->a >= c->out[r].b)
				continue;
			depth += x->kind == DIR_IF ? 1 : x->kind == DIR_ENDIF ? -1 : 0;
			if (x->kind == DIR_OTHER || depth < 0 || (x->kind == DIR_ELSE && depth == 0))
				return xasprintf("a preprocessor directive inside a kernel not run, at offset %zu", x->a);
		}
		if (depth != 0)
			return xasprintf("a conditional group crosses the end of a kernel not run");
	}
	for (int k = 0; k < s->nkernels; k++) {
		const spec_kernel *sk = &s->kernels[k];
		if (need[k] || sk->tmpl >= 0 || sk->nsteps > 0)
			continue;
		if (kept_uses(c, sk->base) > 0)
			return xasprintf("kernel '%s' is named outside its definition", sk->name);
	}
	/* a template kernel instantiated as two kernels, one not run */
	for (int k = 0; k < s->nkernels; k++) {
		const spec_kernel *sk = &s->kernels[k];
		if (sk->tmpl < 0 || !need[sk->tmpl])
			continue;
		for (int j = 0; j < s->nkernels; j++)
			if (s->kernels[j].tmpl == sk->tmpl && need[k] != need[j])
				return xasprintf("template kernel '%s' is instantiated by two kernels",
				                 s->kernels[sk->tmpl].name);
	}
	/* a __device__ or __managed__ variable at file scope used by a kernel
	 * blanked and by the code kept */
	for (int i = 0; i < c->t.n; i++) {
		const tok *x = &c->t.v[i];
		if (!scan_tok_is(x, "__device__") && !scan_tok_is(x, "__managed__"))
			continue;
		int j = i + 1, name = -1;
		while (j < c->t.n && !scan_tok_is(&c->t.v[j], ";") && !scan_tok_is(&c->t.v[j], "=") &&
		       !scan_tok_is(&c->t.v[j], "[") && !scan_tok_is(&c->t.v[j], "(") && !scan_tok_is(&c->t.v[j], "{")) {
			if (is_ident(&c->t.v[j]))
				name = j;
			j++;
		}
		if (j >= c->t.n || scan_tok_is(&c->t.v[j], "(") || scan_tok_is(&c->t.v[j], "{") || name < 0)
			continue; /* a function */
		char *w = xstrndup(c->t.v[name].p, (size_t)c->t.v[name].len);
		int in_out = 0;
		for (int r = 0; r < c->nout && !in_out; r++)
			in_out = region_uses(c, &c->out[r], w);
		/* the declaration is one use of the kept text */
		char *why = in_out && kept_uses(c, w) > 1
		            ? xasprintf("variable '%s' is used by a kernel run and by one not run", w) : NULL;
		free(w);
		if (why)
			return why;
	}
	return NULL;
}

char *spec_reduce(const spec *s, const int *want, int n, char **why)
{
	*why = NULL;
	if (s->nlinks > 0) {
		*why = xstrdup("relocatable device code ('//@ link')");
		return NULL;
	}
	int *need = xcalloc((size_t)s->nkernels + 1, sizeof *need);
	spec_needed(s, want, n, need);
	cut c = {0};
	cut_blank(s->src, &c);
	int nkept = 0;
	*why = find_regions(s, need, &c, &nkept);
	if (!*why && c.nout > 0)
		*why = unsafe(s, need, &c);
	if (!*why && nkept == 0)
		*why = xstrdup("no kernel definition is kept");
	char *out = NULL;
	if (!*why && c.nout > 0) {
		out = xstrdup(s->src);
		for (int r = 0; r < c.nout; r++)
			for (size_t i = c.out[r].a; i < c.out[r].b; i++)
				if (out[i] != '\n')
					out[i] = ' ';
	}
	cut_free(&c);
	free(need);
	return out;
}
