/* wfill.c: stage 3 of a request: the run's buffers filled with their
 * initial contents where they may be missing (device buffers, their
 * pristine copies, the host buffers of a run on host data), and the
 * launch's arguments built. */
#include "wfill.h"
#include "wtmap.h"

/* Writes the device buffers and the new pristine copies. A buffer is
 * verified when this run wrote it from its host copy, a memset or the GPU
 * fill (not trusting what earlier runs left). */
static int write_buffers(wrun *r, const wcontents *c, wfresh *fresh)
{
	const plan *p = r->p;
	uint64_t filled0 = r->filled, uploaded0 = r->uploaded;
	for (int i = 0; i < p->nbufs; i++) {
		pbuf *e = &c->pool->buf[i];
		int ok = 0;
		if (e->dirty) {
			int via_pristine = e->pat == PAT_NONE && e->pristine;
			if (contents_write(r, c, i, e->d, CONTENTS_PRISTINE) != 0)
				return -1;
			e->dirty = 0;
			ok = !via_pristine;
		}
		if (fresh->pristine[i]) {
			/* from the buffer just written, else from the host copy */
			CUresult x = ok ? cu.MemcpyDtoD(fresh->pristine[i], e->d, e->bytes) : CUDA_SUCCESS;
			if ((ok && w_ck(r, x, "cuMemcpyDtoD") != 0) ||
			    (!ok && contents_write(r, c, i, fresh->pristine[i], 0) != 0))
				return -1;
			e->pristine = fresh->pristine[i];
			fresh->pristine[i] = 0;
		} else if (e->pristine) {
			ok = 0;
		}
		e->verified = ok;
	}
	w_trace(r, "buffers: %d reused, %d new, %.1f MiB uploaded, %.1f MiB filled on the GPU", fresh->reused,
	        fresh->made, (double)(r->uploaded - uploaded0) / (double)MiB,
	        (double)(r->filled - filled0) / (double)MiB);
	return 0;
}

int fill_stage(wrun *r, const wcontents *c, whost *wh, wfresh *fresh, wkernels *k)
{
	int rc = write_buffers(r, c, fresh);
	pool_fresh_free(fresh);
	if (rc != 0 || pipe_setup(r, wh, c->pool) != 0)
		return -1;
	CUdeviceptr ptrs[PLAN_MAX_BUFS] = {0};
	for (int i = 0; i < r->p->nbufs; i++)
		ptrs[i] = c->pool->buf[i].d;
	w_build_args(&k->ka, &r->p->launch, ptrs);
	for (int j = 0; j < r->p->nsteps; j++)
		w_build_args(&k->step_ka[j], &r->p->steps[j], ptrs);
	if (w_tensormaps(r, &k->ka, &r->p->launch, ptrs) != 0)
		return -1;
	for (int j = 0; j < r->p->nsteps; j++)
		if (w_tensormaps(r, &k->step_ka[j], &r->p->steps[j], ptrs) != 0)
			return -1;
	r->res->setup_ms = ms_since(r->t0);
	w_trace(r, "setup done");
	return 0;
}
