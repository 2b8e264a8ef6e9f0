/* plan.c: from a parsed kernel file and the current values to a launch the
 * worker can run: buffers sized, parameters bound by name, geometry and
 * checks resolved, device limits checked. */
#include "plan.h"
#include "spec_find.h"
#include "ref.h"
#include "report.h"
#include "util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void device_facts(const devinfo *dev, symtab *t)
{
	symtab_set(t, "SM_COUNT", (value){ 0, dev->sm_count, 0 }, 1);
	symtab_set(t, "WARP_SIZE", (value){ 0, dev->warp_size, 0 }, 1);
	symtab_set(t, "L2_BYTES", (value){ 0, dev->l2_bytes, 0 }, 1);
}

/* Evaluates e and prefixes errors with its location. */
static int eval_at(const spec *s, const spec_expr *e, const symtab *t, value *v, char **err)
{
	int col = 0;
	char *msg = NULL;
	if (expr_eval(e->text, t, v, &col, &msg) == 0)
		return 0;
	fail(err, "%s:%d:%d: %s", s->path, e->line, e->col + (col > 0 ? col - 1 : 0), msg);
	free(msg);
	return -1;
}

static int eval_int(const spec *s, const spec_expr *e, const symtab *t, const char *what,
                    int64_t lo, int64_t *out, char **err)
{
	value v;
	if (eval_at(s, e, t, &v, err) != 0)
		return -1;
	if (v.is_float)
		return fail(err, "%s:%d:%d: %s must be an integer, not %g", s->path, e->line, e->col, what, v.f);
	if (v.i < lo)
		return fail(err, "%s:%d:%d: %s is %" PRId64 ", must be at least %" PRId64,
		            s->path, e->line, e->col, what, v.i, lo);
	*out = v.i;
	return 0;
}

/* The next scalar parameter named `name` of the file's kernels (templates
 * aside: their parameter types are not known until instantiated): start
 * with *k = 0, *j = -1; NULL after the last. */
static const kparam *next_scalar(const spec *s, const char *name, int *k, int *j)
{
	for (; *k < s->nkernels; (*k)++, *j = -1) {
		const spec_kernel *sk = &s->kernels[*k];
		if (sk->is_template)
			continue;
		while (++*j < sk->nparams) {
			const kparam *p = &sk->params[*j];
			if (p->kind != ARG_PTR && p->kind != ARG_NONE && p->kind != ARG_TMAP && strcmp(p->name, name) == 0)
				return p;
		}
	}
	return NULL;
}

int plan_param_is_float(const spec *s, const char *name)
{
	int fl = 0, in = 0, k = 0, j = -1;
	for (const kparam *p; (p = next_scalar(s, name, &k, &j)) != NULL;) {
		if (p->kind == ARG_F32 || p->kind == ARG_F64)
			fl = 1;
		else
			in = 1;
	}
	return fl && !in;
}

int plan_param_check(const spec *s, const char *name, value v, char **err)
{
	int k = 0, j = -1;
	for (const kparam *p; (p = next_scalar(s, name, &k, &j)) != NULL;) {
		const char *kn = s->kernels[k].name;
		if (p->kind == ARG_F32 || p->kind == ARG_F64)
			continue;
		if (v.is_float) {
			char buf[64];
			value_format(v, buf, sizeof buf);
			return fail(err, "%s is not a whole number: kernel '%s' takes '%s' as %s", buf, kn, name, p->type);
		}
		if ((p->kind == ARG_I32 && (v.i < INT32_MIN || v.i > INT32_MAX)) ||
		    (p->kind == ARG_U32 && (v.i < 0 || v.i > (int64_t)UINT32_MAX)) ||
		    (p->kind == ARG_U64 && v.i < 0))
			return fail(err, "%" PRId64 " does not fit: kernel '%s' takes '%s' as %s", v.i, kn, name, p->type);
	}
	return 0;
}

int plan_eval_value(const spec *s, const char *name, const char *text, const symtab *t, value *out,
                    int *col, char **err)
{
	const spec_var *v = spec_var_find(s, name);
	int param = v && !v->is_define;
	int fl = param && plan_param_is_float(s, name);
	*col = 0;
	if ((fl ? expr_eval_float : expr_eval)(text, t, out, col, err) != 0)
		return -1;
	/* a whole number written as a float (1e6, 4096.0) is that integer */
	if (param && !fl && out->is_float && out->f == floor(out->f) && fabs(out->f) < 9.2e18)
		*out = (value){ 0, (int64_t)out->f, 0 };
	if (param && plan_param_check(s, name, *out, err) != 0) {
		*col = 0;
		return -1;
	}
	return 0;
}

