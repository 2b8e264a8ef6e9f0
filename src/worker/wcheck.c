/* wcheck.c: stage 4 of a request: the check pass, the kernel once on
 * fresh outputs, then every output compared with its reference or with
 * another variant. */
#include "wcheck.h"
#include "wtmap.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The reference of a CHECK_REF check, its arguments into ra and the key
 * of its wanted values (n values for the output), without computing them.
 * NULL when the check does not fit its reference (said when say). */
static const ref_fn *ref_key_of(wrun *r, const wpool *pool, const plan_check *c, uint64_t n, ref_arg *ra,
                                ref_key *key, int say)
{
	const plan *p = r->p;
	const plan_buf *ob = &p->bufs[c->out];
	const char *oname = ob->name;
	const ref_fn *f = ref_find(c->ref);
	if (!f) {
		if (say)
			w_fail(r, W_ERROR, "check of '%s': unknown reference '%s'", oname, c->ref);
		return NULL;
	}
	if (c->nargs != f->nargs) {
		if (say)
			w_fail(r, W_ERROR, "check of '%s': %s takes %d argument%s, got %d", oname, f->synopsis,
			       f->nargs, f->nargs == 1 ? "" : "s", c->nargs);
		return NULL;
	}
	memset(ra, 0, SPEC_MAX_CHECK_ARGS * sizeof *ra);
	ref_key_init(key, f->name, ob->type, n);
	for (int j = 0; j < c->nargs; j++) {
		const plan_arg *a = &c->args[j];
		int want_buf = f->argkinds[j] == 'b';
		if (want_buf != (a->kind == ARG_PTR)) {
			if (say)
				w_fail(r, W_ERROR, "check of '%s': argument %d of %s must be %s", oname, j + 1,
				       f->synopsis, want_buf ? "a buffer" : "a number, not a buffer");
			return NULL;
		}
		if (a->kind == ARG_PTR) {
			ra[j].is_buf = 1;
			ra[j].count = p->bufs[a->buf].count * (uint64_t)dtype_lanes(p->bufs[a->buf].type);
			ra[j].name = p->bufs[a->buf].name;
			ra[j].type = p->bufs[a->buf].type;
			ref_key_add_buf(key, &pool->buf[a->buf].sig);
			continue;
		}
		if (a->kind == ARG_F32 || a->kind == ARG_F64) {
			ra[j].f = a->f;
			ra[j].i = isfinite(a->f) && fabs(a->f) < 9.2e18 ? (int64_t)a->f : 0;
		} else {
			ra[j].i = a->i;
			ra[j].f = (double)a->i;
		}
		ref_key_add_scalar(key, ra[j].i, ra[j].f);
	}
	return f;
}

/* The wanted values of a CHECK_REF check: the reference on the initial
 * contents of its buffers, n values of type *wt. From the cache when the
 * same reference ran on the same data before; else computed, and *owned is
 * set to the new array (the caller gives it to the cache with *key).
 * refs NULL: the cache is not looked at (another thread may be using it). */
static const void *ref_want(wrun *r, wpool *pool, ref_cache *refs, const plan_check *c, uint64_t n, dtype *wt,
                            int *scalar_out, ref_key *key, void **owned)
{
	const plan *p = r->p;
	const plan_buf *ob = &p->bufs[c->out];
	const char *oname = ob->name;
	ref_arg ra[SPEC_MAX_CHECK_ARGS];
	*owned = NULL;
	const ref_fn *f = ref_key_of(r, pool, c, n, ra, key, 1);
	if (!f)
		return NULL;
	*scalar_out = f->scalar_out;
	uint64_t cn = 0;
	const void *hit = refs ? ref_cache_get(refs, key, wt, &cn) : NULL;
	if (hit && cn == n) {
		w_trace(r, "reference %s of '%s': cached", f->name, oname);
		return hit;
	}

	uint64_t t0 = now_ns();
	/* CUPLAY_REF_DOUBLES=1: every reference in doubles (to compare) */
	const char *env = getenv("CUPLAY_REF_DOUBLES");
	int doubles = env && env[0] && strcmp(env, "0") != 0;
	for (int j = 0; j < c->nargs; j++)
		if (ra[j].is_buf && !(ra[j].raw = pool_host_of(r, pool, c->args[j].buf)))
			return NULL;
	char *e = NULL;
	void *want = ref_wanted(f, ra, ob->type, n, doubles, wt, &e);
	if (!want) {
		w_fail(r, W_ERROR, "check of '%s': %s", oname, e ? e : "reference failed");
		free(e);
		return NULL;
	}
	w_trace(r, "reference %s of '%s': computed in %.1f ms (%s, kept as %s)", f->name, oname, ms_since(t0),
	        ref_moves(f, ra, ob->type) && !doubles ? "moved in its own type" : "in doubles",
	        dtype_name(*wt));
	*owned = want;
	return want;
}

