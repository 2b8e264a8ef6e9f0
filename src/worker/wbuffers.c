/* wbuffers.c: stage 2 of a request: the run's device buffers, reused from
 * the pool where their contents allow, else allocated; not yet written
 * (the fill stage writes them). */
#include "wbuffers.h"

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

/* Whether an output needs a device copy of its initial contents: to reset
 * it before every timed launch when no memset will do. */
static int needs_pristine(const plan *p, int i, const pbuf *e)
{
	return p->t.do_time && p->bufs[i].output && e->pat == PAT_NONE && e->bytes > 0;
}

/* Whether a pristine copy already made is still worth keeping: its buffer
 * is still an output reset by copying (a check-only run then resets it
 * from the device, not the host). Should it stand in the way of new
 * allocations, the stage drops the pool and starts again. */
static int keeps_pristine(const plan *p, int i, const pbuf *e)
{
	return p->bufs[i].output && e->pat == PAT_NONE && e->bytes > 0;
}

/* The signatures of the plan's buffers: what their contents depend on. */
static void signatures(const plan *p, buffer_sig *want)
{
	for (int i = 0; i < p->nbufs; i++) {
		const plan_buf *pb = &p->bufs[i];
		buffer_sig_make(&want[i], pb->name, pb->type, pb->count, pb->init, pb->value, pb->managed, p->seed);
		if (pb->init == INIT_LIST) /* the values are what the data depend on */
			want[i].value_bits = fnv1a64(&p->list[pb->list_off], pb->list_n * sizeof p->list[0]);
	}
}

/* The pooled buffers whose signature matches move to their new places
 * (with their contents), the others are freed. Returns how many stay, or
 * -1 on an error. */
static int match_pool(wrun *r, wpool *pool, const buffer_sig *want)
{
	const plan *p = r->p;
	buffer_sig have[PLAN_MAX_BUFS];
	int hidx[PLAN_MAX_BUFS], match[PLAN_MAX_BUFS], nhave = 0;
	for (int j = 0; j < PLAN_MAX_BUFS; j++)
		if (pool->buf[j].d && !pool->buf[j].module) { /* a global went with its module */
			have[nhave] = pool->buf[j].sig;
			hidx[nhave++] = j;
		}
	buffer_sig_match(have, nhave, want, p->nbufs, match);
	for (int i = 0; i < p->nbufs; i++)
		if (p->bufs[i].global)
			match[i] = -1; /* a variable of this run's module */
	pbuf next[PLAN_MAX_BUFS];
	int kept[PLAN_MAX_BUFS] = {0}, reused = 0, ret = 0;
	memset(next, 0, sizeof next);
	for (int i = 0; i < p->nbufs; i++)
		if (match[i] >= 0) {
			next[i] = pool->buf[hidx[match[i]]];
			kept[hidx[match[i]]] = 1;
			reused++;
		}
	for (int j = 0; j < PLAN_MAX_BUFS; j++)
		if (!kept[j] && pool_release(r, &pool->buf[j]) != 0)
			ret = -1;
	memcpy(pool->buf, next, sizeof next);
	return ret != 0 ? -1 : reused;
}

/* What the new allocations need (the new buffers, their pristine copies,
 * the largest scratch copy of a check against another kernel), in *need;
 * pristine copies no longer worth keeping go. 0, or -1 on an error. */
static int need_of(wrun *r, wpool *pool, const buffer_sig *want, uint64_t *need)
{
	const plan *p = r->p;
	uint64_t scratch = 0;
	*need = 0;
	for (int i = 0; i < p->nbufs; i++) {
		const plan_buf *pb = &p->bufs[i];
		pbuf *e = &pool->buf[i];
		e->verified = 0;
		if (!e->d) {
			e->sig = want[i];
			e->bytes = (size_t)(pb->count * dtype_size(pb->type));
			pattern_of(pb, &e->pat, &e->pval);
			if (!pb->global)
				*need += e->bytes ? e->bytes : 1;
		}
		if (e->pristine && !keeps_pristine(p, i, e)) {
			CUresult x = cu.MemFree(e->pristine);
			e->pristine = 0;
			if (w_ck(r, x, "cuMemFree") != 0)
				return -1;
		}
		if (needs_pristine(p, i, e) && !e->pristine)
			*need += e->bytes;
		if (p->t.do_check)
			for (int j = 0; j < p->nchecks; j++)
				if (p->checks[j].kind == CHECK_KERNEL && p->checks[j].out == i && e->bytes > scratch)
					scratch = e->bytes;
	}
	*need += scratch;
	return 0;
}

