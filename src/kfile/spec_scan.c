/* spec_scan.c: finds the __global__ functions of a kernel file: a copy of
 * the C++ source with comments, literals and preprocessor lines blanked
 * out is cut into tokens; every `__global__` function definition (in its
 * namespaces, templates included) becomes a spec_kernel, and explicit
 * instantiations of template kernels are collected. */
#include "spec_scan.h"
#include "cxxlex.h"
#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers shared with spec.c ---------------------------------------- */

int scan_is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

int scan_ident(const char *p, const char *end)
{
	int n = 0;
	if (p < end && is_ident_start((unsigned char)*p))
		while (p + n < end && is_ident_char((unsigned char)p[n]))
			n++;
	return n;
}

const char *scan_eol(const char *p)
{
	/* by hand: strchr(p, '\n') may measure all the rest of the file first
	 * (a checked build does), once a line */
	while (*p && *p != '\n')
		p++;
	return p;
}

int scan_word_is(const char *w, int n, const char *s)
{
	return (int)strlen(s) == n && memcmp(w, s, (size_t)n) == 0;
}

void spec_launch_init(spec_launch *l)
{
	memset(l, 0, sizeof *l);
	l->nchecks = -1;
}

/* name without blanks, but one between two words: "reduce< unsigned  int, 4 >"
 * -> "reduce<unsigned int,4>" (caller frees). */
char *spec_normalize_name(const char *name, size_t n)
{
	sbuf b = {0};
	for (size_t i = 0; i < n; i++) {
		if (isspace((unsigned char)name[i])) {
			size_t j = i;
			while (j < n && isspace((unsigned char)name[j]))
				j++;
			if (b.len && j < n && is_ident_char((unsigned char)b.s[b.len - 1]) &&
			    is_ident_char((unsigned char)name[j]))
				sb_putc(&b, ' ');
			i = j - 1;
			continue;
		}
		sb_putc(&b, name[i]);
	}
	return sb_steal(&b);
}

/* ---- kernel discovery: blanking --------------------------------------- */

/* Records `#include "name"` when the directive at p is one. */
static void add_include(spec *s, const char *p)
{
	p++;
	while (scan_is_blank(*p))
		p++;
	if (strncmp(p, "include", 7) != 0)
		return;
	p += 7;
	while (scan_is_blank(*p))
		p++;
	if (*p != '"')
		return;
	const char *e = ++p;
	while (*e && *e != '"' && *e != '\n')
		e++;
	if (*e != '"' || e == p)
		return;
	for (int i = 0; i < s->nincludes; i++)
		if (scan_word_is(p, (int)(e - p), s->includes[i]))
			return;
	PUSH(s->includes, s->nincludes, xstrndup(p, (size_t)(e - p)));
}

/* End of the preprocessor directive whose '#' is at src[i]: the newline
 * that is not spliced and not inside a comment or literal. */
static size_t skip_directive(spec *s, const char *src, size_t i)
{
	add_include(s, src + i);
	size_t j = i;
	while (src[j] && !(src[j] == '\n' && !cxx_spliced(src, j))) {
		size_t e = cxx_skip_literal_or_comment(src, j);
		j = e > j ? e : j + 1;
	}
	return j;
}

static void blank_range(char *b, size_t from, size_t to)
{
	for (; from < to; from++)
		if (b[from] != '\n')
			b[from] = ' ';
}

/* A copy of s->src with comments, string and character literals and
 * preprocessor lines replaced by spaces. Newlines are kept, so offsets,
 * lines and columns match the source. Collects includes on the way. */
static char *blank_source(spec *s)
{
	const char *src = s->src;
	char *b = xstrdup(src);
	int bol = 1; /* only blanks so far on this line */
	for (size_t i = 0; src[i];) {
		if (src[i] == '\n' || scan_is_blank(src[i])) {
			bol = bol || src[i] == '\n';
			i++;
			continue;
		}
		size_t e = bol && src[i] == '#' ? skip_directive(s, src, i) : cxx_skip_literal_or_comment(src, i);
		bol = 0;
		if (e > i) {
			blank_range(b, i, e);
			i = e;
		} else {
			i++;
		}
	}
	return b;
}

/* ---- kernel discovery: tokens ----------------------------------------- */