/* References computed on the host while the GPU runs the checked launch
 * and its outputs come down: those of the checks whose wanted values are
 * not cached (a new configuration's first check), one after the other on a
 * thread of their own (each one's loops on every core). */
struct ref_ahead {
	wrun *r;
	wpool *pool;
	int pending[PLAN_MAX_CHECKS]; /* check i's reference is computed here */
	const void *want[PLAN_MAX_CHECKS];
	void *owned[PLAN_MAX_CHECKS];
	dtype wt[PLAN_MAX_CHECKS];
	int scalar_out[PLAN_MAX_CHECKS];
	ref_key key[PLAN_MAX_CHECKS];
	pthread_t thread;
	int running;
};

static void *ahead_main(void *arg)
{
	ref_ahead *a = arg;
	const plan *p = a->r->p;
	for (int i = 0; i < p->nchecks; i++) {
		if (!a->pending[i])
			continue;
		const plan_check *c = &p->checks[i];
		uint64_t n = p->bufs[c->out].count * (uint64_t)dtype_lanes(p->bufs[c->out].type);
		/* not looked up (the cache is the main thread's): known to be missing */
		a->want[i] = ref_want(a->r, a->pool, NULL, c, n, &a->wt[i], &a->scalar_out[i], &a->key[i], &a->owned[i]);
		if (!a->want[i])
			break; /* its error is recorded; the rest are not needed */
	}
	return NULL;
}

/* Starts the thread for the references not cached; none: nothing runs.
 * The host copies of their buffers are made first, here: the thread only
 * reads them, and nothing writes them until the run ends (check_end).
 * early: before the buffers are written (check_ahead): a check that does
 * not fit its reference is left to say so in its turn. */
static void ahead_start(wrun *r, wpool *pool, ref_cache *refs, ref_ahead *a, int early)
{
	const plan *p = r->p;
	memset(a, 0, sizeof *a);
	a->r = r;
	a->pool = pool;
	int any = 0;
	for (int i = 0; i < p->nchecks; i++) {
		const plan_check *c = &p->checks[i];
		if (c->kind != CHECK_REF)
			continue;
		uint64_t n = p->bufs[c->out].count * (uint64_t)dtype_lanes(p->bufs[c->out].type);
		ref_arg ra[SPEC_MAX_CHECK_ARGS];
		ref_key key;
		dtype wt;
		uint64_t cn = 0;
		if (!ref_key_of(r, pool, c, n, ra, &key, !early))
			break; /* the comparison loop stops there */
		if (ref_cache_get(refs, &key, &wt, &cn) && cn == n)
			continue;
		int have = 1;
		for (int j = 0; j < c->nargs && have; j++)
			if (ra[j].is_buf && !pool_host_of(r, pool, c->args[j].buf))
				have = 0;
		if (!have)
			break; /* said */
		a->pending[i] = 1;
		any = 1;
	}
	if (any && pthread_create(&a->thread, NULL, ahead_main, a) == 0)
		a->running = 1;
	else
		memset(a->pending, 0, sizeof a->pending); /* computed in turn, as before */
	if (a->running)
		w_trace(r, "references started on a thread of their own%s", early ? " before the upload" : "");
}