/* After var i's value failed: when it names a define or param declared
 * below it (not known yet where it is evaluated), says so at that name.
 * 1 when *err was replaced. */
static int declared_below(const spec *s, int i, const symtab *known, char **err)
{
	const spec_var *v = &s->vars[i];
	const char *t = v->value.text;
	for (const char *p = t; *p;) {
		if (!is_ident_start((unsigned char)*p) || (p > t && is_ident_char((unsigned char)p[-1]))) {
			p++;
			continue;
		}
		const char *q = p;
		while (is_ident_char((unsigned char)*q))
			q++;
		int len = (int)(q - p);
		for (int k = i + 1; k < s->nvars; k++)
			if ((int)strlen(s->vars[k].name) == len && strncmp(s->vars[k].name, p, (size_t)len) == 0 &&
			    !symtab_get(known, p, len)) {
				free(*err);
				*err = NULL;
				fail(err, "%s:%d:%d: '%s' is declared below, at line %d: a value can use only the %s "
				     "declared above it", s->path, v->value.line, v->value.col + (int)(p - t),
				     s->vars[k].name, s->vars[k].line, "defines and params");
				return 1;
			}
		p = q;
	}
	return 0;
}

int plan_values(const spec *s, const symtab *overrides, const devinfo *dev, symtab *out, char **err)
{
	memset(out, 0, sizeof *out);
	device_facts(dev, out);
	for (int i = 0; i < s->nvars; i++) {
		const spec_var *v = &s->vars[i];
		const sym *o = overrides ? symtab_get(overrides, v->name, (int)strlen(v->name)) : NULL;
		value val;
		if (o) {
			val = o->v;
		} else if (!v->is_define && plan_param_is_float(s, v->name)) {
			/* a param the kernels take as float or double: float arithmetic */
			int col = 0;
			char *msg = NULL;
			if (expr_eval_float(v->value.text, out, &val, &col, &msg) != 0) {
				fail(err, "%s:%d:%d: %s", s->path, v->value.line,
				     v->value.col + (col > 0 ? col - 1 : 0), msg);
				free(msg);
				declared_below(s, i, out, err);
				symtab_free(out);
				return -1;
			}
		} else if (eval_at(s, &v->value, out, &val, err) != 0) {
			declared_below(s, i, out, err);
			symtab_free(out);
			return -1;
		}
		symtab_set(out, v->name, val, 0);
	}
	return 0;
}

char **plan_defines(const spec *s, const symtab *values, int *n)
{
	char **d = xcalloc((size_t)s->nvars + 1, sizeof *d);
	int k = 0;
	for (int i = 0; i < s->nvars; i++) {
		if (!s->vars[i].is_define)
			continue;
		const sym *v = symtab_get(values, s->vars[i].name, (int)strlen(s->vars[i].name));
		char buf[64] = "";
		if (v)
			value_format(v->v, buf, sizeof buf);
		d[k++] = xasprintf("%s=%s", s->vars[i].name, buf);
	}
	*n = k;
	return d;
}

static const char *kind_word(arg_kind k)
{
	switch (k) {
	case ARG_F32: case ARG_F64: return "floating-point";
	default: return "integer";
	}
}

/* A CUtensorMap parameter: the `//@ tensormap` of its name, passed as
 * `const __grid_constant__` (TMA reads the map where the kernel's
 * parameters are; a copy in local memory is not a tensor map). */
static int bind_tmap(const spec *s, const spec_kernel *sk, const kparam *p, plan_arg *a, char **err)
{
	int m = spec_tmap_find(s, p->name);
	if (m < 0)
		return fail(err, "%s:%d:%d: kernel '%s' parameter '%s' is a CUtensorMap: declare '//@ tensormap %s = "
		            "BUF[ROWS, COLS] box R, C'", s->path, p->line, p->col, sk->name, p->name, p->name);
	if (!strstr(p->type, "__grid_constant__") || !strstr(p->type, "const"))
		return fail(err, "%s:%d:%d: kernel '%s' parameter '%s' is '%s': declare it 'const __grid_constant__ "
		            "CUtensorMap %s' (TMA reads the map from the kernel's parameters)", s->path, p->line, p->col,
		            sk->name, p->name, p->type, p->name);
	a->buf = m;
	return 0;
}

