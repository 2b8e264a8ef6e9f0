/* kstate.c: the state a kernel keeps from launch to launch (kstate.h). */
#include "kstate.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxread.h"

/* A PTX name as C++ writes it: _ZN2ns3nsvE is ns::nsv, _ZL4done (a
 * static) is done; any other name is as it is. */
static void demangle(const char *m, char *out, size_t n)
{
	snprintf(out, n, "%s", m);
	const char *p = m;
	int nested = strncmp(m, "_ZN", 3) == 0;
	if (!nested && strncmp(m, "_ZL", 3) != 0)
		return;
	p += 3;
	sbuf b = {0};
	while (isdigit((unsigned char)*p)) {
		char *e;
		unsigned long len = strtoul(p, &e, 10);
		if (len == 0 || strlen(e) < len)
			break;
		sb_printf(&b, "%s%.*s", b.len ? "::" : "", (int)len, e);
		p = e + len;
		if (!nested)
			break;
	}
	if ((nested ? *p == 'E' && !p[1] : !*p) && b.len)
		snprintf(out, n, "%s", b.s);
	sb_free(&b);
}

/* The header's type of a variable: from its declaration in the source
 * (`__device__ float acc[N];`) where found and of a size that divides
 * the variable's, else from its PTX type. *count: elements of it. */
static dtype var_type(const spec *s, const ptx_var *pv, const char *cname, uint64_t *count)
{
	static const struct { const char *ptx; dtype t; } map[] = {
		{ "u32", DT_UNSIGNED }, { "b32", DT_UNSIGNED }, { "s32", DT_INT }, { "f32", DT_FLOAT },
		{ "f64", DT_DOUBLE }, { "u64", DT_U64 }, { "b64", DT_U64 }, { "s64", DT_LONG },
		{ "u16", DT_U16 }, { "b16", DT_U16 }, { "s16", DT_I16 }, { "u8", DT_U8 }, { "s8", DT_I8 },
	};
	dtype t = DT_U8;
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(pv->type, map[i].ptx) == 0)
			t = map[i].t;
	uint64_t bytes = pv->count * dtype_size(t);
	const char *last = strrchr(cname, ':');
	const char *base = last ? last + 1 : cname;
	size_t bl = strlen(base);
	for (const char *q = s->src && bl ? strstr(s->src, base) : NULL; q; q = strstr(q + 1, base)) {
		if ((q > s->src && (isalnum((unsigned char)q[-1]) || q[-1] == '_')) || isalnum((unsigned char)q[bl]) ||
		    q[bl] == '_')
			continue;
		const char *bol = q;
		while (bol > s->src && bol[-1] != '\n')
			bol--;
		const char *qual = NULL;
		for (const char *w = bol; w < q; w++)
			if (strncmp(w, "__device__", 10) == 0 || strncmp(w, "__managed__", 11) == 0)
				qual = w + (w[2] == 'd' ? 10 : 11);
		if (!qual)
			continue;
		const char *words[8];
		int lens[8], nw = 0;
		for (const char *w = qual; w < q && nw < 8;) {
			if (!isalpha((unsigned char)*w) && *w != '_') {
				w++;
				continue;
			}
			const char *e = w;
			while (e < q && (isalnum((unsigned char)*e) || *e == '_'))
				e++;
			if (!(e - w == 8 && strncmp(w, "volatile", 8) == 0) && !(e - w == 6 && strncmp(w, "static", 6) == 0) &&
			    !(e - w == 10 && strncmp(w, "__device__", 10) == 0)) {
				words[nw] = w;
				lens[nw++] = (int)(e - w);
			}
			w = e;
		}
		dtype ct;
		if (nw > 0 && dtype_from_c(words, lens, nw, &ct) == 0 && dtype_size(ct) > 0 && bytes % dtype_size(ct) == 0) {
			*count = bytes / dtype_size(ct);
			return ct;
		}
		break;
	}
	*count = pv->count;
	return t;
}