static void ahead_join(ref_ahead *a)
{
	if (a->running)
		pthread_join(a->thread, NULL);
	a->running = 0;
}

/* After ahead_join: what was computed and not taken is freed. */
static void ahead_free(ref_ahead *a)
{
	for (int i = 0; i < PLAN_MAX_CHECKS; i++)
		free(a->owned[i]);
	memset(a->owned, 0, sizeof a->owned);
}

/* Downloads a device buffer into a new host array (for checks against
 * another kernel). */
static void *download_new(wrun *r, CUdeviceptr d, const plan_buf *pb, size_t bytes)
{
	char what[96];
	snprintf(what, sizeof what, "buffer '%s'", pb->name);
	void *raw = stage_host_array(r, bytes, what);
	if (!raw)
		return NULL;
	if (bytes && w_ck(r, cu.MemcpyDtoH(raw, d, bytes), "cuMemcpyDtoH") != 0) {
		free(raw);
		return NULL;
	}
	return raw;
}

ref_ahead *check_ahead(wrun *r, wpool *pool, wchecks *ck)
{
	if (!r->p->t.do_check)
		return NULL;
	ref_ahead *a = xcalloc(1, sizeof *a);
	ahead_start(r, pool, &ck->refs, a, 1);
	return a;
}

void check_end(ref_ahead **a)
{
	if (!*a)
		return;
	ahead_join(*a);
	ahead_free(*a);
	free(*a);
	*a = NULL;
}

/* What one check pass works with (check_stage's arguments). */
typedef struct pass {
	wrun *r;
	const wcontents *c;
	whost *wh;
	wkernels *k;
	wprintf *pf;
	wchecks *ck;
	ref_ahead *ahead;          /* started early, or by this pass */
	void *kgot[PLAN_MAX_CHECKS]; /* the other variants' outputs */
	int staged;                /* the output now in the download buffer, or -1 */
} pass;

/* The other variants of CHECK_KERNEL checks, each into a scratch copy of
 * its output, downloaded into x->kgot. */
static int run_variants(pass *x)
{
	wrun *r = x->r;
	const plan *p = r->p;
	wpool *pool = x->c->pool;
	for (int i = 0; i < p->nchecks; i++) {
		const plan_check *c = &p->checks[i];
		if (c->kind != CHECK_KERNEL)
			continue;
		const plan_buf *pb = &p->bufs[c->out];
		pbuf *ob = &pool->buf[c->out];
		CUdeviceptr scratch = 0;
		char what[128];
		snprintf(what, sizeof what, "the check copy of buffer '%s'", pb->name);
		if (w_dalloc(r, &scratch, ob->bytes, 0, what) != 0)
			return -1;
		CUdeviceptr ptrs[PLAN_MAX_BUFS];
		for (int j = 0; j < p->nbufs; j++)
			ptrs[j] = pool->buf[j].d;
		ptrs[c->out] = scratch;
		kargs *ka = xmalloc(sizeof *ka);
		w_build_args(ka, &c->other, ptrs);
		int ok = w_tensormaps(r, ka, &c->other, ptrs) == 0 && contents_write(r, x->c, c->out, scratch, CONTENTS_PRISTINE) == 0 &&
		         contents_reset_dirty(r, x->c) == 0 && w_launch(r, pool, x->k->other[i], &c->other, ka) == 0 &&
		         w_ck_kernel(r, cu.CtxSynchronize(), c->other.name) == 0;
		free(ka);
		if (ok) {
			x->kgot[i] = download_new(r, scratch, pb, ob->bytes);
			ok = x->kgot[i] != NULL;
		}
		CUresult e = cu.MemFree(scratch);
		if (ok && w_ck(r, e, "cuMemFree") != 0)
			ok = 0;
		if (!ok)
			return -1;
	}
	return 0;
}

/* An output whose bits were compared before with the same wanted values
 * gets that comparison's result: the same bits give the same result, so
 * the check is as strict, without the download. 1 with *cr when seen; 0
 * not seen (*hashed, h: the output's hash, when it was taken); -1 an
 * error. */
