/* wrecheck.c: stage 6 of a request: the last of the timed launches
 * compared with the checked launch. A kernel that keeps state from launch
 * to launch (a __device__ flag that makes later launches return early, an
 * array accumulated and never cleared) passes its check on its first
 * launch and is timed at what the others do: the last launch, made as the
 * timed ones were (wtime.c), on outputs reset to their initial contents,
 * must compute what the checked one did. The same bits pass at once; other
 * bits (float atomics add in another order) are compared with the wanted
 * values at the check's tolerance: a float or double output on the GPU
 * against a device copy of the checked one (outhash.h's recmp_verdict),
 * the rest, and what the GPU cannot decide, on the host. Every output's
 * hash or comparison is queued, then one wait takes them all. */
#include "wrecheck.h"

#include <math.h>
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

/* The count check i compares: 1 for a reference that defines out[0] only. */
static uint64_t compared_count(const plan *p, const outsums *s, int i, uint64_t n)
{
	const plan_check *pc = &p->checks[i];
	const ref_fn *f = pc->kind == CHECK_REF ? ref_find(pc->ref) : NULL;
	return s->have_key[i] && f && f->scalar_out && n > 1 ? 1 : n;
}

/* Check i's output, whose bits differ from those hashed (h, or NULL when
 * no hash was taken): compared with the wanted values at the check's
 * tolerance (a verdict on the same bits found first). 1 with *cr
 * compared; 0 not compared (no wanted values); -1 an error. */
static int compare_again(wrun *r, const wcontents *c, wchecks *ck, int i, const uint64_t *h, cmp_result *cr)
{
	const plan *p = r->p;
	const plan_check *pc = &p->checks[i];
	const plan_buf *pb = &p->bufs[pc->out];
	const pbuf *ob = &c->pool->buf[pc->out];
	uint64_t n = pb->count * (uint64_t)dtype_lanes(pb->type);
	uint64_t cn = compared_count(p, &ck->sums, i, n);
	int keyed = ck->sums.have_key[i] && h;
	const cmp_result *seen = keyed ? verdict_get(&ck->verdicts, &ck->sums.key[i], pc->tol, cn, ob->bytes, h) : NULL;
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
	if (keyed)
		verdict_put(&ck->verdicts, &ck->sums.key[i], pc->tol, cn, ob->bytes, h, cr);
	return 1;
}

/* How check i's output is compared: not at all, on the GPU against its
 * copy, by a hash queued, by a hash taken at once (odd bytes). */
enum { BY_NONE, BY_RECMP, BY_HASH, BY_HASH_NOW };

static int queue_one(wrun *r, const wcontents *c, wchecks *ck, int i, int *by)
{
	const plan *p = r->p;
	const outsums *s = &ck->sums;
	const plan_buf *pb = &p->bufs[p->checks[i].out];
	const pbuf *ob = &c->pool->buf[p->checks[i].out];
	uint64_t n = pb->count * (uint64_t)dtype_lanes(pb->type);
	*by = BY_NONE;
	if (!s->have[i])
		return 0;
	if (s->copy[i] && recmp_type(pb->type) && compared_count(p, s, i, n) == n) {
		int k = gpu_recmp_queue(r, &ck->hash, ob->d, s->copy[i], n, pb->type, i);
		if (k <= 0) {
			*by = BY_RECMP;
			return k;
		}
	}
	int k = gpu_outhash_queue(r, &ck->hash, ob->d, ob->bytes, i);
	*by = k == 0 ? BY_HASH : BY_HASH_NOW;
	return k < 0 ? -1 : 0;
}

/* Element k of buffer b after the last launch: its value, the value
 * wanted where the comparison did not give it (from copy, when not 0), and
 * whether it holds the buffer's initial contents (left unwritten). */
static int describe(wrun *r, const wcontents *c, int b, CUdeviceptr copy, int64_t k, result *res)
{
	dtype t = dtype_scalar(r->p->bufs[b].type);
	size_t esz = dtype_size(t);
	unsigned char got[16], init[16], want[16];
	res->timed_index = k;
	if (k < 0 || esz > sizeof got)
		return 0;
	CUdeviceptr at = c->pool->buf[b].d + (CUdeviceptr)k * esz;
	if (w_ck(r, cu.MemcpyDtoH(got, at, esz), "cuMemcpyDtoH") != 0)
		return -1;
	res->timed_got = buffer_get(got, t, 0);
	if (copy) {
		if (w_ck(r, cu.MemcpyDtoH(want, copy + (CUdeviceptr)k * esz, esz), "cuMemcpyDtoH") != 0)
			return -1;
		res->timed_want = buffer_get(want, t, 0);
	}
	int e = contents_element(r, c, b, (uint64_t)k, esz, init);
	if (e < 0)
		return -1;
	res->timed_unwritten = e == 0 && memcmp(got, init, esz) == 0;
	return 0;
}

