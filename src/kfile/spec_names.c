/* spec_names.c: the names a kernel file's expressions use are declared
 * (spec_names.h), so that a misspelt name is an error at `use`, before any
 * compile. */
#include "spec_names.h"
#include "expr.h"
#include "ref.h"
#include "spec_find.h"

#include <string.h>

/* 1 when name (len bytes) is declared: a define or param of the file, a
 * device fact, or (where bufs) a buffer. */
static int declared(const spec *s, const char *name, int len, int bufs)
{
	int b;
	if (spec_name_find(s, name, (size_t)len, &b) >= 0 && (!b || bufs))
		return 1;
	return expr_is_fact(name, len);
}

/* The undeclared names found, up to max. */
typedef struct found {
	spec_unknown *u;
	int n, max;
} found;

/* Records the undeclared names of e (one a name) in f; 1 when f is full. */
static int scan(const spec *s, const spec_expr *e, const char *what, int bufs, found *f)
{
	if (!e->text)
		return 0;
	int pos = 0, at, len;
	while (f->n < f->max && expr_next_name(e->text, &pos, &at, &len)) {
		if (declared(s, e->text + at, len, bufs))
			continue;
		int seen = 0; /* a name is said at its first use, as gcc says an undeclared one */
		for (int i = 0; i < f->n && !seen; i++)
			seen = f->u[i].len == len && strncmp(f->u[i].e->text + f->u[i].at, e->text + at, (size_t)len) == 0;
		if (!seen)
			f->u[f->n++] = (spec_unknown){ e, at, len, what };
	}
	return f->n == f->max;
}

static int scan_launch(const spec *s, const spec_launch *l, found *f)
{
	for (int i = 0; i < l->ngrid; i++)
		if (scan(s, &l->grid[i], "grid", 0, f))
			return 1;
	for (int i = 0; i < l->nblock; i++)
		if (scan(s, &l->block[i], "block", 0, f))
			return 1;
	for (int i = 0; i < l->ncluster; i++)
		if (scan(s, &l->cluster[i], "cluster", 0, f))
			return 1;
	if (scan(s, &l->smem, "smem", 0, f) || scan(s, &l->bytes, "bytes", 0, f) ||
	    scan(s, &l->flops, "flops", 0, f))
		return 1;
	for (int i = 0; i < l->nchecks; i++) {
		/* the words after a reference's arguments (matmul's tn) are not names */
		const ref_fn *rf = l->checks[i].is_kernel ? NULL : ref_find(l->checks[i].ref);
		int n = rf && rf->opts && l->checks[i].nargs > rf->nargs - 1 ? rf->nargs - 1 : l->checks[i].nargs;
		for (int j = 0; j < n; j++)
			if (scan(s, &l->checks[i].args[j], "check", 1, f))
				return 1;
	}
	return 0;
}

static void scan_all(const spec *s, found *f)
{
	for (int i = 0; i < s->nvars; i++)
		if (scan(s, &s->vars[i].value, s->vars[i].is_define ? "define" : "param", 0, f))
			return;
	for (int i = 0; i < s->nbufs; i++)
		if (scan(s, &s->bufs[i].count, "buffer size", 0, f))
			return;
	for (int i = 0; i < s->ncheck_at; i++)
		if (scan(s, &s->check_at[i].value, "check at", 0, f))
			return;
	if (scan(s, &s->streams, "streams", 0, f) || scan_launch(s, &s->base, f))
		return;
	for (int i = 0; i < s->ntmaps; i++)
		for (int d = 0; d < s->tmaps[i].rank; d++)
			if (scan(s, &s->tmaps[i].dims[d], "tensormap", 0, f) || scan(s, &s->tmaps[i].box[d], "tensormap", 0, f))
				return;
	for (int i = 0; i < s->nkernels; i++)
		if (scan_launch(s, &s->kernels[i].over, f))
			return;
}

int spec_unknown_names(const spec *s, spec_unknown *u, int max)
{
	found f = { u, 0, max };
	if (max > 0)
		scan_all(s, &f);
	return f.n;
}