static int seen_before(pass *x, const plan_check *c, uint64_t n, ref_key *key, uint64_t h[2], int *hashed,
                       cmp_result *cr)
{
	wrun *r = x->r;
	const pbuf *ob = &x->c->pool->buf[c->out];
	ref_arg ra[SPEC_MAX_CHECK_ARGS];
	const ref_fn *f = ref_key_of(r, x->c->pool, c, n, ra, key, 1);
	if (!f)
		return -1;
	int hr = ob->bytes && !r->p->bufs[c->out].managed ? gpu_outhash(r, &x->ck->hash, ob->d, ob->bytes, h) : 1;
	if (hr < 0)
		return -1;
	*hashed = hr == 0;
	uint64_t cn = f->scalar_out && n > 1 ? 1 : n;
	const cmp_result *seen = *hashed ? verdict_get(&x->ck->verdicts, key, c->tol, cn, ob->bytes, h) : NULL;
	if (!seen)
		return 0;
	*cr = *seen;
	w_trace(r, "'%s': the same bits as an output compared before", r->p->bufs[c->out].name);
	return 1;
}

/* The wanted values of check i: computed beside the launch (waited for
 * now), from the cache or computed now, or the other variant's output. */
typedef struct wanted {
	const void *v;
	dtype wt;
	int scalar_out;
	ref_key key;
	void *owned;               /* computed here: goes to the cache */
} wanted;

static int wanted_of(pass *x, int i, const void *hout, uint64_t n, wanted *w)
{
	wrun *r = x->r;
	const plan_check *c = &r->p->checks[i];
	w->v = x->kgot[i];
	w->wt = r->p->bufs[c->out].type;
	w->scalar_out = 0;
	w->owned = NULL;
	if (c->kind != CHECK_REF)
		return 0;
	if (x->ahead->pending[i]) {
		/* the staging area, while the reference is still computed */
		if (!hout && !r->p->bufs[c->out].managed && stage_prepare(r, x->c->staging) != 0)
			return -1;
		ahead_join(x->ahead);
		w->v = x->ahead->want[i];
		w->wt = x->ahead->wt[i];
		w->scalar_out = x->ahead->scalar_out[i];
		w->key = x->ahead->key[i];
		w->owned = x->ahead->owned[i];
		x->ahead->owned[i] = NULL;
	} else {
		w->v = ref_want(r, x->c->pool, &x->ck->refs, c, n, &w->wt, &w->scalar_out, &w->key, &w->owned);
	}
	return w->v ? 0 : -1;
}

/* Output of check c compared with the wanted values: through the staging
 * area, chunk by chunk (a managed output, whose pages may be on the host,
 * comes down whole, as it always did), else where it landed (copied out)
 * or downloaded whole. */
static int compare_out(pass *x, const plan_check *c, const void *hout, const wanted *w, uint64_t cn,
                       cmp_result *cr)
{
	wrun *r = x->r;
	const plan_buf *pb = &r->p->bufs[c->out];
	const pbuf *ob = &x->c->pool->buf[c->out];
	int how = 1; /* 1: not yet compared */
	if (!hout && !pb->managed) {
		how = stage_compare(r, x->c->staging, ob->d, pb->name, pb->type, w->v, w->wt, cn, c->tol, cr);
		x->staged = -1; /* the output is in no download buffer */
	}
	if (how != 1)
		return how;
	char what[96];
	snprintf(what, sizeof what, "buffer '%s'", pb->name);
	const void *got = hout ? hout : stage_get(r, x->c->staging, ob->bytes, what);
	if (!got)
		return -1;
	if (!hout && x->staged != c->out) {
		x->staged = -1;
		if (ob->bytes && w_ck(r, cu.MemcpyDtoH(x->c->staging->download, ob->d, ob->bytes), "cuMemcpyDtoH") != 0)
			return -1;
		x->staged = c->out;
		w_trace(r, "downloaded '%s' (%.1f MiB)", pb->name, (double)ob->bytes / (double)MiB);
	}
	ref_compare_typed(got, pb->type, w->v, w->wt, cn, c->tol, cr);
	w_trace(r, "compared '%s' on %d threads", pb->name, ref_threads());
	return 0;
}