/* Binds kernel k's parameters by name: pointers to buffers, scalars to params. */
static int bind_args(const spec *s, int k, const symtab *t, plan_launch *l, char **err)
{
	const spec_kernel *sk = &s->kernels[k];
	if (sk->nparams > PLAN_MAX_ARGS)
		return fail(err, "%s:%d:%d: kernel '%s' has %d parameters; at most %d are supported",
		            s->path, sk->line, sk->col, sk->name, sk->nparams, PLAN_MAX_ARGS);
	l->nargs = sk->nparams;
	for (int i = 0; i < sk->nparams; i++) {
		const kparam *p = &sk->params[i];
		plan_arg *a = &l->args[i];
		memset(a, 0, sizeof *a);
		a->kind = p->kind;
		if (p->kind == ARG_PTR) {
			int b = spec_buffer_find(s, p->name);
			if (b < 0) {
				sbuf known = {0};
				for (int j = 0; j < s->nbufs; j++)
					sb_printf(&known, "%s%s", j ? ", " : "", s->bufs[j].name);
				fail(err, "%s:%d:%d: kernel '%s' parameter '%s' has no buffer: declare "
				     "'//@ buffer %s TYPE[COUNT]' (buffers: %s)", s->path, p->line, p->col,
				     sk->name, p->name, p->name, known.len ? known.s : "none");
				sb_free(&known);
				return -1;
			}
			if (s->bufs[b].global)
				return fail(err, "%s:%d:%d: kernel '%s' parameter '%s' has the name of global '%s', which is "
				            "the module's variable, not an argument: rename one of them", s->path, p->line,
				            p->col, sk->name, p->name, s->bufs[b].name);
			/* the same scalars bind: a float4 * over a float buffer */
			if (p->elem_known && dtype_scalar(p->elem) != dtype_scalar(s->bufs[b].type))
				return fail(err, "%s:%d:%d: kernel '%s' parameter '%s' is %s but buffer '%s' holds %s",
				            s->path, p->line, p->col, sk->name, p->name, p->type,
				            s->bufs[b].name, dtype_name(s->bufs[b].type));
			a->buf = b;
			continue;
		}
		if (p->kind == ARG_TMAP) {
			if (bind_tmap(s, sk, p, a, err) != 0)
				return -1;
			continue;
		}
		if (p->kind == ARG_NONE)
			return fail(err, "%s:%d:%d: kernel '%s' parameter '%s' has type '%s', which cannot be "
			            "bound (use int, unsigned, long, size_t, float, double or a pointer)",
			            s->path, p->line, p->col, sk->name, p->name, p->type);
		const spec_var *v = spec_var_find(s, p->name);
		if (!v || v->is_define) {
			const char *why = v ? "is a define (a -D macro), not a param" : "has no '//@ param'";
			return fail(err, "%s:%d:%d: kernel '%s' parameter '%s' %s: declare '//@ param %s = VALUE'",
			            s->path, p->line, p->col, sk->name, p->name, why, p->name);
		}
		const sym *val = symtab_get(t, p->name, (int)strlen(p->name));
		if (!val)
			return fail(err, "%s:%d:%d: param '%s' has no value", s->path, v->line, v->col, p->name);
		switch (p->kind) {
		case ARG_F32: case ARG_F64:
			a->f = val->v.is_float ? val->v.f : (double)val->v.i;
			break;
		default:
			if (val->v.is_float)
				return fail(err, "%s:%d:%d: param '%s' is %g, but kernel '%s' takes it as %s '%s'",
				            s->path, v->line, v->col, p->name, val->v.f, sk->name,
				            kind_word(p->kind), p->type);
			a->i = val->v.i;
			if ((p->kind == ARG_I32 && (a->i < INT32_MIN || a->i > INT32_MAX)) ||
			    (p->kind == ARG_U32 && (a->i < 0 || a->i > (int64_t)UINT32_MAX)) ||
			    (p->kind == ARG_U64 && a->i < 0))
				return fail(err, "%s:%d:%d: param '%s' = %" PRId64 " does not fit kernel '%s' "
				            "parameter type '%s'", s->path, v->line, v->col, p->name, a->i,
				            sk->name, p->type);
		}
	}
	return 0;
}

static int eval_dims(const spec *s, const spec_expr *e, int n, const symtab *t, const char *what,
                     const char *kname, uint32_t out[3], char **err)
{
	out[0] = out[1] = out[2] = 1;
	for (int i = 0; i < n; i++) {
		int64_t v;
		char *w = xasprintf("%s %c of kernel '%s'", what, "xyz"[i], kname);
		int r = eval_int(s, &e[i], t, w, 1, &v, err);
		free(w);
		if (r != 0)
			return -1;
		if (v > UINT32_MAX)
			return fail(err, "%s:%d:%d: %s %c of kernel '%s' is %" PRId64 ", over 2^32-1",
			            s->path, e[i].line, e[i].col, what, "xyz"[i], kname, v);
		out[i] = (uint32_t)v;
	}
	return 0;
}

