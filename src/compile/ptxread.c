/* ptxread.c: which pointer parameters a kernel may read through, from its
 * PTX (ptxread.h).
 *
 * Each register (by name) carries a mask of the parameters its value may
 * come from: ld.param sets the bit of the parameter it loads, and every
 * other instruction gives its destination the union of its sources'
 * masks. Then a parameter is read where a register that carries its bit
 * is (part of) the address of anything but a plain store, prefetch or
 * discard, and it escapes (and counts as read) where such a register is
 * a value stored to memory or passed to a call, or where the parameter's
 * own address is taken. Passes repeat until nothing changes: loops carry
 * values backwards. */
#include "ptxread.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define MAX_PARAMS 64
#define MAX_OPS 16

/* ---- registers by name: an open-addressing table of masks ---- */

typedef struct reg {
	const char *name; /* into the body copy; NULL: empty slot */
	size_t len;
	uint64_t mask;
} reg;

typedef struct regs {
	reg *slot;
	size_t cap, n;
} regs;

static uint64_t hash_of(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static reg *reg_find(regs *t, const char *s, size_t n, int add)
{
	if (add && (t->n + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		reg *ns = xcalloc(cap, sizeof *ns);
		for (size_t i = 0; i < t->cap; i++)
			if (t->slot[i].name) {
				size_t j = hash_of(t->slot[i].name, t->slot[i].len) & (cap - 1);
				while (ns[j].name)
					j = (j + 1) & (cap - 1);
				ns[j] = t->slot[i];
			}
		free(t->slot);
		t->slot = ns;
		t->cap = cap;
	}
	if (!t->cap)
		return NULL;
	size_t j = hash_of(s, n) & (t->cap - 1);
	while (t->slot[j].name) {
		if (t->slot[j].len == n && memcmp(t->slot[j].name, s, n) == 0)
			return &t->slot[j];
		j = (j + 1) & (t->cap - 1);
	}
	if (!add)
		return NULL;
	t->slot[j].name = s;
	t->slot[j].len = n;
	t->slot[j].mask = 0;
	t->n++;
	return &t->slot[j];
}

/* ---- text ---- */

/* A copy of s[0..n) without comments: // to the end of the line, and
 * slash-star to star-slash (each replaced by a space). */
static char *strip_comments(const char *s, size_t n)
{
	char *o = xmalloc(n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n;) {
		if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
			continue;
		}
		if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
			i += 2;
			while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'))
				i++;
			i = i + 2 < n ? i + 2 : n;
			o[k++] = ' ';
			continue;
		}
		o[k++] = s[i++];
	}
	o[k] = 0;
	return o;
}

static int ident_start(int c)
{
	return isalpha(c) || c == '_' || c == '$' || c == '%';
}

static int ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '$' || c == '%' || c == '.';
}

/* ---- the entry ---- */

typedef struct entry {
	char *body;    /* its statements, comments removed (owned) */
	int nparams;
	const char *pname[MAX_PARAMS];
	size_t plen[MAX_PARAMS];
	char *phold;   /* the parameter list, comments removed (owned; pname points into it) */
} entry;

