/* launch.c: the kernel's arguments and its launches: one launch, or a run
 * on host data, each chunk on its stream (copy in, the kernel on its
 * slice, copy out). */
#include "launch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void w_build_args(kargs *ka, const plan_launch *l, const CUdeviceptr *ptrs)
{
	memset(ka, 0, sizeof *ka);
	for (int i = 0; i < l->nargs; i++) {
		const plan_arg *a = &l->args[i];
		argval *v = &ka->v[i];
		switch (a->kind) {
		case ARG_PTR: v->p = ptrs[a->buf]; break;
		case ARG_I32: v->i32 = (int32_t)a->i; break;
		case ARG_U32: v->u32 = (uint32_t)a->i; break;
		case ARG_I64: v->i64 = a->i; break;
		case ARG_U64: v->u64 = (uint64_t)a->i; break;
		case ARG_F32: v->f32 = (float)a->f; break;
		case ARG_F64: v->f64 = a->f; break;
		default: break;
		}
		ka->params[i] = v;
	}
	ka->params[l->nargs] = NULL;
}

int w_launch(wrun *r, wpool *pool, CUfunction fn, const plan_launch *l, kargs *ka)
{
	return w_launch_on(r, pool, fn, l, ka, NULL);
}

/* Every launch may change every output (a check kernel writes the others)
 * and every input its PTX may write: each is written again from its
 * initial contents before the next run. */
int w_launch_on(wrun *r, wpool *pool, CUfunction fn, const plan_launch *l, kargs *ka, CUstream st)
{
	for (int i = 0; i < r->p->nbufs; i++)
		if (r->p->bufs[i].output || r->p->bufs[i].written)
			pool->buf[i].dirty = 1;
	r->launches++;
	if (l->cluster[0]) {
		if (!cu.LaunchKernelEx)
			return w_fail(r, W_ERROR, "kernel '%s' runs in clusters, but this driver has no cuLaunchKernelEx "
			              "(CUDA 12 or later)", l->name);
		CUlaunchAttribute attr;
		memset(&attr, 0, sizeof attr);
		attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
		attr.value.clusterDim.x = l->cluster[0];
		attr.value.clusterDim.y = l->cluster[1];
		attr.value.clusterDim.z = l->cluster[2];
		CUlaunchConfig cfg = { l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
		                       l->smem, st, &attr, 1 };
		return w_ck(r, cu.LaunchKernelEx(&cfg, fn, ka->params, NULL), "cuLaunchKernelEx");
	}
	return w_ck(r, cu.LaunchKernel(fn, l->grid[0], l->grid[1], l->grid[2],
	                             l->block[0], l->block[1], l->block[2],
	                             l->smem, st, ka->params, NULL), "cuLaunchKernel");
}

/* Where chunk c's slice of buffer i starts, and its bytes: the whole
 * buffer when it is not sliced. */
static void slice_of(const plan *p, int i, int c, size_t *off, size_t *bytes)
{
	const plan_buf *pb = &p->bufs[i];
	size_t es = dtype_size(pb->type);
	if (!pb->per) {
		*off = 0;
		*bytes = (size_t)(pb->count * es);
		return;
	}
	*off = (size_t)(p->chunks[c].start * pb->per * es);
	*bytes = (size_t)(p->chunks[c].len * pb->per * es);
}

int w_run_steps(wrun *r, wpool *pool, wkernels *k, CUstream st)
{
	for (int j = 0; j < r->p->nsteps; j++)
		if (w_launch_on(r, pool, k->step_fn[j], &r->p->steps[j], &k->step_ka[j], st) != 0)
			return -1;
	return 0;
}

