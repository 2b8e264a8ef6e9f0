/* wprepare.c: the first stage of a request: the plan from the wire
 * checked before anything is done with it, the context waited for (the
 * first request fills host copies meanwhile), the roofs measured once,
 * the L2 flush made, the module loaded and its kernels found. */
#include "wprepare.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "wlock.h"

/* A plan from the wire, checked before anything is done with it. */
static int check_launch(wrun *r, const plan_launch *l)
{
	const plan *p = r->p;
	if (l->nargs < 0 || l->nargs > PLAN_MAX_ARGS)
		return w_fail(r, W_ERROR, "kernel '%s' has %d arguments; at most %d are supported",
		             l->name, l->nargs, PLAN_MAX_ARGS);
	for (int i = 0; i < l->nargs; i++) {
		const plan_arg *a = &l->args[i];
		if (a->kind <= ARG_NONE || a->kind > ARG_TMAP)
			return w_fail(r, W_ERROR, "kernel '%s' parameter %d has a type that cannot be passed",
			             l->name, i + 1);
		if (a->kind == ARG_PTR && (a->buf < 0 || a->buf >= p->nbufs))
			return w_fail(r, W_ERROR, "kernel '%s' parameter %d names no buffer", l->name, i + 1);
		if (a->kind == ARG_TMAP && (a->buf < 0 || a->buf >= p->ntmaps || p->tmaps[a->buf].buf < 0 ||
		                            p->tmaps[a->buf].buf >= p->nbufs))
			return w_fail(r, W_ERROR, "kernel '%s' parameter %d names no tensor map", l->name, i + 1);
	}
	for (int i = 0; i < 3; i++)
		if (l->grid[i] == 0 || l->block[i] == 0)
			return w_fail(r, W_ERROR, "kernel '%s' has an empty launch: grid %ux%ux%u, block %ux%ux%u",
			             l->name, l->grid[0], l->grid[1], l->grid[2],
			             l->block[0], l->block[1], l->block[2]);
	return 0;
}

static int validate_plan(wrun *r)
{
	const plan *p = r->p;
	if (p->nbufs < 0 || p->nbufs > PLAN_MAX_BUFS)
		return w_fail(r, W_ERROR, "%d buffers; at most %d are supported", p->nbufs, PLAN_MAX_BUFS);
	for (int i = 0; i < p->nbufs; i++) {
		const plan_buf *b = &p->bufs[i];
		size_t es = dtype_size(b->type);
		if (es == 0)
			return w_fail(r, W_ERROR, "buffer '%s' has an unknown element type", b->name);
		if (b->count > ((uint64_t)1 << 47) || b->count > (uint64_t)(SIZE_MAX / 8))
			return w_fail(r, W_ERROR, "buffer '%s' is too large (%" PRIu64 " elements)", b->name, b->count);
		if (b->init == INIT_LIST && (p->nlist > PLAN_MAX_LIST || b->list_off > p->nlist ||
		                             b->list_n > p->nlist - b->list_off ||
		                             b->list_n != b->count * (uint64_t)dtype_lanes(b->type)))
			return w_fail(r, W_ERROR, "global '%s' has a bad list of values", b->name);
		if (b->global && (!memchr(b->sym, 0, sizeof b->sym) || !b->sym[0]))
			return w_fail(r, W_ERROR, "global '%s' has no symbol", b->name);
	}
	if (p->ntmaps < 0 || p->ntmaps > PLAN_MAX_TMAPS)
		return w_fail(r, W_ERROR, "%d tensor maps; at most %d are supported", p->ntmaps, PLAN_MAX_TMAPS);
	for (int i = 0; i < p->ntmaps; i++)
		if (p->tmaps[i].rank < 1 || p->tmaps[i].rank > 5 || !memchr(p->tmaps[i].where, 0, sizeof p->tmaps[i].where))
			return w_fail(r, W_ERROR, "tensor map %d has a bad shape", i + 1);
	if (check_launch(r, &p->launch) != 0)
		return -1;
	if (p->nsteps < 0 || p->nsteps > PLAN_MAX_STEPS)
		return w_fail(r, W_ERROR, "%d steps; at most %d are supported", p->nsteps, PLAN_MAX_STEPS);
	for (int j = 0; j < p->nsteps; j++)
		if (check_launch(r, &p->steps[j]) != 0)
			return -1;
	if (p->nsteps > 0 && p->nchunks != 0)
		return w_fail(r, W_ERROR, "a sequence runs on device buffers, not in chunks");
	if (p->nchunks < 0 || p->nchunks > PLAN_MAX_CHUNKS)
		return w_fail(r, W_ERROR, "%d chunks; at most %d are supported", p->nchunks, PLAN_MAX_CHUNKS);
	for (int i = 0; i < p->nbufs; i++) {
		const plan_buf *b = &p->bufs[i];
		if (!b->copy_in && !b->copy_out)
			continue;
		if (b->managed || b->global || p->nchunks == 0)
			return w_fail(r, W_ERROR, "buffer '%s' is copied from the host, but is %s", b->name,
			              b->managed ? "managed" : b->global ? "a global" : "in no pipeline");
		for (int c = 0; c < p->nchunks; c++) {
			const plan_chunk *k = &p->chunks[c];
			uint64_t end = p->nchunks > 1 || b->per ? (k->start + k->len) * b->per : b->count;
			if (k->len > b->count || k->start > b->count || end > b->count || (p->nchunks > 1 && !b->per))
				return w_fail(r, W_ERROR, "chunk %d of buffer '%s' is outside it", c + 1, b->name);
		}
	}
	if (p->nchecks < 0 || p->nchecks > PLAN_MAX_CHECKS)
		return w_fail(r, W_ERROR, "%d checks; at most %d are supported", p->nchecks, PLAN_MAX_CHECKS);
	for (int i = 0; i < p->nchecks; i++) {
		const plan_check *c = &p->checks[i];
		if (c->out < 0 || c->out >= p->nbufs)
			return w_fail(r, W_ERROR, "check %d names no output buffer", i + 1);
		if (c->kind == CHECK_KERNEL) {
			if (check_launch(r, &c->other) != 0)
				return -1;
		} else if (c->kind == CHECK_REF) {
			if (c->nargs < 0 || c->nargs > SPEC_MAX_CHECK_ARGS)
				return w_fail(r, W_ERROR, "check of '%s' has %d arguments", p->bufs[c->out].name, c->nargs);
			for (int j = 0; j < c->nargs; j++)
				if (c->args[j].kind == ARG_PTR && (c->args[j].buf < 0 || c->args[j].buf >= p->nbufs))
					return w_fail(r, W_ERROR, "check of '%s': argument %d names no buffer",
					             p->bufs[c->out].name, j + 1);
		} else {
			return w_fail(r, W_ERROR, "check %d has an unknown kind", i + 1);
		}
	}
	return 0;
}