/* Finds `.entry NAME` and splits out its parameters and body. */
static int find_entry(const char *ptx, const char *name, entry *e, char **why)
{
	memset(e, 0, sizeof *e);
	size_t nl = strlen(name);
	const char *p = ptx;
	for (;;) {
		p = strstr(p, ".entry");
		if (!p)
			return fail(why, "no entry '%s' in the PTX", name);
		const char *q = p + 6;
		while (*q == ' ' || *q == '\t')
			q++;
		if (strncmp(q, name, nl) == 0 && !ident_char((unsigned char)q[nl])) {
			p = q + nl;
			break;
		}
		p = q;
	}
	while (isspace((unsigned char)*p))
		p++;
	const char *open = NULL, *close = NULL;
	if (*p == '(') {
		open = p + 1;
		close = strchr(open, ')');
		if (!close)
			return fail(why, "entry '%s': its parameter list does not end", name);
		p = close + 1;
	}
	const char *lb = strchr(p, '{');
	if (!lb)
		return fail(why, "entry '%s' has no body", name);
	/* the body: to the matching brace, comments skipped */
	int depth = 0;
	const char *q = lb;
	for (; *q; q++) {
		if (q[0] == '/' && q[1] == '/') {
			while (*q && *q != '\n')
				q++;
			if (!*q)
				break;
			continue;
		}
		if (q[0] == '/' && q[1] == '*') {
			const char *end = strstr(q + 2, "*/");
			if (!end)
				break;
			q = end + 1;
			continue;
		}
		if (*q == '{')
			depth++;
		else if (*q == '}' && --depth == 0)
			break;
	}
	if (*q != '}')
		return fail(why, "entry '%s': its body does not end", name);
	e->body = strip_comments(lb + 1, (size_t)(q - lb - 1));
	if (open) {
		e->phold = strip_comments(open, (size_t)(close - open));
		/* each declaration's last name is the parameter ("... .b8 name[16]") */
		char *d = e->phold;
		while (*d) {
			char *comma = strchr(d, ',');
			char *end = comma ? comma : d + strlen(d);
			const char *last = NULL;
			size_t llen = 0;
			for (char *t = d; t < end;) {
				if (ident_start((unsigned char)*t) && (t == d || !ident_char((unsigned char)t[-1]))) {
					char *s = t;
					while (t < end && ident_char((unsigned char)*t))
						t++;
					if (*s != '.') {
						last = s;
						llen = (size_t)(t - s);
					}
				} else {
					t++;
				}
			}
			if (last) {
				if (e->nparams == MAX_PARAMS) {
					free(e->body);
					free(e->phold);
					return fail(why, "entry '%s' has more than %d parameters", name, MAX_PARAMS);
				}
				e->pname[e->nparams] = last;
				e->plen[e->nparams++] = llen;
			}
			if (!comma)
				break;
			d = comma + 1;
		}
	}
	return 0;
}

static int param_index(const entry *e, const char *s, size_t n)
{
	for (int i = 0; i < e->nparams; i++)
		if (e->plen[i] == n && memcmp(e->pname[i], s, n) == 0)
			return i;
	return -1;
}

/* ---- statements ---- */

typedef struct operand {
	const char *s;
	size_t n;
	int mem; /* [ ... ]: an address */
} operand;

typedef struct stmt {
	const char *op; /* the opcode with its modifiers, "ld.global.nc.f32" */
	size_t oplen;
	int nops;
	operand ops[MAX_OPS];
} stmt;

/* Parses one statement s[0..n) (no ';'); 0 when it is an instruction. */
static int parse_stmt(const char *s, size_t n, stmt *st)
{
	const char *e = s + n;
	for (;;) {
		while (s < e && (isspace((unsigned char)*s) || *s == '{' || *s == '}'))
			s++;
		/* a label: NAME: */
		const char *t = s;
		while (t < e && ident_char((unsigned char)*t))
			t++;
		if (t > s && t < e && *t == ':') {
			s = t + 1;
			continue;
		}
		/* a directive: .reg, .shared, .pragma end at the ';'; .loc and
		 * .file at the end of their line, with no ';' */
		if (s < e && *s == '.') {
			const char *nl = memchr(s, '\n', (size_t)(e - s));
			if (!nl)
				return -1;
			s = nl + 1;
			continue;
		}
		break;
	}
	if (s == e)
		return -1;
	if (*s == '@') { /* a guard: @%p or @!%p */
		s++;
		while (s < e && !isspace((unsigned char)*s))
			s++;
		while (s < e && isspace((unsigned char)*s))
			s++;
	}
	st->op = s;
	while (s < e && !isspace((unsigned char)*s))
		s++;
	st->oplen = (size_t)(s - st->op);
	if (st->oplen == 0)
		return -1;
	st->nops = 0;
	while (s < e) {
		while (s < e && isspace((unsigned char)*s))
			s++;
		if (s == e)
			break;
		const char *b = s;
		int depth = 0;
		while (s < e && !(depth == 0 && *s == ',')) {
			if (*s == '[' || *s == '{' || *s == '(')
				depth++;
			else if (*s == ']' || *s == '}' || *s == ')')
				depth--;
			s++;
		}
		if (st->nops < MAX_OPS) {
			operand *o = &st->ops[st->nops++];
			o->s = b;
			o->n = (size_t)(s - b);
			o->mem = *b == '[';
		}
		if (s < e)
			s++; /* the comma */
	}
	return 0;
}

static int op_is(const stmt *st, const char *word)
{
	size_t n = strlen(word);
	return st->oplen >= n && memcmp(st->op, word, n) == 0 && (st->oplen == n || st->op[n] == '.');
}

