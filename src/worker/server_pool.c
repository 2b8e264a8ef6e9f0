/* server_pool.c: the GPU worker's device buffers, kept from run to run. */
#include "server.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The initial contents of a buffer as one memset, when they are one
 * repeated byte or one repeated 32-bit word (never for random or iota). */
static void pattern_of(const plan_buf *pb, int *pat, unsigned int *val)
{
	size_t es = dtype_size(pb->type);
	*pat = PAT_NONE;
	*val = 0;
	/* globals are written from the host: a few bytes, in constant memory */
	if (pb->init == INIT_RANDOM || pb->init == INIT_IOTA || pb->init == INIT_LIST || pb->global ||
	    es == 0 || es > 8)
		return;
	unsigned char e[8];
	buffer_fill(e, pb->type, 1, pb->init, pb->value, 0);
	int same = 1;
	for (size_t i = 1; i < es; i++)
		if (e[i] != e[0])
			same = 0;
	if (same) {
		*pat = PAT_D8;
		*val = e[0];
	} else if (es == 4 || (es == 8 && memcmp(e, e + 4, 4) == 0)) {
		uint32_t v;
		memcpy(&v, e, 4);
		*pat = PAT_D32;
		*val = v;
	}
}

/* Frees a pooled buffer (r NULL: quietly, when the worker leaves). */
int pool_release(wrun *r, pbuf *e)
{
	int ret = 0;
	if (e->d && !e->module) {
		CUresult x = cu.MemFree(e->d);
		if (r && w_ck(r, x, "cuMemFree") != 0)
			ret = -1;
	}
	if (e->pristine) {
		CUresult x = cu.MemFree(e->pristine);
		if (r && w_ck(r, x, "cuMemFree") != 0)
			ret = -1;
	}
	free(e->host);
	memset(e, 0, sizeof *e);
	return ret;
}

static int pool_drop(wrun *r)
{
	int ret = 0;
	for (int i = 0; i < PLAN_MAX_BUFS; i++)
		if (pool_release(r, &r->ws->pool[i]) != 0)
			ret = -1;
	return ret;
}

static int pool_held(const wstate *ws)
{
	for (int i = 0; i < PLAN_MAX_BUFS; i++)
		if (ws->pool[i].d)
			return 1;
	return 0;
}

/* The host copy of buffer i's initial contents, made on first need. Never
 * written once made (the references read it on a thread of their own
 * while the run goes on); freed only when its buffer leaves the pool, in
 * pool_take before the references start, or when the worker leaves. */
void *pool_host_of(wrun *r, int i)
{
	pbuf *e = B(r, i);
	if (!e->host)
		e->host = w_early_take(r, i, e->bytes);
	if (e->host)
		return e->host;
	const plan_buf *pb = &r->p->bufs[i];
	char what[96];
	snprintf(what, sizeof what, "buffer '%s'", pb->name);
	void *h = w_hmalloc(r, e->bytes, what);
	if (!h)
		return NULL;
	buffer_fill(h, pb->type, pb->count, pb->init, pb->value, buffer_seed(r->p->seed, pb->name));
	if (pb->init == INIT_LIST) /* the values given, as scalars (checked against the plan's list) */
		for (uint32_t k = 0; k < pb->list_n; k++)
			buffer_put(h, dtype_scalar(pb->type), k, r->p->list[pb->list_off + k]);
	e->host = h;
	return h;
}

/* Writes buffer i's initial contents into dst: one memset, else a copy of
 * the pristine device copy (POOL_PRISTINE, when there is one), else a
 * random stream written on the GPU (unless POOL_FROM_HOST), else an upload
 * of the host copy (through the staging area when it can). */