static int build_launch(const spec *s, int k, const symtab *t, const spec_launch *eff,
                        plan_launch *l, char **err)
{
	const spec_kernel *sk = &s->kernels[k];
	memset(l, 0, sizeof *l);
	if (strlen(sk->name) >= PLAN_NAME)
		return fail(err, "%s:%d:%d: kernel name '%s' is too long", s->path, sk->line, sk->col, sk->name);
	strcpy(l->name, sk->name);
	if (eff->ngrid == 0)
		return fail(err, "%s: kernel '%s' has no grid: add '//@ grid EXPR' or '//@ kernel %s grid EXPR'",
		            s->path, sk->name, sk->name);
	if (eff->nblock == 0)
		return fail(err, "%s: kernel '%s' has no block: add '//@ block EXPR' or '//@ kernel %s block EXPR'",
		            s->path, sk->name, sk->name);
	if (eval_dims(s, eff->grid, eff->ngrid, t, "grid", sk->name, l->grid, err) ||
	    eval_dims(s, eff->block, eff->nblock, t, "block", sk->name, l->block, err))
		return -1;
	if (eff->smem.text) {
		int64_t v;
		if (eval_int(s, &eff->smem, t, "smem", 0, &v, err) != 0)
			return -1;
		if (v > INT32_MAX)
			return fail(err, "%s:%d:%d: smem is %" PRId64 " bytes", s->path, eff->smem.line, eff->smem.col, v);
		l->smem = (uint32_t)v;
	}
	if (eff->ncluster > 0) {
		uint32_t c[3];
		if (eval_dims(s, eff->cluster, eff->ncluster, t, "cluster", sk->name, c, err))
			return -1;
		for (int i = 0; i < 3; i++)
			if (l->grid[i] % c[i] != 0)
				return fail(err, "%s:%d:%d: kernel '%s': the grid's %c dimension, %u, is not a multiple of the "
				            "cluster's, %u", s->path, eff->cluster[0].line, eff->cluster[0].col, sk->name,
				            "xyz"[i], l->grid[i], c[i]);
		uint64_t blocks = (uint64_t)c[0] * c[1] * c[2];
		if (blocks > 8)
			return fail(err, "%s:%d:%d: kernel '%s': a cluster of %ux%ux%u = %" PRIu64 " blocks is over the "
			            "portable limit of 8", s->path, eff->cluster[0].line, eff->cluster[0].col, sk->name,
			            c[0], c[1], c[2], blocks);
		memcpy(l->cluster, c, sizeof c);
	}
	return bind_args(s, k, t, l, err);
}

double plan_kernel_check_tol(dtype t)
{
	switch (dtype_scalar(t)) {
	case DT_FLOAT: return 1e-5;
	case DT_DOUBLE: return 1e-12;
	case DT_HALF: return 5e-3; /* two kernels may round in other places */
	case DT_BF16: return 4e-2;
	case DT_E4M3: return 0.125; /* one rounding is up to 2^-4 of a value (ref_default_tol) */
	case DT_E5M2: return 0.25;
	default: return 0;
	}
}