static int op_has(const stmt *st, const char *mod)
{
	size_t n = strlen(mod);
	for (size_t i = 0; i + n <= st->oplen; i++)
		if (st->op[i] == '.' && memcmp(st->op + i + 1, mod, n) == 0 &&
		    (i + 1 + n == st->oplen || st->op[i + 1 + n] == '.'))
			return 1;
	return 0;
}

typedef struct scan {
	const entry *e;
	regs r;
	uint64_t reads; /* parameters read through, or escaped */
	uint64_t writes; /* parameters written through, or escaped */
	int changed;
} scan;

/* The next whole name of operand o at or after *at (one that no name
 * character precedes): its start in *at, its length in *len; 0 when none
 * is left. */
static int next_ident(const operand *o, size_t *at, size_t *len)
{
	size_t i = *at;
	while (i < o->n && (!ident_start((unsigned char)o->s[i]) || (i > 0 && ident_char((unsigned char)o->s[i - 1]))))
		i++;
	if (i >= o->n)
		return 0;
	size_t j = i;
	while (j < o->n && ident_char((unsigned char)o->s[j]))
		j++;
	*at = i;
	*len = j - i;
	return 1;
}

/* The mask an operand carries: its registers' masks; a parameter named
 * outside ld.param has its address taken (counted as read). */
static uint64_t mask_of(scan *sc, const operand *o, int param_load)
{
	uint64_t m = 0;
	for (size_t i = 0, len; next_ident(o, &i, &len); i += len) {
		int pi = param_index(sc->e, o->s + i, len);
		if (pi >= 0) {
			m |= (uint64_t)1 << pi;
			if (!param_load) {
				sc->reads |= (uint64_t)1 << pi;
				sc->writes |= (uint64_t)1 << pi;
			}
		} else {
			reg *g = reg_find(&sc->r, o->s + i, len, 0);
			if (g)
				m |= g->mask;
		}
	}
	return m;
}

/* Gives every register named in operand o the mask m too. */
static void taint(scan *sc, const operand *o, uint64_t m)
{
	if (!m)
		return;
	for (size_t i = 0, len; next_ident(o, &i, &len); i += len) {
		if (param_index(sc->e, o->s + i, len) < 0) {
			reg *g = reg_find(&sc->r, o->s + i, len, 1);
			if ((g->mask | m) != g->mask) {
				g->mask |= m;
				sc->changed = 1;
			}
		}
	}
}

/* What an instruction with a memory operand does there, besides a
 * read: ld, ldu, prefetch and tex only read; anything else (st, atom,
 * red, cp.async's destination, sust, ...) may write. */
static int only_reads(const stmt *st)
{
	return op_is(st, "ld") || op_is(st, "ldu") || op_is(st, "prefetch") || op_is(st, "prefetchu") ||
	       op_is(st, "tex") || op_is(st, "tld4") || op_is(st, "applypriority") || op_is(st, "createpolicy") ||
	       op_is(st, "isspacep") || op_is(st, "cvta");
}