int w_run_main(wrun *r, wpool *pool, const whost *wh, wkernels *k)
{
	const plan *p = r->p;
	if (p->nsteps > 0)
		return w_run_steps(r, pool, k, NULL);
	if (p->nchunks <= 0)
		return w_launch(r, pool, k->fn, &p->launch, &k->ka);
	plan_launch *l = xmalloc(sizeof *l);
	kargs *ka = xmalloc(sizeof *ka);
	int rc = 0;
	for (int c = 0; c < p->nchunks && rc == 0; c++) {
		const plan_chunk *ch = &p->chunks[c];
		CUstream st = wh->streams[c];
		CUdeviceptr ptrs[PLAN_MAX_BUFS];
		for (int i = 0; i < p->nbufs; i++) {
			size_t off, bytes;
			slice_of(p, i, c, &off, &bytes);
			ptrs[i] = pool->buf[i].d + (p->bufs[i].per ? off : 0);
			if (p->bufs[i].copy_in && bytes &&
			    (rc = w_ck(r, cu.MemcpyHtoDAsync(ptrs[i], (char *)wh->host[i].in + off, bytes, st),
			               "cuMemcpyHtoDAsync")) != 0)
				break;
		}
		if (rc != 0)
			break;
		*l = p->launch;
		memcpy(l->grid, ch->grid, sizeof l->grid);
		l->smem = ch->smem;
		w_build_args(ka, l, ptrs);
		for (int j = 0; j < l->nargs && j < 32; j++) {
			if (!(p->split_args >> j & 1))
				continue;
			argval *v = &ka->v[j];
			switch (l->args[j].kind) {
			case ARG_I32: v->i32 = (int32_t)ch->len; break;
			case ARG_U32: v->u32 = (uint32_t)ch->len; break;
			case ARG_I64: v->i64 = (int64_t)ch->len; break;
			case ARG_U64: v->u64 = ch->len; break;
			case ARG_F32: v->f32 = (float)ch->len; break;
			case ARG_F64: v->f64 = (double)ch->len; break;
			default: break;
			}
		}
		if ((rc = w_launch_on(r, pool, k->fn, l, ka, st)) != 0)
			break;
		for (int i = 0; i < p->nbufs && rc == 0; i++) {
			size_t off, bytes;
			slice_of(p, i, c, &off, &bytes);
			if (p->bufs[i].copy_out && bytes)
				rc = w_ck(r, cu.MemcpyDtoHAsync((char *)wh->host[i].out + off, pool->buf[i].d + off, bytes, st),
				          "cuMemcpyDtoHAsync");
		}
	}
	free(l);
	free(ka);
	return rc;
}

/* One kernel of the module loaded again, its dynamic shared memory
 * allowed as the first load's was. */
static CUresult function_again(CUmodule mod, const plan_launch *l, CUfunction *fn)
{
	CUresult e = cu.ModuleGetFunction(fn, mod, kernel_symbol(l));
	if (e == CUDA_SUCCESS && l->smem > 48 * 1024)
		e = cu.FuncSetAttribute(*fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)l->smem);
	return e;
}

int w_load_again(const plan *p, wkernels *k, char *err, size_t n)
{
	if (!k->image || !k->have_mod || k->have_first) {
		snprintf(err, n, "the module cannot be loaded again for PC sampling");
		return -1;
	}
	CUmodule mod;
	CUresult e = cu.ModuleLoadData(&mod, k->image);
	const char *call = "cuModuleLoadData";
	if (e == CUDA_SUCCESS) {
		CUfunction fn = NULL, steps[PLAN_MAX_STEPS];
		call = "cuModuleGetFunction";
		e = function_again(mod, &p->launch, &fn);
		for (int j = 0; e == CUDA_SUCCESS && j < p->nsteps; j++)
			e = function_again(mod, &p->steps[j], &steps[j]);
		if (e == CUDA_SUCCESS) {
			k->first_mod = k->mod;
			k->have_first = 1;
			k->mod = mod;
			k->fn = fn;
			for (int j = 0; j < p->nsteps; j++)
				k->step_fn[j] = steps[j];
			return 0;
		}
		(void)cu.ModuleUnload(mod); /* the error said is the lookup's */
	}
	snprintf(err, n, "%s failed when the module was loaded again for PC sampling: %s", call, cu_errstr(e));
	return -1;
}