static int build_check(const spec *s, const spec_check *c, const symtab *t, plan_check *pc, char **err)
{
	memset(pc, 0, sizeof *pc);
	pc->line = c->line;
	pc->out = spec_buffer_find(s, c->out);
	if (pc->out < 0)
		return fail(err, "%s:%d:%d: check names unknown buffer '%s'", s->path, c->line, c->col, c->out);
	dtype ot = s->bufs[pc->out].type;
	if (c->is_kernel) {
		if (s->bufs[pc->out].global)
			return fail(err, "%s:%d:%d: global '%s' cannot be checked against another kernel (both would "
			            "write the one variable): check it against a reference", s->path, c->line, c->col,
			            c->out);
		pc->kind = CHECK_KERNEL;
		int k = spec_kernel_find(s, c->ref);
		if (k < 0)
			return fail(err, "%s:%d:%d: unknown kernel '%s' in check", s->path, c->line, c->col, c->ref);
		spec_launch eff;
		spec_effective(s, k, &eff);
		if (build_launch(s, k, t, &eff, &pc->other, err) != 0)
			return -1;
		pc->tol = c->tol > 0 ? c->tol : plan_kernel_check_tol(ot);
		snprintf(pc->ref, sizeof pc->ref, "%s", c->ref);
		return 0;
	}
	const ref_fn *f = ref_find(c->ref);
	if (!f)
		return fail(err, "%s:%d:%d: unknown reference '%s'", s->path, c->line, c->col, c->ref);
	pc->kind = CHECK_REF;
	snprintf(pc->ref, sizeof pc->ref, "%s", c->ref);
	pc->nargs = c->nargs;
	int64_t opts = 0;
	if (f->opts) {
		/* the words after the arguments, as one scalar: its last argument */
		for (int i = f->nargs - 1; i < c->nargs; i++)
			for (int k = 0; f->opts[k]; k++)
				if (strcmp(f->opts[k], c->args[i].text) == 0)
					opts |= (int64_t)1 << k;
		pc->nargs = f->nargs;
		pc->args[f->nargs - 1] = (plan_arg){ .kind = ARG_I64, .i = opts, .f = (double)opts };
	}
	for (int i = 0; i < c->nargs && i < pc->nargs - (f->opts != NULL); i++) {
		const spec_expr *e = &c->args[i];
		plan_arg *a = &pc->args[i];
		int b = spec_buffer_find(s, e->text);
		if (b >= 0) {
			a->kind = ARG_PTR;
			a->buf = b;
			continue;
		}
		value v;
		if (eval_at(s, e, t, &v, err) != 0)
			return -1;
		a->kind = v.is_float ? ARG_F64 : ARG_I64;
		/* a float's integer value where it has one (0 past the range of int64) */
		a->i = !v.is_float ? v.i : isfinite(v.f) && fabs(v.f) < 9.2e18 ? (int64_t)v.f : 0;
		a->f = v.is_float ? v.f : (double)v.i;
	}
	pc->tol = c->tol > 0 ? c->tol : ref_default_tol_opts(f, ot, opts);
	return 0;
}

int plan_chunks(uint64_t n, int k, plan_chunk *out)
{
	if (k < 1 || k > PLAN_MAX_CHUNKS || (uint64_t)k > n)
		return -1;
	uint64_t base = n / (uint64_t)k, extra = n % (uint64_t)k, at = 0;
	for (int i = 0; i < k; i++) {
		memset(&out[i], 0, sizeof out[i]);
		out[i].start = at;
		out[i].len = base + ((uint64_t)i < extra);
		at += out[i].len;
	}
	return 0;
}

void plan_bus(plan *p)
{
	p->bus_h2d = p->bus_d2h = 0;
	for (int i = 0; i < p->nbufs; i++) {
		plan_buf *pb = &p->bufs[i];
		int bound = 0;
		for (int j = 0; j < p->launch.nargs; j++)
			bound |= p->launch.args[j].kind == ARG_PTR && p->launch.args[j].buf == i;
		double bytes = (double)pb->count * (double)dtype_size(pb->type);
		pb->copy_in = bound && pb->host != BUF_DEVICE && (!pb->output || !pb->unread);
		pb->copy_out = bound && pb->host != BUF_DEVICE && pb->output;
		p->bus_h2d += pb->copy_in ? bytes : 0;
		p->bus_d2h += pb->copy_out ? bytes : 0;
	}
}

/* Host buffers: the bytes each way, and the chunks of `//@ streams` (or one
 * chunk of everything), each with the grid and smem its size gives. */