static void one_stmt(scan *sc, const stmt *st)
{
	uint64_t before = sc->reads, wbefore = sc->writes;
	if (op_is(st, "ld") && op_has(st, "param")) {
		/* a parameter's value (or a call's return value) */
		uint64_t m = 0;
		for (int i = 1; i < st->nops; i++)
			m |= mask_of(sc, &st->ops[i], 1);
		if (st->nops > 0)
			taint(sc, &st->ops[0], m);
	} else if (op_is(st, "st") || op_is(st, "prefetch") || op_is(st, "prefetchu") || op_is(st, "discard") ||
	           op_is(st, "applypriority")) {
		/* no read; a register value stored escapes; st and discard
		 * change what the address holds */
		int writes = op_is(st, "st") || op_is(st, "discard");
		for (int i = 0; i < st->nops; i++) {
			uint64_t m = mask_of(sc, &st->ops[i], 0); /* a parameter named: its address taken */
			if (!st->ops[i].mem) {
				sc->reads |= m;
				sc->writes |= m;
			} else if (writes) {
				sc->writes |= m;
			}
		}
	} else if (op_is(st, "call")) {
		for (int i = 0; i < st->nops; i++) {
			uint64_t m = mask_of(sc, &st->ops[i], 0);
			sc->reads |= m;
			sc->writes |= m;
		}
	} else {
		int mem = 0;
		for (int i = 0; i < st->nops; i++)
			mem |= st->ops[i].mem;
		int dest = st->nops > 0 && !st->ops[0].mem;
		uint64_t src = 0, val = 0;
		for (int i = dest; i < st->nops; i++) {
			uint64_t m = mask_of(sc, &st->ops[i], 0);
			src |= m;
			val |= st->ops[i].mem ? 0 : m;
			/* through an address: a read (ld, ldu, atom, red, cp.async,
			 * tex, ... anything but the stores above); beside one, a
			 * value that may be written (atom.exch, atom.cas, red) */
			if (mem)
				sc->reads |= m;
		}
		/* through an address, anything but a load may write: an atomic,
		 * a reduction; a copy (cp.async) writes its first operand only */
		if (mem && !only_reads(st))
			sc->writes |= op_is(st, "cp") && !dest ? mask_of(sc, &st->ops[0], 0) : src;
		/* a value loaded is not the pointer it came through (a pointer
		 * stored to memory escaped at its store) */
		if (dest)
			taint(sc, &st->ops[0], mem && only_reads(st) ? val : src);
	}
	if (sc->reads != before || sc->writes != wbefore)
		sc->changed = 1;
}

int ptx_param_reads(const char *ptx, const char *entry_name, uint64_t *reads, char **why)
{
	uint64_t writes;
	return ptx_param_access(ptx, entry_name, reads, &writes, why);
}

int ptx_param_access(const char *ptx, const char *entry_name, uint64_t *reads, uint64_t *writes, char **why)
{
	*reads = ~(uint64_t)0;
	*writes = ~(uint64_t)0;
	if (!ptx || !entry_name || !*entry_name)
		return fail(why, "no PTX");
	entry e;
	if (find_entry(ptx, entry_name, &e, why) != 0)
		return -1;
	scan sc;
	memset(&sc, 0, sizeof sc);
	sc.e = &e;
	/* statements end with ';' */
	int passes = 0;
	do {
		sc.changed = 0;
		for (const char *s = e.body; *s;) {
			const char *semi = strchr(s, ';');
			size_t n = semi ? (size_t)(semi - s) : strlen(s);
			stmt st;
			if (parse_stmt(s, n, &st) == 0)
				one_stmt(&sc, &st);
			s += n + (semi ? 1 : 0);
		}
	} while (sc.changed && ++passes < 1000);
	*reads = sc.changed ? ~(uint64_t)0 : sc.reads;
	*writes = sc.changed ? ~(uint64_t)0 : sc.writes;
	free(sc.r.slot);
	free(e.body);
	free(e.phold);
	return 0;
}

/* The bytes one thread moves in an ld/st: the vector count (.v2, .v4)
 * times the type's size; 0 when no type is named. */
static int access_bytes(const stmt *st)
{
	static const struct { const char *t; int n; } types[] = {
		{ "b128", 16 }, { "f64", 8 }, { "b64", 8 }, { "u64", 8 }, { "s64", 8 }, { "f32", 4 }, { "b32", 4 },
		{ "u32", 4 }, { "s32", 4 }, { "f16", 2 }, { "bf16", 2 }, { "b16", 2 }, { "u16", 2 }, { "s16", 2 },
		{ "f16x2", 4 }, { "bf16x2", 4 }, { "b8", 1 }, { "u8", 1 }, { "s8", 1 },
	};
	int size = 0;
	for (size_t i = 0; i < sizeof types / sizeof types[0] && !size; i++)
		if (op_has(st, types[i].t))
			size = types[i].n;
	int vec = op_has(st, "v4") ? 4 : op_has(st, "v8") ? 8 : op_has(st, "v2") ? 2 : 1;
	return size * vec;
}

