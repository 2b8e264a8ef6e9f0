/* wtmap.c: a launch's CUtensorMap arguments (`//@ tensormap`), made
 * with cuTensorMapEncodeTiled for the buffers the launch sees. The front
 * end checked the driver's rules (plan_tmap.c); a refusal here still names
 * the //@ line. */
#include "wtmap.h"

#include <string.h>

int w_tensormaps(wrun *r, kargs *ka, const plan_launch *l, const CUdeviceptr *ptrs)
{
	const plan *p = r->p;
	for (int i = 0; i < l->nargs; i++) {
		if (l->args[i].kind != ARG_TMAP)
			continue;
		const plan_tmap *t = &p->tmaps[l->args[i].buf];
		if (!cu.TensorMapEncodeTiled)
			return w_fail(r, W_ERROR, "%s: this driver has no cuTensorMapEncodeTiled (CUDA 12 or later)", t->where);
		CUtensorMap m;
		memset(&m, 0, sizeof m);
		CUresult e = cu.TensorMapEncodeTiled(&m, t->dtype, (unsigned)t->rank, (void *)(uintptr_t)ptrs[t->buf],
		                                     (const unsigned long long *)t->dims,
		                                     (const unsigned long long *)t->strides, t->box, t->estrides,
		                                     t->interleave, t->swizzle, t->l2promo, t->oobfill);
		if (e != CUDA_SUCCESS)
			return w_fail(r, W_ERROR, "%s: cuTensorMapEncodeTiled refused it: %s", t->where, cu_errstr(e));
		memcpy(ka->v[i].tm, &m, sizeof m);
	}
	return 0;
}