static int plan_pipeline(const spec *s, int k, const symtab *t, const spec_launch *eff, plan *p, char **err)
{
	plan_bus(p);
	for (int i = 0; i < p->nbufs; i++)
		if (p->bufs[i].copy_in || p->bufs[i].copy_out)
			p->nchunks = p->measure_link = 1;
	if (!p->nchunks)
		return 0;
	p->chunks[0].grid[0] = p->launch.grid[0];
	p->chunks[0].grid[1] = p->launch.grid[1];
	p->chunks[0].grid[2] = p->launch.grid[2];
	p->chunks[0].smem = p->launch.smem;
	if (!s->split)
		return 0;
	const spec_var *sv = spec_var_find(s, s->split);
	int64_t nk;
	if (eval_int(s, &s->streams, t, "the number of streams", 1, &nk, err) != 0)
		return -1;
	if (nk > PLAN_MAX_CHUNKS)
		return fail(err, "%s:%d:%d: %" PRId64 " streams: at most %d", s->path, s->streams.line,
		            s->streams.col, nk, PLAN_MAX_CHUNKS);
	const sym *nv = symtab_get(t, s->split, -1);
	if (!nv || nv->v.is_float || nv->v.i < 1)
		return fail(err, "%s:%d:%d: split param '%s' must be a whole number of at least 1", s->path,
		            sv->line, sv->col, s->split);
	uint64_t n = (uint64_t)nv->v.i;
	if (plan_chunks(n, (int)nk, p->chunks) != 0)
		return fail(err, "%s:%d:%d: %" PRId64 " streams for %s = %" PRIu64 ": a chunk would be empty (at most "
		            "%s streams)", s->path, s->streams.line, s->streams.col, nk, s->split, n, s->split);
	p->nchunks = (int32_t)nk;
	const spec_kernel *sk = &s->kernels[k];
	for (int i = 0; i < sk->nparams; i++)
		if (sk->params[i].kind != ARG_PTR && strcmp(sk->params[i].name, s->split) == 0)
			p->split_args |= 1u << i;
	if (!p->split_args)
		return fail(err, "%s:%d:%d: kernel '%s' does not take '%s', the size 'streams' cuts: each chunk's "
		            "kernel learns its size through it", s->path, s->split_line, s->split_col, sk->name, s->split);
	for (int i = 0; i < p->nbufs; i++) {
		plan_buf *pb = &p->bufs[i];
		if (!pb->copy_in && !pb->copy_out)
			continue;
		const spec_buffer *b = &s->bufs[i];
		if (pb->count % n != 0)
			return fail(err, "%s:%d:%d: host buffer '%s' has %" PRIu64 " elements, not a multiple of %s = %"
			            PRIu64 ": 'streams' slices it as %s is cut", s->path, b->count.line, b->count.col,
			            pb->name, pb->count, s->split, n, s->split);
		pb->per = pb->count / n;
	}
	symtab ct = {0};
	for (int i = 0; i < t->n; i++)
		symtab_set(&ct, t->v[i].name, t->v[i].v, t->v[i].hidden);
	int rc = 0;
	for (int c = 0; c < p->nchunks && rc == 0; c++) {
		symtab_set(&ct, s->split, (value){ 0, (int64_t)p->chunks[c].len, 0 }, 0);
		plan_launch *l = xmalloc(sizeof *l);
		rc = build_launch(s, k, &ct, eff, l, err);
		if (rc == 0) {
			memcpy(p->chunks[c].grid, l->grid, sizeof l->grid);
			p->chunks[c].smem = l->smem;
		}
		free(l);
	}
	symtab_free(&ct);
	return rc;
}

/* A global's symbol: as written at namespace scope, mangled inside a
 * namespace (a::b::w is _ZN1a1b1wE). */
static int global_symbol(const spec *s, const spec_buffer *b, plan_buf *pb, char **err)
{
	sbuf msym = {0};
	if (strstr(b->name, "::")) {
		sb_puts(&msym, "_ZN");
		for (const char *q = b->name; *q;) {
			const char *e = strstr(q, "::");
			size_t len = e ? (size_t)(e - q) : strlen(q);
			sb_printf(&msym, "%zu%.*s", len, (int)len, q);
			q = e ? e + 2 : q + len;
		}
		sb_putc(&msym, 'E');
	} else {
		sb_puts(&msym, b->name);
	}
	int long_name = msym.len >= sizeof pb->sym;
	if (!long_name)
		memcpy(pb->sym, msym.s, msym.len + 1);
	sb_free(&msym);
	if (long_name)
		return fail(err, "%s:%d:%d: global name '%s' is too long", s->path, b->line, b->col, b->name);
	return 0;
}

/* A global's list of values, into the plan's list. */
static int global_list(const spec *s, const spec_buffer *b, plan *p, plan_buf *pb, char **err)
{
	uint64_t want = pb->count * (uint64_t)dtype_lanes(b->type);
	if ((uint64_t)b->nlist != want)
		return fail(err, "%s:%d:%d: global '%s' is %s[%" PRIu64 "] (%" PRIu64 " value%s) but the "
		            "list has %d", s->path, b->line, b->col, b->name, dtype_name(b->type), pb->count,
		            want, want == 1 ? "" : "s", b->nlist);
	if (p->nlist + (uint64_t)b->nlist > PLAN_MAX_LIST)
		return fail(err, "%s:%d:%d: the globals' lists hold more than %d values", s->path, b->line,
		            b->col, PLAN_MAX_LIST);
	pb->list_off = p->nlist;
	pb->list_n = (uint32_t)b->nlist;
	memcpy(p->list + p->nlist, b->list, (size_t)b->nlist * sizeof *b->list);
	p->nlist += (uint32_t)b->nlist;
	return 0;
}

