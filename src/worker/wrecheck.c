/* wrecheck.c: stage 6 of a request: the last of the timed launches
 * compared with the checked launch. A kernel that keeps state from launch
 * to launch (a __device__ flag that makes later launches return early, an
 * array accumulated and never cleared) passes its check on its first
 * launch and is timed at what the others do: the last launch, made as the
 * timed ones were (wtime.c), on outputs reset to their initial contents,
 * must compute what the checked one did. The same bits pass at once; other
 * bits (float atomics add in another order) are compared with the wanted
 * values at the check's tolerance. */
#include "wrecheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The wanted values of check i for the comparison: the reference's, from
 * the cache, or a copy of an earlier launch's output downloaded into *owned.
 * NULL when there are none (the cache let them go): not compared. */
static const void *wanted(wrun *r, wchecks *ck, int i, uint64_t n, size_t bytes, dtype *wt, void **owned)
{
	const plan *p = r->p;
	const plan_buf *pb = &p->bufs[p->checks[i].out];
	const outsums *s = &ck->sums;
	*owned = NULL;
	if (s->have_key[i]) {
		uint64_t cn = 0;
		const void *w = ref_cache_get(&ck->refs, &s->key[i], wt, &cn);
		return w && cn == n ? w : NULL;
	}
	if (!s->copy[i])
		return NULL;
	char what[128];
	snprintf(what, sizeof what, "the earlier copy of buffer '%s'", pb->name);
	void *h = stage_host_array(r, bytes, what);
	if (!h)
		return NULL;
	if (bytes && w_ck(r, cu.MemcpyDtoH(h, s->copy[i], bytes), "cuMemcpyDtoH") != 0) {
		free(h);
		return NULL;
	}
	*wt = pb->type;
	*owned = h;
	return h;
}

/* Check i's output, whose bits differ from those hashed: compared with the
 * wanted values at the check's tolerance (a verdict on the same bits found
 * first). 1 with *cr compared; 0 not compared (no wanted values); -1 an
 * error. */
static int compare_again(wrun *r, const wcontents *c, wchecks *ck, int i, const uint64_t h[2], cmp_result *cr)
{
	const plan *p = r->p;
	const plan_check *pc = &p->checks[i];
	const plan_buf *pb = &p->bufs[pc->out];
	const pbuf *ob = &c->pool->buf[pc->out];
	uint64_t n = pb->count * (uint64_t)dtype_lanes(pb->type);
	const ref_fn *f = pc->kind == CHECK_REF ? ref_find(pc->ref) : NULL;
	uint64_t cn = ck->sums.have_key[i] && f && f->scalar_out && n > 1 ? 1 : n;
	const cmp_result *seen =
		ck->sums.have_key[i] ? verdict_get(&ck->verdicts, &ck->sums.key[i], pc->tol, cn, ob->bytes, h) : NULL;
	if (seen) {
		*cr = *seen;
		return 1;
	}
	dtype wt;
	void *owned = NULL;
	const void *want = wanted(r, ck, i, n, ob->bytes, &wt, &owned);
	if (!want)
		return r->res->status == RES_OK ? 0 : -1;
	int how = stage_compare(r, c->staging, ob->d, pb->name, pb->type, want, wt, cn, pc->tol, cr);
	if (how == 1) {
		char what[96];
		snprintf(what, sizeof what, "buffer '%s'", pb->name);
		void *got = stage_get(r, c->staging, ob->bytes, what);
		how = got && w_ck(r, cu.MemcpyDtoH(got, ob->d, ob->bytes), "cuMemcpyDtoH") == 0 ? 0 : -1;
		if (how == 0)
			ref_compare_typed(got, pb->type, want, wt, cn, pc->tol, cr);
	}
	free(owned);
	if (how != 0)
		return -1;
	if (ck->sums.have_key[i])
		verdict_put(&ck->verdicts, &ck->sums.key[i], pc->tol, cn, ob->bytes, h, cr);
	return 1;
}

int recheck_stage(wrun *r, const wcontents *c, wchecks *ck)
{
	const plan *p = r->p;
	result *res = r->res;
	outsums *s = &ck->sums;
	res->timed_check = TIMED_NOT;
	if (!s->last)
		return 0;
	uint64_t t0 = now_ns();
	for (int i = 0; i < p->nchecks; i++) {
		if (!s->have[i])
			continue;
		const pbuf *ob = &c->pool->buf[p->checks[i].out];
		uint64_t h[2];
		int k = gpu_outhash(r, &ck->hash, ob->d, ob->bytes, h);
		if (k < 0)
			return -1;
		if (k > 0)
			break; /* no hash kernel: not compared */
		int state = TIMED_SAME;
		cmp_result cr;
		if (h[0] != s->h[i][0] || h[1] != s->h[i][1]) {
			int got = compare_again(r, c, ck, i, h, &cr);
			if (got < 0)
				return -1;
			if (got == 0) {
				w_trace(r, "'%s': the last launch's bits differ, and nothing is kept to compare them with",
				        p->bufs[p->checks[i].out].name);
				continue;
			}
			state = cr.ok ? TIMED_CLOSE : TIMED_DIFFERS;
		}
		if (state > res->timed_check) {
			res->timed_check = state;
			if (state == TIMED_DIFFERS) {
				snprintf(res->timed_buf, sizeof res->timed_buf, "%s", p->bufs[p->checks[i].out].name);
				res->timed_err = cr.rel_err;
			}
		}
	}
	res->timed_ms += ms_since(t0);
	w_trace(r, "the last launch against the %s one: %s (%.3f ms in all)", s->from_check ? "checked" : "first",
	        res->timed_check == TIMED_SAME    ? "the same bits"
	        : res->timed_check == TIMED_CLOSE ? "the same values within the tolerance"
	        : res->timed_check == TIMED_DIFFERS ? "other values"
	                                            : "not compared",
	        res->timed_ms);
	return 0;
}