static int declared(const spec *s, const char *name)
{
	for (int i = 0; i < s->nbufs; i++)
		if (s->bufs[i].global && strcmp(s->bufs[i].name, name) == 0)
			return 1;
	return 0;
}

/* The variables one kernel (its PTX name) writes, not declared, added to
 * *v (n of them, by name once). */
static int one_kernel(const spec *s, const char *ptx, const char *lowered, kstate_var **v, int *n)
{
	ptx_var *pv = NULL;
	int np = 0;
	if (ptx_global_writes(ptx, lowered, &pv, &np, NULL) != 0)
		return -1;
	for (int i = 0; i < np; i++) {
		char cname[128];
		demangle(pv[i].name, cname, sizeof cname);
		int seen = declared(s, cname);
		for (int j = 0; j < *n && !seen; j++)
			seen = strcmp((*v)[j].name, cname) == 0;
		if (seen)
			continue;
		*v = xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
		kstate_var *x = &(*v)[(*n)++];
		memset(x, 0, sizeof *x);
		snprintf(x->name, sizeof x->name, "%s", cname);
		x->managed = pv[i].managed;
		uint64_t count = 1;
		dtype t = var_type(s, &pv[i], cname, &count);
		char dims[32] = "";
		if (count != 1 || pv[i].count != 1)
			snprintf(dims, sizeof dims, "[%" PRIu64 "]", count);
		char init[48] = "zero";
		if (pv[i].has_init && count == 1 && pv[i].init != 0)
			snprintf(init, sizeof init, "value(%g)", pv[i].init);
		if (strstr(cname, "::")) /* the header names globals at the file's scope */
			snprintf(x->line, sizeof x->line, "no //@ global names a namespace's variable: move it to the "
			         "file's scope and declare it there");
		else
			snprintf(x->line, sizeof x->line, "//@ global %s %s%s %s output", cname, dtype_name(t), dims, init);
	}
	free(pv);
	return 0;
}

int kstate_find(const spec *s, const cunit *u, int k, kstate_var **v, int *n)
{
	*v = NULL;
	*n = 0;
	const spec_kernel *sk = &s->kernels[k];
	int nk = sk->nsteps > 0 ? sk->nsteps : 1;
	for (int j = 0; j < nk; j++) {
		const char *name = s->kernels[sk->nsteps > 0 ? sk->steps[j] : k].name;
		int ci = cunit_find(u, name);
		if (ci < 0 || !u->ptx || one_kernel(s, u->ptx, u->lowered[ci], v, n) != 0) {
			free(*v);
			*v = NULL;
			*n = 0;
			return -1;
		}
	}
	return 0;
}

void kstate_note_once(app *a, const cunit *u, int k)
{
	const spec *s = a->file.sp;
	char key[512]; /* "\nPATH\tKERNEL\n": the list starts with a newline */
	snprintf(key, sizeof key, "\n%s\t%s\n", s->path, s->kernels[k].name);
	if (!a->state_said.len)
		sb_putc(&a->state_said, '\n');
	if (strstr(a->state_said.s, key))
		return;
	sb_puts(&a->state_said, key + 1);
	kstate_var *v = NULL;
	int n = 0;
	if (kstate_find(s, u, k, &v, &n) != 0 || n == 0)
		return;
	sbuf line = {0};
	for (int i = 0; i < n; i++)
		sb_printf(&line, "%s'%s'", i ? (i + 1 == n ? " and " : ", ") : "", v[i].name);
	sb_printf(&line, " %s written by the kernel and reset by nothing, so each launch starts where the last one "
	          "ended; to reset %s before each launch: ", n == 1 ? "is" : "are", n == 1 ? "it" : "them");
	for (int i = 0; i < n; i++)
		sb_printf(&line, "%s%s", i ? "; " : "", v[i].line);
	app_note(a, "%s: %s", s->kernels[k].name, line.s);
	sb_free(&line);
	free(v);
}