/* Names and numbers as one token each, `::` as one, anything else one character. */
void scan_tokenize(const char *b, toks *t)
{
	int line = 1;
	const char *bol = b;
	for (const char *p = b; *p;) {
		if (*p == '\n') {
			line++;
			bol = ++p;
			continue;
		}
		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		int len = 1;
		if (is_ident_char((unsigned char)*p))
			while (is_ident_char((unsigned char)p[len]))
				len++;
		else if (p[0] == ':' && p[1] == ':')
			len = 2;
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 256;
			t->v = xrealloc(t->v, (size_t)t->cap * sizeof *t->v);
		}
		t->v[t->n++] = (tok){ p, len, line, (int)(p - bol) + 1 };
		p += len;
	}
}

int scan_tok_is(const tok *t, const char *s)
{
	return scan_word_is(t->p, t->len, s);
}

static int tok_ident(const tok *t)
{
	return is_ident_start((unsigned char)t->p[0]);
}

static int tok_opens(const tok *t)
{
	return t->len == 1 && strchr("([{<", t->p[0]);
}

static int tok_closes(const tok *t)
{
	return t->len == 1 && strchr(")]}>", t->p[0]);
}

/* Index of the ')' that closes the '(' at t[i], or -1. */
static int match_paren(const toks *t, int i)
{
	int depth = 0;
	for (; i < t->n; i++) {
		if (scan_tok_is(&t->v[i], "("))
			depth++;
		else if (scan_tok_is(&t->v[i], ")") && --depth == 0)
			return i;
	}
	return -1;
}

/* Index of the '>' that closes the template parameter list at t[i] ('<'),
 * or -1. Angle brackets inside parentheses are comparisons. */
static int match_angle(const toks *t, int i)
{
	int angle = 0, paren = 0;
	for (; i < t->n; i++) {
		const tok *x = &t->v[i];
		if (scan_tok_is(x, "("))
			paren++;
		else if (scan_tok_is(x, ")"))
			paren--;
		else if (paren == 0 && scan_tok_is(x, "<"))
			angle++;
		else if (paren == 0 && scan_tok_is(x, ">") && --angle == 0)
			return i;
		else if (scan_tok_is(x, ";") || scan_tok_is(x, "{"))
			return -1;
	}
	return -1;
}

/* ---- kernel discovery: parameters ------------------------------------- */

/* The kind of a scalar type given as words, qualifiers removed. */
static arg_kind scalar_kind(const tok *const *w, int n)
{
	static const struct { const char *name; arg_kind kind; } named[] = {
		{ "float", ARG_F32 }, { "double", ARG_F64 },
		{ "int32_t", ARG_I32 }, { "uint32_t", ARG_U32 },
		{ "int64_t", ARG_I64 }, { "uint64_t", ARG_U64 },
		{ "size_t", ARG_U64 }, { "ptrdiff_t", ARG_I64 },
		{ "intptr_t", ARG_I64 }, { "uintptr_t", ARG_U64 },
	};
	if (n == 1)
		for (size_t i = 0; i < ARRAY_LEN(named); i++)
			if (scan_tok_is(w[0], named[i].name))
				return named[i].kind;
	/* builtin integers, words in any order: unsigned long int, long long... */
	int nu = 0, ns = 0, nl = 0, ni = 0;
	for (int i = 0; i < n; i++) {
		if (scan_tok_is(w[i], "unsigned"))
			nu++;
		else if (scan_tok_is(w[i], "signed"))
			ns++;
		else if (scan_tok_is(w[i], "long"))
			nl++;
		else if (scan_tok_is(w[i], "int"))
			ni++;
		else
			return ARG_NONE; /* char, short, bool, float4, T, structs... */
	}
	if (n == 0 || (nu && ns) || nu > 1 || ns > 1 || nl > 2 || ni > 1)
		return ARG_NONE;
	if (nl)
		return nu ? ARG_U64 : ARG_I64;
	return nu ? ARG_U32 : ARG_I32;
}

static int is_qualifier(const tok *t)
{
	static const char *const q[] = {
		"const", "volatile", "__restrict__", "__restrict", "restrict", "__grid_constant__", "std", "::",
	};
	for (size_t i = 0; i < ARRAY_LEN(q); i++)
		if (scan_tok_is(t, q[i]))
			return 1;
	return 0;
}

/* Kind of the type t[a, e), plus the element type of a pointer to a known
 * scalar. is_array: the parameter was written NAME[]. */