int pool_init_dev(wrun *r, int i, CUdeviceptr dst, int how)
{
	pbuf *e = B(r, i);
	if (e->bytes == 0)
		return 0;
	if (e->pat == PAT_D8)
		return w_ck(r, cu.MemsetD8(dst, (unsigned char)e->pval, e->bytes), "cuMemsetD8");
	if (e->pat == PAT_D32)
		return w_ck(r, cu.MemsetD32(dst, e->pval, e->bytes / 4), "cuMemsetD32");
	if ((how & POOL_PRISTINE) && e->pristine && e->pristine != dst)
		return w_ck(r, cu.MemcpyDtoD(dst, e->pristine, e->bytes), "cuMemcpyDtoD");
	if (!(how & POOL_FROM_HOST)) {
		int f = fill_random(r, i, dst);
		if (f <= 0) {
			if (f == 0)
				r->filled += e->bytes;
			return f;
		}
	}
	void *h = pool_host_of(r, i);
	if (!h)
		return -1;
	r->uploaded += e->bytes;
	/* a managed buffer goes up whole, as its download comes down */
	int s = r->p->bufs[i].managed ? 1 : stage_upload(r, dst, h, e->bytes, r->p->bufs[i].name);
	if (s <= 0)
		return s;
	return w_ck(r, cu.MemcpyHtoD(dst, h, e->bytes), "cuMemcpyHtoD");
}

/* Resets every buffer whose device contents may have changed. */
int pool_reset_dirty(wrun *r)
{
	for (int i = 0; i < r->p->nbufs; i++) {
		pbuf *e = B(r, i);
		if (!e->dirty)
			continue;
		if (pool_init_dev(r, i, e->d, POOL_PRISTINE) != 0)
			return -1;
		e->dirty = 0;
	}
	return 0;
}

/* Whether an output needs a device copy of its initial contents: to reset
 * it before every timed launch when no memset will do. */
static int needs_pristine(const plan *p, int i, const pbuf *e)
{
	return p->t.do_time && p->bufs[i].output && e->pat == PAT_NONE && e->bytes > 0;
}

/* Whether a pristine copy already made is still worth keeping: its buffer
 * is still an output reset by copying (a check-only run then resets it
 * from the device, not the host). Should it stand in the way of new
 * allocations, setup drops the pool and starts again. */
static int keeps_pristine(const plan *p, int i, const pbuf *e)
{
	return p->bufs[i].output && e->pat == PAT_NONE && e->bytes > 0;
}

/* Makes pool[i] buffer i of the plan: the pooled buffers whose signature
 * matches stay (with their contents), the others are freed, the missing
 * ones allocated; then every buffer holds its initial contents.
 * 0: done; 1: short of device memory (*need_out: what the new allocations
 * need; nothing reported); -1: an error, reported. */