/* Buffer i of the file into the plan. */
static int plan_buffer(const spec *s, int i, const symtab *t, plan *p, char **err)
{
	const spec_buffer *b = &s->bufs[i];
	plan_buf *pb = &p->bufs[i];
	if (strlen(b->name) >= sizeof pb->name)
		return fail(err, "%s:%d:%d: buffer name '%s' is too long", s->path, b->line, b->col, b->name);
	strcpy(pb->name, b->name);
	pb->type = b->type;
	int64_t n;
	char *what = xasprintf("size of buffer '%s'", b->name);
	int r = eval_int(s, &b->count, t, what, 1, &n, err);
	free(what);
	if (r != 0)
		return -1;
	/* its bytes (count * element size, to 16 bytes) must fit in 64 bits */
	if ((uint64_t)n > UINT64_MAX / dtype_size(b->type))
		return fail(err, "%s:%d:%d: buffer '%s' is too large (%" PRId64 " elements)", s->path,
		            b->count.line, b->count.col, b->name, n);
	pb->count = (uint64_t)n;
	pb->init = b->init;
	pb->value = b->init_value;
	pb->output = b->output;
	pb->scratch = b->scratch;
	pb->managed = b->managed;
	pb->prefetch = b->prefetch;
	pb->global = b->global;
	pb->host = b->host;
	if (b->global && global_symbol(s, b, pb, err) != 0)
		return -1;
	if (b->init == INIT_LIST && global_list(s, b, p, pb, err) != 0)
		return -1;
	return 0;
}

/* A declared figure (`bytes`, `flops`) of a launch line, or 0 when not given. */
static int eval_figure(const spec *s, const spec_expr *e, const symtab *t, const char *what, double *out,
                       char **err)
{
	int64_t v = 0;
	if (e->text && eval_int(s, e, t, what, 0, &v, err) != 0)
		return -1;
	*out = (double)v;
	return 0;
}

/* A sequence's steps: each its own launch from its own lines (grid, block,
 * smem, bytes, flops); `launch` is the first, named after the sequence. */
static int plan_steps(const spec *s, int k, const symtab *t, plan *p, char **err)
{
	const spec_kernel *sk = &s->kernels[k];
	for (int i = 0; i < p->nbufs; i++)
		if (p->bufs[i].host)
			return fail(err, "%s:%d:%d: sequence '%s': buffer '%s' is on the host, and a sequence runs on "
			            "device buffers", s->path, sk->line, sk->col, sk->name, p->bufs[i].name);
	p->nsteps = sk->nsteps;
	for (int j = 0; j < sk->nsteps; j++) {
		spec_launch eff;
		spec_effective(s, sk->steps[j], &eff);
		if (build_launch(s, sk->steps[j], t, &eff, &p->steps[j], err) != 0 ||
		    eval_figure(s, &eff.bytes, t, "bytes", &p->step_bytes[j], err) != 0 ||
		    eval_figure(s, &eff.flops, t, "flops", &p->step_flops[j], err) != 0)
			return -1;
	}
	p->launch = p->steps[0];
	snprintf(p->launch.name, sizeof p->launch.name, "%s", sk->name);
	return 0;
}

int plan_build(const spec *s, int k, const symtab *t, const devinfo *dev,
               const timing_opts *topt, plan *p, char **err)
{
	memset(p, 0, sizeof *p);
	if (s->nbufs > PLAN_MAX_BUFS)
		return fail(err, "%s: %d buffers declared; at most %d are supported", s->path, s->nbufs, PLAN_MAX_BUFS);
	p->nbufs = s->nbufs;
	for (int i = 0; i < s->nbufs; i++)
		if (plan_buffer(s, i, t, p, err) != 0)
			return -1;
	for (int i = 0; i < s->nlinks; i++)
		p->device_launches |= strcmp(s->links[i], "cudadevrt") == 0;
	if (plan_tmaps(s, t, dev, p, err) != 0)
		return -1;
	spec_launch eff;
	spec_effective(s, k, &eff);
	if (s->kernels[k].nsteps > 0) {
		if (plan_steps(s, k, t, p, err) != 0)
			return -1;
	} else if (build_launch(s, k, t, &eff, &p->launch, err) != 0 || plan_pipeline(s, k, t, &eff, p, err) != 0) {
		return -1;
	}
	if (eff.bytes.text) {
		int64_t v;
		if (eval_int(s, &eff.bytes, t, "bytes", 0, &v, err) != 0)
			return -1;
		p->bytes = (double)v;
	}
	if (eff.flops.text) {
		int64_t v;
		if (eval_int(s, &eff.flops, t, "flops", 0, &v, err) != 0)
			return -1;
		p->flops = (double)v;
	}
	int nc = eff.nchecks < 0 ? 0 : eff.nchecks;
	for (int i = 0; i < nc; i++) {
		if (eff.checks[i].none)
			continue;
		if (build_check(s, &eff.checks[i], t, &p->checks[p->nchecks], err) != 0)
			return -1;
		if (p->checks[p->nchecks].kind == CHECK_KERNEL && strcmp(eff.checks[i].ref, s->kernels[k].name) == 0)
			continue; /* a kernel is not checked against itself */
		p->nchecks++;
	}
	if (topt)
		p->t = *topt;
	p->seed = PLAN_SEED_DEFAULT;
	return 0;
}