/* Check i: its result in res->checks[i]; *failed when it did not pass. */
static int check_one(pass *x, int i, int *failed)
{
	wrun *r = x->r;
	const plan_check *c = &r->p->checks[i];
	const plan_buf *pb = &r->p->bufs[c->out];
	uint64_t n = pb->count * (uint64_t)dtype_lanes(pb->type); /* scalars */
	cmp_result cr;
	uint64_t h[2];
	int hashed = 0;
	wanted w;
	const void *hout = pipe_out(r, x->wh, c->out); /* an output copied out: checked where it landed */
	int seen = c->kind == CHECK_REF && !hout ? seen_before(x, c, n, &w.key, h, &hashed, &cr) : 0;
	if (seen < 0)
		return -1;
	if (!seen) {
		/* the wanted values first: the output is compared as it comes down */
		if (wanted_of(x, i, hout, n, &w) != 0)
			return -1;
		uint64_t cn = w.scalar_out && n > 1 ? 1 : n;
		if (compare_out(x, c, hout, &w, cn, &cr) != 0) {
			free(w.owned);
			return -1;
		}
		if (w.owned)
			ref_cache_put(&x->ck->refs, &w.key, w.owned, w.wt, n);
		if (hashed)
			verdict_put(&x->ck->verdicts, &w.key, c->tol, cn, x->c->pool->buf[c->out].bytes, h, &cr);
	}
	if (hashed && outsum_able(r->p, i)) { /* the timed launches' last is compared with it */
		x->ck->sums.have[i] = 1;
		memcpy(x->ck->sums.h[i], h, sizeof x->ck->sums.h[i]);
		x->ck->sums.key[i] = w.key;
		x->ck->sums.have_key[i] = 1;
		x->ck->sums.err[i] = cr.rel_err;
		x->ck->sums.scale[i] = cr.scale;
	}
	check_result *cres = &r->res->checks[i];
	memset(cres, 0, sizeof *cres);
	snprintf(cres->buf, sizeof cres->buf, "%s", pb->name);
	cres->ok = cr.ok;
	cres->rel_err = cr.rel_err;
	cres->tol = c->tol;
	cres->bad_index = cr.bad_index;
	cres->got = cr.got;
	cres->want = cr.want;
	cres->nonfinite = cr.nonfinite;
	r->res->nchecks = i + 1;
	if (!cr.ok)
		*failed = 1;
	return 0;
}

/* One check pass: other variants first (into scratch copies of their
 * output), then the kernel once on reset outputs, then every comparison.
 * *failed: some check did not pass. */
static int check_once(pass *x, ref_ahead **early, int *failed)
{
	wrun *r = x->r;
	const plan *p = r->p;
	ref_ahead local;
	memset(&local, 0, sizeof local);
	memset(x->kgot, 0, sizeof x->kgot);
	x->ahead = *early ? *early : &local; /* started early, or here */
	x->staged = -1;
	int ret = -1;
	r->res->nchecks = 0;
	memset(&x->ck->sums, 0, sizeof x->ck->sums);
	w_progress(r->chan, 0, WIRE_PHASE_GPU, 0);
	if (run_variants(x) != 0 || contents_reset_dirty(r, x->c) != 0 || pipe_poison(r, x->wh, x->c->pool) != 0)
		goto out;
	if (x->ahead == &local)
		ahead_start(r, x->c->pool, &x->ck->refs, &local, 0);
	if (w_run_main(r, x->c->pool, x->wh, x->k) != 0 || w_ck_kernel(r, cu.CtxSynchronize(), p->launch.name) != 0)
		goto out;
	pf_first(r, x->pf); /* what the checked launch printed (with the variants' before it) */
	w_trace(r, "checked launch done");
	w_progress(r->chan, 0, WIRE_PHASE_HOST, 0);
	for (int i = 0; i < p->nchecks; i++)
		if (check_one(x, i, failed) != 0)
			goto out;
	ret = 0;
out:
	if (x->ahead == &local) {
		ahead_join(&local);
		ahead_free(&local);
	} else {
		check_end(early); /* a second pass computes in turn (or finds the cache) */
	}
	for (int i = 0; i < PLAN_MAX_CHECKS; i++)
		free(x->kgot[i]);
	return ret;
}