static int pool_take(wrun *r, uint64_t *need_out, void (*before_write)(wrun *r))
{
	const plan *p = r->p;
	wstate *ws = r->ws;
	buffer_sig have[PLAN_MAX_BUFS], want[PLAN_MAX_BUFS];
	int hidx[PLAN_MAX_BUFS], match[PLAN_MAX_BUFS], nhave = 0;
	for (int j = 0; j < PLAN_MAX_BUFS; j++)
		if (ws->pool[j].d && !ws->pool[j].module) { /* a global went with its module */
			have[nhave] = ws->pool[j].sig;
			hidx[nhave++] = j;
		}
	for (int i = 0; i < p->nbufs; i++) {
		const plan_buf *pb = &p->bufs[i];
		buffer_sig_make(&want[i], pb->name, pb->type, pb->count, pb->init, pb->value, pb->managed, p->seed);
		if (pb->init == INIT_LIST) { /* the values are what the data depend on */
			uint64_t h = 0xcbf29ce484222325ull;
			for (uint32_t k = 0; k < pb->list_n; k++) {
				uint64_t bits;
				memcpy(&bits, &p->list[pb->list_off + k], sizeof bits);
				h = (h ^ bits) * 0x100000001b3ull;
			}
			want[i].value_bits = h;
		}
	}
	buffer_sig_match(have, nhave, want, p->nbufs, match);
	for (int i = 0; i < p->nbufs; i++)
		if (p->bufs[i].global)
			match[i] = -1; /* a variable of this run's module */

	/* The matched buffers move to their new places, the others go. */
	pbuf next[PLAN_MAX_BUFS];
	int kept[PLAN_MAX_BUFS] = {0}, reused = 0, ret = 0;
	memset(next, 0, sizeof next);
	for (int i = 0; i < p->nbufs; i++)
		if (match[i] >= 0) {
			next[i] = ws->pool[hidx[match[i]]];
			kept[hidx[match[i]]] = 1;
			reused++;
		}
	for (int j = 0; j < PLAN_MAX_BUFS; j++)
		if (!kept[j] && pool_release(r, &ws->pool[j]) != 0)
			ret = -1;
	memcpy(ws->pool, next, sizeof next);
	if (ret != 0)
		return -1;

	/* What the new allocations need. */
	uint64_t need = 0, scratch = 0;
	for (int i = 0; i < p->nbufs; i++) {
		const plan_buf *pb = &p->bufs[i];
		pbuf *e = B(r, i);
		e->verified = 0;
		if (!e->d) {
			e->sig = want[i];
			e->bytes = (size_t)(pb->count * dtype_size(pb->type));
			pattern_of(pb, &e->pat, &e->pval);
			if (!pb->global)
				need += e->bytes ? e->bytes : 1;
		}
		if (e->pristine && !keeps_pristine(p, i, e)) {
			CUresult x = cu.MemFree(e->pristine);
			e->pristine = 0;
			if (w_ck(r, x, "cuMemFree") != 0)
				return -1;
		}
		if (needs_pristine(p, i, e) && !e->pristine)
			need += e->bytes;
		if (p->t.do_check)
			for (int j = 0; j < p->nchecks; j++)
				if (p->checks[j].kind == CHECK_KERNEL && p->checks[j].out == i && e->bytes > scratch)
					scratch = e->bytes;
	}
	need += scratch;
	size_t fr = 0, tot = 0;
	if (w_ck(r, cu.MemGetInfo(&fr, &tot), "cuMemGetInfo") != 0)
		return -1;
	*need_out = need;
	if (need > fr)
		return 1;

	/* Allocate. A new buffer is dirty until written; a new pristine copy
	 * joins its buffer only once written. */
	CUdeviceptr newp[PLAN_MAX_BUFS] = {0};
	int nnew = 0;
	for (int i = 0; i < p->nbufs; i++) {
		pbuf *e = B(r, i);
		if (e->d)
			continue;
		char what[128];
		if (p->bufs[i].global) {
			size_t bytes = 0;
			CUresult x = cu.ModuleGetGlobal(&e->d, &bytes, r->mod, p->bufs[i].sym);
			if (x != CUDA_SUCCESS) {
				e->d = 0;
				memset(e, 0, sizeof *e);
				return w_fail(r, cu_is_sticky(x), "global '%s': cuModuleGetGlobal('%s') failed: %s",
				              p->bufs[i].name, p->bufs[i].sym, cu_errstr(x));
			}
			e->module = 1;
			if (bytes != e->bytes) {
				memset(e, 0, sizeof *e);
				return w_fail(r, 0, "global '%s' is %zu bytes in the module, %zu declared",
				              p->bufs[i].name, bytes, (size_t)(p->bufs[i].count * dtype_size(p->bufs[i].type)));
			}
			e->dirty = 1;
			nnew++;
			continue;
		}
		snprintf(what, sizeof what, "buffer '%s'", p->bufs[i].name);
		CUresult x = w_dalloc_try(r, &e->d, e->bytes, p->bufs[i].managed, what);
		if (x != CUDA_SUCCESS) {
			memset(e, 0, sizeof *e);
			return x == CUDA_ERROR_OUT_OF_MEMORY ? 1 : -1;
		}
		e->dirty = 1;
		nnew++;
	}
	for (int i = 0; i < p->nbufs; i++) {
		pbuf *e = B(r, i);
		if (!needs_pristine(p, i, e) || e->pristine)
			continue;
		char what[128];
		snprintf(what, sizeof what, "the initial copy of buffer '%s'", p->bufs[i].name);
		CUresult x = w_dalloc_try(r, &newp[i], e->bytes, 0, what);
		if (x != CUDA_SUCCESS) {
			ret = x == CUDA_ERROR_OUT_OF_MEMORY ? 1 : -1;
			goto out;
		}
	}

	if (before_write)
		before_write(r);
	/* Write the initial contents where they may be missing. A buffer is
	 * verified when this run wrote it from its host copy, a memset or the
	 * GPU fill (not trusting what earlier runs left). */
	uint64_t filled0 = r->filled, uploaded0 = r->uploaded;
	for (int i = 0; i < p->nbufs; i++) {
		pbuf *e = B(r, i);
		int ok = 1;
		if (e->dirty) {
			int via_pristine = e->pat == PAT_NONE && e->pristine;
			if (pool_init_dev(r, i, e->d, POOL_PRISTINE) != 0) {
				ret = -1;
				goto out;
			}
			e->dirty = 0;
			ok = !via_pristine;
		} else {
			ok = 0;
		}
		if (newp[i]) {
			/* from the buffer just written, else from the host copy */
			CUresult x = ok ? cu.MemcpyDtoD(newp[i], e->d, e->bytes) : CUDA_SUCCESS;
			if ((ok && w_ck(r, x, "cuMemcpyDtoD") != 0) || (!ok && pool_init_dev(r, i, newp[i], 0) != 0)) {
				ret = -1;
				goto out;
			}
			e->pristine = newp[i];
			newp[i] = 0;
		} else if (e->pristine) {
			ok = 0;
		}
		e->verified = ok;
	}
	w_trace(r, "buffers: %d reused, %d new, %.1f MiB uploaded, %.1f MiB filled on the GPU", reused, nnew,
	        (double)(r->uploaded - uploaded0) / (double)MiB, (double)(r->filled - filled0) / (double)MiB);
out:
	for (int i = 0; i < p->nbufs; i++)
		if (newp[i])
			cu.MemFree(newp[i]); /* never written: not worth a message of its own */
	return ret;
}