/* The function of a launch in the module, with its dynamic shared memory
 * allowed. */
static int get_function(wrun *r, CUmodule mod, const plan_launch *l, CUfunction *fn)
{
	const char *symbol = kernel_symbol(l);
	CUresult e = cu.ModuleGetFunction(fn, mod, symbol);
	if (e == CUDA_ERROR_NOT_FOUND)
		return w_fail(r, W_ERROR, "kernel '%s' is not in the compiled module (looked for '%s')", l->name, symbol);
	if (w_ck(r, e, "cuModuleGetFunction") != 0)
		return -1;
	if (l->smem == 0)
		return 0;
	int static_smem = 0;
	if (cu.FuncGetAttribute &&
	    cu.FuncGetAttribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, *fn) != CUDA_SUCCESS)
		static_smem = 0;
	if ((uint64_t)l->smem + (uint64_t)(static_smem > 0 ? static_smem : 0) <= 48 * KiB)
		return 0;
	e = cu.FuncSetAttribute(*fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)l->smem);
	if (e != CUDA_SUCCESS)
		return w_fail(r, cu_is_sticky(e), "kernel '%s' asks for %u bytes of dynamic shared memory "
		             "(%d static): cuFuncSetAttribute failed: %s", l->name, l->smem, static_smem,
		             cu_errstr(e));
	return 0;
}

/* The roofs, once per worker (the host link when asked for): measured, so
 * alone on the GPU. */
static int measure_roofs(wrun *r, wstart *st, wroofs *rf, const wtimer *tm)
{
	const plan *p = r->p;
	if (rf->roof_done && !(p->measure_link && !rf->link_done))
		return 0;
	if (w_gpu_lock(r, &st->info) != 0)
		return -1;
	measure_roof(r, rf, tm);
	if (p->measure_link && r->res->status == RES_OK)
		measure_link(r, rf, tm);
	w_gpu_unlock();
	return r->res->status == RES_OK ? 0 : -1;
}

/* The module and the kernels of the launch and of the checks. */
static int load_kernels(wrun *r, const void *image, wkernels *k)
{
	const plan *p = r->p;
	if (w_ck(r, cu.ModuleLoadData(&k->mod, image), "cuModuleLoadData") != 0)
		return -1;
	k->have_mod = 1;
	k->image = image;
	if (get_function(r, k->mod, &p->launch, &k->fn) != 0)
		return -1;
	for (int j = 0; j < p->nsteps; j++)
		if (get_function(r, k->mod, &p->steps[j], &k->step_fn[j]) != 0)
			return -1;
	if (p->t.do_check)
		for (int i = 0; i < p->nchecks; i++)
			if (p->checks[i].kind == CHECK_KERNEL &&
			    get_function(r, k->mod, &p->checks[i].other, &k->other[i]) != 0)
				return -1;
	return 0;
}

int prepare_stage(wrun *r, wstart *st, wpool *pool, wroofs *rf, wtimer *tm, const void *image, wkernels *k)
{
	const plan *p = r->p;
	memset(k, 0, sizeof *k);
	if (validate_plan(r) != 0)
		return -1;
	int first = !st->ctx_waited;
	if (first)
		w_trace(NULL, "start-up: the first request arrived");
	if (first && !p->info_only)
		pool_early_fill(r, pool);
	const char *no_ctx = start_ctx_wait(st); /* the run's first device call follows */
	if (first)
		w_trace(r, "the context: waited %.2f ms for it", st->ctx_wait_ms);
	if (no_ctx)
		return w_fail(r, W_FATAL, "%s", no_ctx);
	if (p->info_only) {
		if (w_ck(r, cu.ModuleLoadData(&k->mod, image), "cuModuleLoadData") != 0)
			return -1;
		k->have_mod = 1;
		start_join(st); /* NVML */
		return get_function(r, k->mod, &p->launch, &k->fn);
	}
	if (measure_roofs(r, st, rf, tm) != 0)
		return -1;
	if ((p->t.do_time || p->nmetrics > 0) && p->t.flush && ensure_flush(r, tm) != 0)
		return -1;
	return load_kernels(r, image, k);
}
