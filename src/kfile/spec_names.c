/* spec_names.c: the names a kernel file's expressions use are declared
 * (spec_names.h), so that a misspelt name is an error at `use`, before any
 * compile. */
#include "spec_names.h"
#include "expr.h"
#include "ref.h"

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

/* Records the first undeclared name of e in *u; 1 when there is one. */
static int scan(const spec *s, const spec_expr *e, const char *what, int bufs, spec_unknown *u)
{
	if (!e->text)
		return 0;
	int pos = 0, at, len;
	while (expr_next_name(e->text, &pos, &at, &len))
		if (!declared(s, e->text + at, len, bufs)) {
			u->e = e;
			u->at = at;
			u->len = len;
			u->what = what;
			return 1;
		}
	return 0;
}

static int scan_launch(const spec *s, const spec_launch *l, spec_unknown *u)
{
	for (int i = 0; i < l->ngrid; i++)
		if (scan(s, &l->grid[i], "grid", 0, u))
			return 1;
	for (int i = 0; i < l->nblock; i++)
		if (scan(s, &l->block[i], "block", 0, u))
			return 1;
	for (int i = 0; i < l->ncluster; i++)
		if (scan(s, &l->cluster[i], "cluster", 0, u))
			return 1;
	if (scan(s, &l->smem, "smem", 0, u) || scan(s, &l->bytes, "bytes", 0, u) ||
	    scan(s, &l->flops, "flops", 0, u))
		return 1;
	for (int i = 0; i < l->nchecks; i++) {
		/* the words after a reference's arguments (matmul's tn) are not names */
		const ref_fn *f = l->checks[i].is_kernel ? NULL : ref_find(l->checks[i].ref);
		int n = f && f->opts && l->checks[i].nargs > f->nargs - 1 ? f->nargs - 1 : l->checks[i].nargs;
		for (int j = 0; j < n; j++)
			if (scan(s, &l->checks[i].args[j], "check", 1, u))
				return 1;
	}
	return 0;
}

int spec_unknown_name(const spec *s, spec_unknown *u)
{
	memset(u, 0, sizeof *u);
	for (int i = 0; i < s->nvars; i++)
		if (scan(s, &s->vars[i].value, s->vars[i].is_define ? "define" : "param", 0, u))
			return 1;
	for (int i = 0; i < s->nbufs; i++)
		if (scan(s, &s->bufs[i].count, "buffer size", 0, u))
			return 1;
	for (int i = 0; i < s->ncheck_at; i++)
		if (scan(s, &s->check_at[i].value, "check at", 0, u))
			return 1;
	if (scan(s, &s->streams, "streams", 0, u) || scan_launch(s, &s->base, u))
		return 1;
	for (int i = 0; i < s->ntmaps; i++)
		for (int d = 0; d < s->tmaps[i].rank; d++)
			if (scan(s, &s->tmaps[i].dims[d], "tensormap", 0, u) || scan(s, &s->tmaps[i].box[d], "tensormap", 0, u))
				return 1;
	for (int i = 0; i < s->nkernels; i++)
		if (scan_launch(s, &s->kernels[i].over, u))
			return 1;
	return 0;
}