int ptx_access_widths(const char *ptx, const char *entry_name, const char *space, int *ld_bytes, int *st_bytes,
                      char **why)
{
	*ld_bytes = *st_bytes = 0;
	if (!ptx || !entry_name || !*entry_name)
		return fail(why, "no PTX");
	entry e;
	if (find_entry(ptx, entry_name, &e, why) != 0)
		return -1;
	for (const char *s = e.body; *s;) {
		const char *semi = strchr(s, ';');
		size_t n = semi ? (size_t)(semi - s) : strlen(s);
		stmt st;
		if (parse_stmt(s, n, &st) == 0 && op_has(&st, space)) {
			int b = access_bytes(&st);
			if (op_is(&st, "ld") && b > *ld_bytes)
				*ld_bytes = b;
			else if (op_is(&st, "st") && b > *st_bytes)
				*st_bytes = b;
			/* cp.async.ca/cg.shared.global [dst], [src], SIZE: a global load
			 * request of SIZE bytes a thread (its write into shared memory is
			 * not a shared store request: the counters of those leave it out;
			 * the TMA's cp.async.bulk moves whole tiles, not per thread) */
			if (op_is(&st, "cp") && op_has(&st, "async") && !op_has(&st, "bulk") && st.nops >= 3 &&
			    !strcmp(space, "global")) {
				int sz = atoi(st.ops[2].s);
				if (sz > *ld_bytes)
					*ld_bytes = sz;
			}
		}
		s += n + (semi ? 1 : 0);
	}
	free(e.body);
	free(e.phold);
	return 0;
}

/* ---- the module's variables a kernel writes ---- */

/* A PTX constant: 0fXXXXXXXX is a float's bits, 0dXXXXXXXXXXXXXXXX a
 * double's, else a decimal or hexadecimal number. */
static double ptx_number(const char *s)
{
	if (s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
		uint64_t bits = strtoull(s + 2, NULL, 16);
		if (s[1] == 'f' || s[1] == 'F') {
			uint32_t b32 = (uint32_t)bits;
			float f;
			memcpy(&f, &b32, sizeof f);
			return f;
		}
		double d;
		memcpy(&d, &bits, sizeof d);
		return d;
	}
	return strtod(s, NULL);
}

/* The module-scope `.global` declarations of stripped PTX text t (depth 0,
 * outside every body), at most 64. */
static int module_vars(const char *t, ptx_var *v, int max)
{
	int n = 0, depth = 0;
	const char *from = t;
	for (const char *q = t; *q && n < max; q++) {
		if (*q == '{')
			depth++;
		else if (*q == '}') {
			depth--;
			from = q + 1;
		} else if (*q == ';' && depth == 0) {
			const char *s = from;
			from = q + 1;
			while (s < q && isspace((unsigned char)*s))
				s++;
			/* [.visible|.weak|.extern] .global ... NAME[[N]] [= ...], after
			 * the directives of the lines before it (.version, .target) */
			const char *g = s;
			while (g + 7 < q && !(strncmp(g, ".global", 7) == 0 && isspace((unsigned char)g[7]) &&
			                      (g == s || isspace((unsigned char)g[-1]))))
				g++;
			if (g + 7 >= q)
				continue;
			const char *eq = memchr(g, '=', (size_t)(q - g));
			const char *end = eq ? eq : q;
			ptx_var *x = &v[n];
			memset(x, 0, sizeof *x);
			x->count = 1;
			x->managed = strstr(g, ".managed") && strstr(g, ".managed") < end;
			const char *last = NULL;
			size_t llen = 0;
			for (const char *w = g + 7; w < end;) {
				if (*w == '[') {
					x->count = strtoull(w + 1, NULL, 10);
					while (w < end && *w != ']')
						w++;
					continue;
				}
				if (*w == '.' && (w[1] == 'u' || w[1] == 's' || w[1] == 'f' || w[1] == 'b') && isdigit((unsigned char)w[2])) {
					size_t k = 1;
					while (isalnum((unsigned char)w[k]))
						k++;
					snprintf(x->type, sizeof x->type, "%.*s", (int)(k - 1), w + 1);
					w += k;
					continue;
				}
				if (ident_start((unsigned char)*w) && *w != '.' && *w != '%') {
					last = w;
					while (w < end && ident_char((unsigned char)*w) && *w != '.')
						w++;
					llen = (size_t)(w - last);
					continue;
				}
				w++;
			}
			if (!last || *last == '$' || llen >= sizeof x->name)
				continue;
			memcpy(x->name, last, llen);
			x->name[llen] = 0;
			if (eq) {
				const char *vq = eq + 1;
				while (vq < q && isspace((unsigned char)*vq))
					vq++;
				x->has_init = 1;
				x->init = x->count == 1 && *vq != '{' ? ptx_number(vq) : 0;
			}
			n++;
		}
	}
	return n;
}