/* The checks. When one fails on buffers an earlier run left on the device
 * (trusted because a launch marks what its PTX may write), they are written again
 * from their host copies and the checks run once more: a kernel that
 * broke the contract (say, wrote past its output into an input) cannot
 * make a later, correct kernel fail. */
static int check_pass(pass *x, ref_ahead **early)
{
	int failed = 0;
	if (check_once(x, early, &failed) != 0)
		return -1;
	if (!failed || contents_all_verified(x->r, x->c->pool))
		return 0;
	w_trace(x->r, "a check failed on reused buffers: writing them again and checking once more");
	if (contents_reverify(x->r, x->c) != 0)
		return -1;
	failed = 0;
	return check_once(x, early, &failed);
}

/* Where every check passed and the run is timed, what the timed
 * launches' last is compared with: the hashes of the outputs checked that
 * seen_before did not take (those compared with another variant, managed
 * ones), each with a device copy to compare with where the bits differ,
 * and a device copy of each float or double output, so that other bits
 * (float atomics) are compared on the GPU. A copy that memory cannot hold
 * is done without: the comparison then goes to the host. Its time counts
 * in the check of the timed launches (res->timed_ms). */
static int sums_of_check(wrun *r, const wcontents *c, wchecks *ck)
{
	outsums *s = &ck->sums;
	int failed = 0;
	for (int i = 0; i < r->res->nchecks; i++)
		failed |= !r->res->checks[i].ok;
	if (failed || !r->p->t.do_time) {
		outsums_clear(s);
		return 0;
	}
	uint64_t t0 = now_ns();
	for (int i = 0; i < r->p->nchecks; i++) {
		const plan_buf *pb = &r->p->bufs[r->p->checks[i].out];
		const pbuf *ob = &c->pool->buf[r->p->checks[i].out];
		if (!outsum_able(r->p, i) || !ob->d || !ob->bytes || (s->have[i] && !recmp_type(pb->type)))
			continue;
		if (!s->have[i]) {
			int k = gpu_outhash(r, &ck->hash, ob->d, ob->bytes, s->h[i]);
			if (k != 0)
				return k < 0 ? -1 : 0;
		}
		int sp = gpu_spare(r, &ck->hash, i, ob->bytes, &s->copy[i]);
		if (sp < 0 || (sp == 0 && w_ck(r, cu.MemcpyDtoDAsync(s->copy[i], ob->d, ob->bytes, NULL), "cuMemcpyDtoDAsync") != 0))
			return -1;
		if (sp == 0 || s->have_key[i])
			s->have[i] = 1; /* without a copy, only a reference's values are there to compare with */
	}
	/* waited for, so that the figure holds the copies' GPU time too */
	if (outsums_take_steps(r, &ck->hash, c->pool, s) < 0 || w_ck(r, cu.CtxSynchronize(), "cuCtxSynchronize") != 0)
		return -1;
	s->from_check = 1;
	s->keep_ms = ms_since(t0);
	r->res->timed_ms += s->keep_ms;
	return 0;
}

int check_stage(wrun *r, const wcontents *c, whost *wh, wkernels *k, wprintf *pf, wchecks *ck, ref_ahead **early)
{
	uint64_t t0 = now_ns();
	memset(&ck->sums, 0, sizeof ck->sums);
	if (r->p->t.do_check) {
		pass *x = xcalloc(1, sizeof *x);
		*x = (pass){ .r = r, .c = c, .wh = wh, .k = k, .pf = pf, .ck = ck };
		int rc = check_pass(x, early);
		free(x);
		if (rc != 0 || sums_of_check(r, c, ck) != 0)
			return -1;
	}
	r->res->check_ms = ms_since(t0);
	w_trace(r, "checks done");
	return 0;
}