void scan_classify(kparam *p, const toks *t, int a, int e, int is_array)
{
	const tok *words[16];
	int nw = 0, stars = 0, ref = 0;
	for (int i = a; i < e; i++) {
		const tok *x = &t->v[i];
		if (scan_tok_is(x, "*"))
			stars++;
		else if (scan_tok_is(x, "&"))
			ref = 1;
		else if (!is_qualifier(x) && stars == 0 && nw < (int)ARRAY_LEN(words))
			words[nw++] = x; /* words after the first '*' are qualifiers of the pointer */
	}
	stars += is_array;
	arg_kind k = scalar_kind(words, nw);
	if (nw == 1 && (scan_tok_is(words[0], "CUtensorMap") || scan_tok_is(words[0], "CUtensorMap_st")))
		k = ARG_TMAP;
	p->kind = ref ? ARG_NONE : stars ? ARG_PTR : k;
	if (p->kind != ARG_PTR || stars != 1)
		return;
	/* the element type: float, __half, unsigned char, int8_t, float4... */
	const char *ws[16];
	int ls[16];
	for (int i = 0; i < nw; i++) {
		ws[i] = words[i]->p;
		ls[i] = words[i]->len;
	}
	dtype et;
	if (nw > 0 && dtype_from_c(ws, ls, nw, &et) == 0) {
		p->elem = et;
		p->elem_known = 1;
	}
}

/* The tokens t[a, e) as type text: one space between words, none around
 * `*`, `&`, `::` and template brackets: "const float* __restrict__". */
char *scan_type_text(const toks *t, int a, int e, int is_array)
{
	static const char *const no_space_before[] = { "*", "&", "::", ",", "<", ">", ")", "[", "]" };
	static const char *const no_space_after[] = { "::", "<", "(", "[" };
	sbuf b = {0};
	for (int i = a; i < e; i++) {
		int space = i > a;
		for (size_t j = 0; j < ARRAY_LEN(no_space_before); j++)
			space &= !scan_tok_is(&t->v[i], no_space_before[j]);
		for (size_t j = 0; i > a && j < ARRAY_LEN(no_space_after); j++)
			space &= !scan_tok_is(&t->v[i - 1], no_space_after[j]);
		if (space)
			sb_putc(&b, ' ');
		sb_add(&b, t->v[i].p, (size_t)t->v[i].len);
	}
	if (is_array)
		sb_putc(&b, '*');
	return sb_steal(&b);
}

/* One parameter, the tokens t[a, e): TYPE NAME, TYPE NAME[], TYPE NAME = default. */
static void add_param(spec_kernel *k, const toks *t, int a, int e)
{
	for (int i = a, depth = 0; i < e; i++) {
		if (tok_opens(&t->v[i]))
			depth++;
		else if (tok_closes(&t->v[i]))
			depth--;
		else if (depth == 0 && scan_tok_is(&t->v[i], "="))
			e = i; /* a default argument */
	}
	if (a == e || (e - a == 1 && k->nparams == 0 && scan_tok_is(&t->v[a], "void")))
		return;
	int is_array = 0, name = e - 1;
	while (name > a && scan_tok_is(&t->v[name], "]")) { /* NAME[] or NAME[N][M] */
		is_array = 1;
		while (name > a && !scan_tok_is(&t->v[name], "["))
			name--;
		name--;
	}
	kparam p = {0};
	if (name > a && tok_ident(&t->v[name])) {
		p.name = xstrndup(t->v[name].p, (size_t)t->v[name].len);
	} else { /* unnamed: cannot be bound */
		name = e;
		is_array = 0;
		p.name = xstrdup("");
	}
	const tok *at = &t->v[name < e ? name : a];
	p.line = at->line;
	p.col = at->col;
	p.type = scan_type_text(t, a, name, is_array);
	scan_classify(&p, t, a, name, is_array);
	PUSH(k->params, k->nparams, p);
}

/* The text of tokens t[a, e), as type_text writes it, normalised. */
static char *tokens_text(const toks *t, int a, int e)
{
	char *raw = scan_type_text(t, a, e, 0);
	char *n = spec_normalize_name(raw, strlen(raw));
	free(raw);
	return n;
}

/* The parameters of `template < ... >`, the '<' at t[a] and '>' at t[e]. */
static void template_params(spec_kernel *k, const toks *t, int a, int e)
{
	int start = a + 1, depth = 0;
	for (int i = a + 1; i <= e; i++) {
		const tok *x = &t->v[i];
		if (i < e && (scan_tok_is(x, "(") || scan_tok_is(x, "<") || scan_tok_is(x, "[")))
			depth++;
		else if (i < e && (scan_tok_is(x, ")") || scan_tok_is(x, ">") || scan_tok_is(x, "]")))
			depth--;
		if (i < e && !(depth == 0 && scan_tok_is(x, ",")))
			continue;
		/* t[start, i): `typename T`, `class T = float`, `int N`, `int N = 4` */
		int stop = i;
		for (int j = start; j < i; j++)
			if (scan_tok_is(&t->v[j], "=")) {
				stop = j;
				break;
			}
		int name = -1;
		for (int j = start; j < stop; j++)
			if (tok_ident(&t->v[j]))
				name = j;
		if (name >= 0 && stop > start) {
			tparam tp = { xstrndup(t->v[name].p, (size_t)t->v[name].len),
			              scan_tok_is(&t->v[start], "typename") || scan_tok_is(&t->v[start], "class") ||
			              scan_tok_is(&t->v[start], "template") };
			if (name == start && !tp.is_type) { /* a name alone: no kind known */
				free(tp.name);
			} else {
				PUSH(k->tparams, k->ntparams, tp);
			}
		}
		start = i + 1;
	}
}