static int var_index(const ptx_var *v, int n, const char *s, size_t len)
{
	for (int i = 0; i < n; i++)
		if (strlen(v[i].name) == len && memcmp(v[i].name, s, len) == 0)
			return i;
	return -1;
}

/* The mask of variables operand o names or carries in registers. */
static uint64_t var_mask(regs *r, const ptx_var *v, int nv, const operand *o)
{
	uint64_t m = 0;
	for (size_t i = 0, len; next_ident(o, &i, &len); i += len) {
		int vi = var_index(v, nv, o->s + i, len);
		if (vi >= 0) {
			m |= (uint64_t)1 << vi;
		} else {
			reg *g = reg_find(r, o->s + i, len, 0);
			if (g)
				m |= g->mask;
		}
	}
	return m;
}

/* One statement: a destination register takes its sources' variables; a
 * store, atomic or reduction through an address that carries them writes
 * them. 1 when a mask grew. */
static int var_stmt(regs *r, const ptx_var *v, int nv, const stmt *st, uint64_t *written)
{
	int writes = op_is(st, "st") || op_is(st, "atom") || op_is(st, "red");
	int grew = 0;
	for (int i = 0; i < st->nops; i++)
		if (st->ops[i].mem && writes) {
			uint64_t m = var_mask(r, v, nv, &st->ops[i]);
			grew |= (*written | m) != *written;
			*written |= m;
		}
	if (writes || op_is(st, "ld") || st->nops == 0 || st->ops[0].mem)
		return grew;
	uint64_t src = 0;
	for (int i = 1; i < st->nops; i++)
		src |= var_mask(r, v, nv, &st->ops[i]);
	if (!src)
		return grew;
	const operand *d = &st->ops[0];
	for (size_t i = 0, len; next_ident(d, &i, &len); i += len) {
		reg *g = reg_find(r, d->s + i, len, 1);
		if ((g->mask | src) != g->mask) {
			g->mask |= src;
			grew = 1;
		}
	}
	return grew;
}

int ptx_global_writes(const char *ptx, const char *entry_name, ptx_var **vars, int *n, char **why)
{
	*vars = NULL;
	*n = 0;
	if (!ptx || !entry_name || !*entry_name)
		return fail(why, "no PTX");
	entry e;
	if (find_entry(ptx, entry_name, &e, why) != 0)
		return -1;
	char *t = strip_comments(ptx, strlen(ptx));
	ptx_var *v = xcalloc(64, sizeof *v);
	int nv = module_vars(t, v, 64);
	free(t);
	uint64_t written = 0;
	regs r;
	memset(&r, 0, sizeof r);
	int grew = 1;
	for (int passes = 0; grew && nv > 0 && passes < 1000; passes++) {
		grew = 0;
		for (const char *s = e.body; *s;) {
			const char *semi = strchr(s, ';');
			size_t len = semi ? (size_t)(semi - s) : strlen(s);
			stmt st;
			if (parse_stmt(s, len, &st) == 0)
				grew |= var_stmt(&r, v, nv, &st, &written);
			s += len + (semi ? 1 : 0);
		}
	}
	free(r.slot);
	free(e.body);
	free(e.phold);
	int k = 0;
	for (int i = 0; i < nv; i++)
		if (written >> i & 1)
			v[k++] = v[i];
	if (k == 0) {
		free(v);
		v = NULL;
	}
	*vars = v;
	*n = k;
	return 0;
}

int ptx_global_bytes(const char *ptx, uint64_t *bytes)
{
	*bytes = 0;
	if (!ptx)
		return -1;
	char *t = strip_comments(ptx, strlen(ptx));
	int max = 1; /* at most one variable a ".global" */
	for (const char *q = t; (q = strstr(q, ".global")) != NULL; q += 7)
		max++;
	ptx_var *v = xcalloc((size_t)max, sizeof *v);
	int n = module_vars(t, v, max);
	for (int i = 0; i < n; i++) {
		uint64_t size = (uint64_t)strtoul(v[i].type + 1, NULL, 10) / 8;
		if (size == 0)
			size = 1;
		uint64_t b = v[i].count > UINT64_MAX / size ? UINT64_MAX : v[i].count * size;
		*bytes = *bytes > UINT64_MAX - b ? UINT64_MAX : *bytes + b;
	}
	free(v);
	free(t);
	return 0;
}