/* Check i's verdict from its slot (or a comparison on the host): *state
 * TIMED_*, TIMED_NOT when nothing was there to compare with; with
 * TIMED_DIFFERS, what was found in res. */
static int judge(wrun *r, const wcontents *c, wchecks *ck, int i, int by, const uint64_t *slot, int *state)
{
	const plan *p = r->p;
	const outsums *s = &ck->sums;
	const pbuf *ob = &c->pool->buf[p->checks[i].out];
	const char *name = p->bufs[p->checks[i].out].name;
	uint64_t h[2] = { slot[6], slot[7] };
	recmp_sums rs = { 0 };
	int v = RECMP_UNSURE;
	*state = TIMED_NOT;
	if (by == BY_RECMP) {
		recmp_unpack(slot, &rs);
		v = recmp_verdict(&rs, p->checks[i].tol, s->have_key[i] ? s->err[i] : 0, s->have_key[i] ? s->scale[i] : 0);
		w_trace(r, "'%s' against its copy on the GPU: %llu of its elements differ in bits, %llu bad non-finite: %s",
		        name, (unsigned long long)rs.ndiff, (unsigned long long)rs.nbad,
		        v == RECMP_SAME ? "the same" : v == RECMP_CLOSE ? "within the tolerance"
		        : v == RECMP_DIFFERS ? "beyond it" : "not sure: on the host");
	} else if (by == BY_HASH_NOW && gpu_outhash(r, &ck->hash, ob->d, ob->bytes, h) < 0) {
		return -1;
	} else if (h[0] == s->h[i][0] && h[1] == s->h[i][1]) {
		v = RECMP_SAME;
	}
	if (v == RECMP_SAME || v == RECMP_CLOSE) {
		*state = v == RECMP_SAME ? TIMED_SAME : TIMED_CLOSE;
		return 0;
	}
	cmp_result cr;
	int got = compare_again(r, c, ck, i, by == BY_RECMP ? NULL : h, &cr);
	if (got < 0)
		return -1;
	if (got == 0 && v != RECMP_DIFFERS) {
		w_trace(r, "'%s': the last launch's bits differ, and nothing is kept to compare them with", name);
		return 0;
	}
	*state = got == 0 || !cr.ok ? TIMED_DIFFERS : TIMED_CLOSE;
	if (*state != TIMED_DIFFERS || r->res->timed_check == TIMED_DIFFERS)
		return 0;
	result *res = r->res;
	snprintf(res->timed_buf, sizeof res->timed_buf, "%s", name);
	if (got) {
		res->timed_err = cr.rel_err;
		res->timed_want = cr.want;
		return describe(r, c, p->checks[i].out, 0, cr.bad_index, res);
	}
	double sc = rs.nfin ? sqrt(rs.ss_want / (double)rs.nfin) : 0;
	res->timed_err = rs.nfin ? sqrt(rs.ss_diff / (double)rs.nfin) / (sc > 0 ? sc : 1) : 0;
	return describe(r, c, p->checks[i].out, s->copy[i], rs.first_not ? (int64_t)~rs.first_not : -1, res);
}

/* A sequence's step output b (no check names it) from its slot: compared
 * on the GPU with its copy, a float or double one within the loosest of
 * the checks' tolerances (what the GPU is not sure of is not held against
 * it), one of other 4- or 8-byte elements bit for bit; else by its hash.
 * *state as judge's. */
static int judge_step(wrun *r, const wcontents *c, wchecks *ck, int b, int by, const uint64_t *slot, int *state)
{
	const plan *p = r->p;
	const outsums *s = &ck->sums;
	double tol = 0;
	for (int i = 0; i < p->nchecks; i++)
		if (p->checks[i].tol > tol)
			tol = p->checks[i].tol;
	uint64_t h[2] = { slot[6], slot[7] };
	const pbuf *ob = &c->pool->buf[b];
	recmp_sums rs = { 0 };
	int v;
	if (by == BY_RECMP) {
		recmp_unpack(slot, &rs);
		v = !recmp_type(p->bufs[b].type) ? (rs.ndiff ? RECMP_DIFFERS : RECMP_SAME) : recmp_verdict(&rs, tol, 0, 0);
	} else {
		if (by == BY_HASH_NOW && gpu_outhash(r, &ck->hash, ob->d, ob->bytes, h) < 0)
			return -1;
		v = h[0] == s->step_h[b][0] && h[1] == s->step_h[b][1] ? RECMP_SAME : RECMP_DIFFERS;
	}
	w_trace(r, "'%s', an output of the steps: %s", p->bufs[b].name,
	        v == RECMP_SAME ? "the same bits" : v == RECMP_CLOSE ? "within the tolerance"
	        : v == RECMP_DIFFERS ? "other values" : "not sure: not compared");
	*state = v == RECMP_SAME ? TIMED_SAME : v == RECMP_CLOSE ? TIMED_CLOSE : v == RECMP_DIFFERS ? TIMED_DIFFERS : TIMED_NOT;
	if (*state != TIMED_DIFFERS || r->res->timed_check == TIMED_DIFFERS)
		return 0;
	result *res = r->res;
	snprintf(res->timed_buf, sizeof res->timed_buf, "%s", p->bufs[b].name);
	double sc = rs.nfin ? sqrt(rs.ss_want / (double)rs.nfin) : 0;
	res->timed_err = recmp_type(p->bufs[b].type) && rs.nfin ? sqrt(rs.ss_diff / (double)rs.nfin) / (sc > 0 ? sc : 1) : NAN;
	return by == BY_RECMP ? describe(r, c, b, s->step_copy[b], rs.first_not ? (int64_t)~rs.first_not : -1, res) : 0;
}