/* The kernel whose name is t[name], its parameter list ending at t[close];
 * prefix: the enclosing namespaces ("" or "a::b"); tmpl: the '<' and '>' of
 * its template head, or -1. */
static void add_kernel(spec *s, const toks *t, int name, int close, const char *prefix, int tl, int tr)
{
	/* a qualified definition: void course::copy(...) */
	int q = name;
	while (q >= 2 && scan_tok_is(&t->v[q - 1], "::") && tok_ident(&t->v[q - 2]))
		q -= 2;
	char *qual = tokens_text(t, q, name + 1);
	spec_kernel k = {0};
	k.name = *prefix ? xasprintf("%s::%s", prefix, qual) : xstrdup(qual);
	free(qual);
	for (int i = 0; i < s->nkernels; i++)
		if (strcmp(s->kernels[i].name, k.name) == 0) {
			/* the same name again: #if/#else variants or overloads; the first wins */
			free(k.name);
			return;
		}
	k.expr = xstrdup(k.name);
	k.base = xstrndup(t->v[name].p, (size_t)t->v[name].len);
	k.line = t->v[name].line;
	k.col = t->v[name].col;
	k.is_template = tl >= 0;
	k.tmpl = -1;
	if (tl >= 0)
		template_params(&k, t, tl, tr);
	spec_launch_init(&k.over);
	int a = name + 2, depth = 0;
	for (int i = a; i <= close; i++) {
		if (i == close || (depth == 0 && scan_tok_is(&t->v[i], ","))) {
			add_param(&k, t, a, i);
			a = i + 1;
		} else if (tok_opens(&t->v[i])) {
			depth++;
		} else if (tok_closes(&t->v[i])) {
			depth--;
		}
	}
	PUSH(s->kernels, s->nkernels, k);
}

/* The declaration that follows the `__global__` at t[g]:
 *   [attributes] void [__launch_bounds__(...)] NAME ( PARAMS ) [...] { body
 * Adds a kernel when it is a definition (a prototype ends in ';').
 * Returns the index to go on from. */
static int global_decl(spec *s, const toks *t, int g, const char *prefix, int tl, int tr)
{
	for (int j = g + 1; j < t->n; j++) {
		const tok *x = &t->v[j];
		if (scan_tok_is(x, ";") || scan_tok_is(x, "{") || scan_tok_is(x, "}"))
			return j;
		if (!tok_ident(x) || j + 1 >= t->n || !scan_tok_is(&t->v[j + 1], "("))
			continue;
		int close = match_paren(t, j + 1);
		if (close < 0)
			return t->n;
		if (x->len > 2 && strncmp(x->p, "__", 2) == 0) {
			j = close; /* __launch_bounds__(...), __attribute__((...)) */
			continue;
		}
		int k = close + 1;
		while (k < t->n && !scan_tok_is(&t->v[k], "{") && !scan_tok_is(&t->v[k], ";"))
			k++;
		if (k < t->n && scan_tok_is(&t->v[k], "{"))
			add_kernel(s, t, j, close, prefix, tl, tr);
		return k;
	}
	return t->n;
}

/* An explicit instantiation in the source: `template __global__ void
 * NAME<ARGS>(...);` names a kernel to run unless the header names others. */

/* The explicit instantiation whose `template` is at t[i] (not followed by
 * '<'); records it when it names a __global__ function with template
 * arguments. Returns the index of its ';'. */