int pool_setup(wrun *r, void (*before_write)(wrun *r))
{
	uint64_t need = 0;
	for (int attempt = 0;; attempt++) {
		int rc = pool_take(r, &need, before_write);
		if (rc <= 0)
			return rc;
		/* Short of device memory: start again once without the pool (what
		 * it holds may be in the way); then report what the whole plan
		 * needs, as a fresh worker would. */
		int held = pool_held(r->ws);
		if (pool_drop(r) != 0)
			return -1;
		if (attempt == 0 && held) {
			w_trace(r, "short of device memory: the pool is dropped");
			continue;
		}
		size_t f = 0, tot = 0;
		if (w_ck(r, cu.MemGetInfo(&f, &tot), "cuMemGetInfo") != 0)
			return -1;
		char a[32], b[32];
		return w_fail(r, 0, "buffers need %s but only %s of device memory is free",
		             w_bytes(need, a, sizeof a), w_bytes(f, b, sizeof b));
	}
}

/* Whether every buffer of the run was written by this run. */
int pool_all_verified(wrun *r)
{
	for (int i = 0; i < r->p->nbufs; i++)
		if (!B(r, i)->verified)
			return 0;
	return 1;
}

/* Writes every buffer not verified (and its pristine copy) again from its
 * host copy (never the GPU fill: this is the way that trusts nothing the
 * GPU made) or memset. */
int pool_reverify(wrun *r)
{
	for (int i = 0; i < r->p->nbufs; i++) {
		pbuf *e = B(r, i);
		if (e->verified)
			continue;
		if (e->pristine && pool_init_dev(r, i, e->pristine, POOL_FROM_HOST) != 0)
			return -1;
		if (pool_init_dev(r, i, e->d, POOL_FROM_HOST) != 0)
			return -1;
		e->dirty = 0;
		e->verified = 1;
	}
	return 0;
}

/* Resets every output the kernel may read to its initial contents before
 * a timed launch, queued on the stream. Returns how many. */
int pool_restore_outputs(wrun *r)
{
	int n = 0;
	for (int i = 0; i < r->p->nbufs; i++) {
		pbuf *e = B(r, i);
		if (!r->p->bufs[i].output || r->p->bufs[i].unread || e->bytes == 0)
			continue;
		CUresult x;
		const char *call;
		if (e->pat == PAT_D8) {
			x = cu.MemsetD8Async(e->d, (unsigned char)e->pval, e->bytes, NULL);
			call = "cuMemsetD8Async";
		} else if (e->pat == PAT_D32) {
			x = cu.MemsetD32Async(e->d, e->pval, e->bytes / 4, NULL);
			call = "cuMemsetD32Async";
		} else if (e->pristine) {
			x = cu.MemcpyDtoDAsync(e->d, e->pristine, e->bytes, NULL);
			call = "cuMemcpyDtoDAsync";
		} else {
			if (pool_init_dev(r, i, e->d, 0) != 0) /* not expected: timing keeps a pristine copy */
				return -1;
			n++;
			continue;
		}
		if (w_ck(r, x, call) != 0)
			return -1;
		n++;
	}
	return n;
}