/* Global i: the variable of the run's module, of the size declared. */
static int take_global(wrun *r, pbuf *e, CUmodule mod, const plan_buf *pb)
{
	size_t bytes = 0;
	CUresult x = cu.ModuleGetGlobal(&e->d, &bytes, mod, pb->sym);
	if (x != CUDA_SUCCESS) {
		memset(e, 0, sizeof *e);
		return w_fail(r, cu_is_sticky(x), "global '%s': cuModuleGetGlobal('%s') failed: %s", pb->name, pb->sym,
		              cu_errstr(x));
	}
	e->module = 1;
	if (bytes != e->bytes) {
		memset(e, 0, sizeof *e);
		return w_fail(r, W_ERROR, "global '%s' is %zu bytes in the module, %zu declared", pb->name, bytes,
		              (size_t)(pb->count * dtype_size(pb->type)));
	}
	e->dirty = 1;
	return 0;
}

/* The missing buffers allocated (a new one is dirty until written), then
 * the missing pristine copies into fresh->pristine (one joins its buffer
 * only once written). 0; 1 short of device memory; -1 an error. */
static int allocate(wrun *r, wpool *pool, CUmodule mod, wfresh *fresh)
{
	const plan *p = r->p;
	for (int i = 0; i < p->nbufs; i++) {
		pbuf *e = &pool->buf[i];
		if (e->d)
			continue;
		if (p->bufs[i].global) {
			if (take_global(r, e, mod, &p->bufs[i]) != 0)
				return -1;
			fresh->made++;
			continue;
		}
		char what[128];
		snprintf(what, sizeof what, "buffer '%s'", p->bufs[i].name);
		CUresult x = w_dalloc_try(r, &e->d, e->bytes, p->bufs[i].managed, what);
		if (x != CUDA_SUCCESS) {
			memset(e, 0, sizeof *e);
			return x == CUDA_ERROR_OUT_OF_MEMORY ? 1 : -1;
		}
		e->dirty = 1;
		fresh->made++;
	}
	for (int i = 0; i < p->nbufs; i++) {
		pbuf *e = &pool->buf[i];
		if (!needs_pristine(p, i, e) || e->pristine)
			continue;
		char what[128];
		snprintf(what, sizeof what, "the initial copy of buffer '%s'", p->bufs[i].name);
		CUresult x = w_dalloc_try(r, &fresh->pristine[i], e->bytes, 0, what);
		if (x != CUDA_SUCCESS)
			return x == CUDA_ERROR_OUT_OF_MEMORY ? 1 : -1;
	}
	return 0;
}

/* Makes pool->buf[i] buffer i of the plan: the pooled buffers whose
 * signature matches stay (with their contents), the others are freed, the
 * missing ones allocated. 0: done; 1: short of device memory (*need: what
 * the new allocations need; nothing reported); -1: an error, reported. */
static int take(wrun *r, wpool *pool, CUmodule mod, uint64_t *need, wfresh *fresh)
{
	buffer_sig want[PLAN_MAX_BUFS];
	memset(fresh, 0, sizeof *fresh);
	signatures(r->p, want);
	int reused = match_pool(r, pool, want);
	if (reused < 0)
		return -1;
	fresh->reused = reused;
	if (need_of(r, pool, want, need) != 0)
		return -1;
	size_t fr = 0, tot = 0;
	if (w_ck(r, cu.MemGetInfo(&fr, &tot), "cuMemGetInfo") != 0)
		return -1;
	if (*need > fr)
		return 1;
	int rc = allocate(r, pool, mod, fresh);
	if (rc != 0)
		pool_fresh_free(fresh);
	return rc;
}

int buffers_stage(wrun *r, wpool *pool, CUmodule mod, wfresh *fresh)
{
	uint64_t need = 0;
	for (int attempt = 0;; attempt++) {
		int rc = take(r, pool, mod, &need, fresh);
		if (rc <= 0)
			return rc;
		/* Short of device memory: start again once without the pool (what
		 * it holds may be in the way); then report what the whole plan
		 * needs, as a fresh worker would. */
		int held = pool_held(pool);
		if (pool_drop(r, pool) != 0)
			return -1;
		if (attempt == 0 && held) {
			w_trace(r, "short of device memory: the pool is dropped");
			continue;
		}
		size_t f = 0, tot = 0;
		if (w_ck(r, cu.MemGetInfo(&f, &tot), "cuMemGetInfo") != 0)
			return -1;
		char a[32], b[32];
		return w_fail(r, W_ERROR, "buffers need %s but only %s of device memory is free",
		             w_bytes(need, a, sizeof a), w_bytes(f, b, sizeof b));
	}
}