static int explicit_inst(const toks *t, int i, const char *prefix, insts *out)
{
	int end = i + 1, global = 0;
	while (end < t->n && !scan_tok_is(&t->v[end], ";") && !scan_tok_is(&t->v[end], "{") && !scan_tok_is(&t->v[end], "}")) {
		global |= scan_tok_is(&t->v[end], "__global__");
		end++;
	}
	for (int j = i + 1; global && j + 1 < end; j++) {
		if (!tok_ident(&t->v[j]) || !scan_tok_is(&t->v[j + 1], "<"))
			continue;
		int close = match_angle(t, j + 1);
		if (close < 0 || close + 1 >= end || !scan_tok_is(&t->v[close + 1], "("))
			continue;
		int q = j;
		while (q >= 2 && scan_tok_is(&t->v[q - 1], "::") && tok_ident(&t->v[q - 2]))
			q -= 2;
		char *name = tokens_text(t, q, j + 1);
		inst in = { *prefix ? xasprintf("%s::%s", prefix, name) : xstrdup(name),
		            tokens_text(t, j + 2, close), t->v[j].line, t->v[j].col };
		free(name);
		PUSH(out->v, out->n, in);
		break;
	}
	return end;
}

/* Namespaces around the scanner: one entry per open brace. */
typedef struct scopes {
	char **ns; /* the namespace a brace opened ("" anonymous), or NULL */
	int n;
} scopes;

static char *scope_prefix(const scopes *sc)
{
	sbuf b = {0};
	for (int i = 0; i < sc->n; i++)
		if (sc->ns[i] && *sc->ns[i])
			sb_printf(&b, "%s%s", b.len ? "::" : "", sc->ns[i]);
	return sb_steal(&b);
}

/* Finds the __global__ functions of s->src and its "..." includes; the
 * explicit instantiations go to *in. */
void spec_discover(spec *s, insts *in)
{
	char *b = blank_source(s);
	toks t = {0};
	scan_tokenize(b, &t);
	scopes sc = {0};
	int tl = -1, tr = -1; /* a template<...> head awaits its declaration */
	for (int i = 0; i < t.n;) {
		const tok *x = &t.v[i];
		if (scan_tok_is(x, "template") && i + 1 < t.n && scan_tok_is(&t.v[i + 1], "<")) {
			int e = match_angle(&t, i + 1);
			tl = e >= 0 ? i + 1 : -1;
			tr = e;
			i = e >= 0 ? e + 1 : i + 1;
			continue;
		}
		if (scan_tok_is(x, "template") && (i == 0 || !scan_tok_is(&t.v[i - 1], "extern"))) {
			char *prefix = scope_prefix(&sc);
			i = explicit_inst(&t, i, prefix, in);
			free(prefix);
			continue;
		}
		if (scan_tok_is(x, "namespace") && (i == 0 || !scan_tok_is(&t.v[i - 1], "using"))) {
			/* namespace a {, namespace a::b {, namespace {, inline namespace v1 { */
			int j = i + 1;
			while (j < t.n && (tok_ident(&t.v[j]) || scan_tok_is(&t.v[j], "::")))
				j++;
			if (j < t.n && scan_tok_is(&t.v[j], "{")) {
				char *name = tokens_text(&t, i + 1, j);
				PUSH(sc.ns, sc.n, name);
				tl = -1;
				i = j + 1;
				continue;
			}
			i = j; /* an alias: namespace cg = cooperative_groups; */
			continue;
		}
		if (scan_tok_is(x, "{")) {
			PUSH(sc.ns, sc.n, NULL);
		} else if (scan_tok_is(x, "}") && sc.n > 0) {
			free(sc.ns[--sc.n]);
		}
		if (scan_tok_is(x, ";") || scan_tok_is(x, "{") || scan_tok_is(x, "}"))
			tl = -1;
		if (scan_tok_is(x, "__global__")) {
			char *prefix = scope_prefix(&sc);
			i = global_decl(s, &t, i, prefix, tl, tr);
			free(prefix);
			continue;
		}
		i++;
	}
	for (int i = 0; i < sc.n; i++)
		free(sc.ns[i]);
	free(sc.ns);
	free(t.v);
	free(b);
}

/* Text of the first `//` comment line (not a //@ line), for `ls`. */
char *spec_find_summary(const char *src)
{
	for (const char *bol = src; *bol;) {
		const char *p = bol, *eol = scan_eol(bol);
		while (p < eol && scan_is_blank(*p))
			p++;
		if (eol - p >= 2 && p[0] == '/' && p[1] == '/' && !(eol - p >= 3 && p[2] == '@')) {
			while (p < eol && *p == '/')
				p++;
			const char *e = eol;
			while (p < e && isspace((unsigned char)*p))
				p++;
			while (e > p && isspace((unsigned char)e[-1]))
				e--;
			if (e > p)
				return xstrndup(p, (size_t)(e - p));
		}
		bol = *eol ? eol + 1 : eol;
	}
	return NULL;
}