/* Step output b's comparison queued into its slot (queue_one's *by). */
static int queue_step(wrun *r, const wcontents *c, wchecks *ck, int b, int *by)
{
	const outsums *s = &ck->sums;
	const pbuf *ob = &c->pool->buf[b];
	const plan_buf *pb = &r->p->bufs[b];
	size_t esz = dtype_size(dtype_scalar(pb->type));
	int slot = PLAN_MAX_CHECKS + b;
	*by = BY_NONE;
	if (!s->step_have[b])
		return 0;
	if (s->step_copy[b] && (esz == 4 || esz == 8)) {
		/* other types than float and double, bit for bit through the kernel of their width */
		int k = gpu_recmp_queue(r, &ck->hash, ob->d, s->step_copy[b], ob->bytes / esz, esz == 4 ? DT_FLOAT : DT_DOUBLE, slot);
		if (k <= 0) {
			*by = BY_RECMP;
			return k;
		}
	}
	int k = gpu_outhash_queue(r, &ck->hash, ob->d, ob->bytes, slot);
	*by = k == 0 ? BY_HASH : BY_HASH_NOW;
	return k < 0 ? -1 : 0;
}

int recheck_stage(wrun *r, const wcontents *c, wchecks *ck)
{
	const plan *p = r->p;
	result *res = r->res;
	outsums *s = &ck->sums;
	res->timed_check = TIMED_NOT;
	res->timed_index = -1;
	if (!s->last)
		return 0;
	uint64_t t0 = now_ns();
	int by[GPU_SLOTS] = { 0 };
	int k = gpu_slots_clear(r, &ck->hash);
	if (k != 0)
		return k < 0 ? -1 : 0; /* no hash kernel: not compared */
	for (int i = 0; i < p->nchecks; i++)
		if (queue_one(r, c, ck, i, &by[i]) != 0)
			return -1;
	for (int b = 0; b < p->nbufs; b++)
		if (queue_step(r, c, ck, b, &by[PLAN_MAX_CHECKS + b]) != 0)
			return -1;
	uint64_t(*slots)[GPU_SLOT_BYTES / 8] = xcalloc(GPU_SLOTS, sizeof *slots);
	int rc = gpu_slots_take(r, &ck->hash, slots);
	for (int i = 0; rc == 0 && i < GPU_SLOTS; i++) {
		int state = TIMED_NOT;
		if (by[i] != BY_NONE && i < PLAN_MAX_CHECKS)
			rc = judge(r, c, ck, i, by[i], slots[i], &state);
		else if (by[i] != BY_NONE)
			rc = judge_step(r, c, ck, i - PLAN_MAX_CHECKS, by[i], slots[i], &state);
		if (rc == 0 && state > res->timed_check)
			res->timed_check = state;
	}
	free(slots);
	if (rc != 0)
		return -1;
	double cmp_ms = ms_since(t0);
	res->timed_ms += cmp_ms;
	w_trace(r, "the last launch against the %s one: %s (%.3f ms in all: %.3f kept at the %s launch, %.3f the last "
	        "launch, %.3f the comparison, %.3f the samples' resets)", s->from_check ? "checked" : "first",
	        res->timed_check == TIMED_SAME    ? "the same bits"
	        : res->timed_check == TIMED_CLOSE ? "the same values within the tolerance"
	        : res->timed_check == TIMED_DIFFERS ? "other values"
	                                            : "not compared",
	        res->timed_ms, s->keep_ms, s->from_check ? "checked" : "first", s->launch_ms, cmp_ms, s->resets_ms);
	return 0;
}