/* "path:line:col: " of a //@ line, or "path: " when it was not given. */
static const char *at(const spec *s, const spec_expr *e, char *buf, size_t n)
{
	if (e && e->text)
		snprintf(buf, n, "%s:%d:%d: ", s->path, e->line, e->col);
	else
		snprintf(buf, n, "%s: ", s->path);
	return buf;
}

static int validate_launch(const spec *s, int k, const plan_launch *l, const devinfo *d, int static_smem,
                           char **err)
{
	spec_launch eff;
	spec_effective(s, k, &eff);
	char where[600];
	uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
	for (int i = 0; i < 3; i++)
		if (l->block[i] > (uint32_t)d->max_block[i])
			return fail(err, "%skernel '%s': block %c dimension %u is over the device limit of %d",
			            at(s, &eff.block[i < eff.nblock ? i : 0], where, sizeof where), l->name, "xyz"[i],
			            l->block[i], d->max_block[i]);
	if (threads > (uint64_t)d->max_threads_per_block)
		return fail(err, "%skernel '%s': block of %ux%ux%u = %" PRIu64 " threads is over the limit of %d threads per block",
		            at(s, &eff.block[0], where, sizeof where), l->name, l->block[0], l->block[1], l->block[2],
		            threads, d->max_threads_per_block);
	for (int i = 0; i < 3; i++)
		if ((int64_t)l->grid[i] > d->max_grid[i])
			return fail(err, "%skernel '%s': grid %c dimension %u is over the device limit of %" PRId64,
			            at(s, &eff.grid[i < eff.ngrid ? i : 0], where, sizeof where), l->name, "xyz"[i],
			            l->grid[i], d->max_grid[i]);
	uint64_t smem = (uint64_t)l->smem + (uint64_t)(static_smem > 0 ? static_smem : 0);
	if (smem > (uint64_t)d->max_smem_optin) {
		char a[32], b[32];
		fmt_bytes((double)smem, a, sizeof a);
		fmt_bytes((double)d->max_smem_optin, b, sizeof b);
		return fail(err, "%skernel '%s': shared memory of %s (%d static + %u dynamic) is over the limit of %s per block",
		            at(s, eff.smem.text ? &eff.smem : NULL, where, sizeof where), l->name, a, static_smem,
		            l->smem, b);
	}
	if (l->cluster[0] && d->cc_major < 9)
		return fail(err, "%skernel '%s': thread block clusters need sm_90 or later; this is sm_%d%d",
		            at(s, &eff.cluster[0], where, sizeof where), l->name, d->cc_major, d->cc_minor);
	return 0;
}

int plan_validate_launch(const spec *s, int k, const plan_launch *l, const devinfo *d, int static_smem,
                         char **err)
{
	return validate_launch(s, k, l, d, static_smem, err);
}

int plan_validate(const spec *s, int k, const plan *p, const devinfo *d, int static_smem, char **err)
{
	if (p->nsteps == 0 && validate_launch(s, k, &p->launch, d, static_smem, err) != 0)
		return -1;
	for (int i = 0; i < p->nchecks; i++)
		if (p->checks[i].kind == CHECK_KERNEL) {
			int ok = spec_kernel_find(s, p->checks[i].other.name);
			if (ok >= 0 && validate_launch(s, ok, &p->checks[i].other, d, 0, err) != 0)
				return -1;
		}
	return 0;
}

double timing_wall_cap(const timing_opts *t, double median_s)
{
	double cap = 100 * median_s;
	if (!(cap >= TIMING_SHORT_WALL_S))
		cap = TIMING_SHORT_WALL_S;
	return cap < t->max_wall_s ? cap : t->max_wall_s;
}
