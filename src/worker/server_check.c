/* server_check.c: the check pass: the kernel once on fresh outputs, then
 * every output compared with its reference or with another variant. */
#include "server.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The reference of a CHECK_REF check, its arguments into ra and the key
 * of its wanted values (n values for the output), without computing them.
 * NULL when the check does not fit its reference (said when say). */
static const ref_fn *ref_key_of(wrun *r, const plan_check *c, uint64_t n, ref_arg *ra, ref_key *key,
                                int say)
{
	const plan *p = r->p;
	const plan_buf *ob = &p->bufs[c->out];
	const char *oname = ob->name;
	const ref_fn *f = ref_find(c->ref);
	if (!f) {
		if (say)
			w_fail(r, 0, "check of '%s': unknown reference '%s'", oname, c->ref);
		return NULL;
	}
	if (c->nargs != f->nargs) {
		if (say)
			w_fail(r, 0, "check of '%s': %s takes %d argument%s, got %d", oname, f->synopsis,
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
				w_fail(r, 0, "check of '%s': argument %d of %s must be %s", oname, j + 1,
				       f->synopsis, want_buf ? "a buffer" : "a number, not a buffer");
			return NULL;
		}
		if (a->kind == ARG_PTR) {
			ra[j].is_buf = 1;
			ra[j].count = p->bufs[a->buf].count * (uint64_t)dtype_lanes(p->bufs[a->buf].type);
			ra[j].name = p->bufs[a->buf].name;
			ra[j].type = p->bufs[a->buf].type;
			ref_key_add_buf(key, &B(r, a->buf)->sig);
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
 * lookup 0: the cache is not looked at (another thread may be using it). */
static const void *ref_want(wrun *r, const plan_check *c, uint64_t n, dtype *wt, int *scalar_out,
                            ref_key *key, void **owned, int lookup)
{
	const plan *p = r->p;
	const plan_buf *ob = &p->bufs[c->out];
	const char *oname = ob->name;
	ref_arg ra[SPEC_MAX_CHECK_ARGS];
	*owned = NULL;
	const ref_fn *f = ref_key_of(r, c, n, ra, key, 1);
	if (!f)
		return NULL;
	*scalar_out = f->scalar_out;
	uint64_t cn = 0;
	const void *hit = lookup ? ref_cache_get(&r->ws->refs, key, wt, &cn) : NULL;
	if (hit && cn == n) {
		w_trace(r, "reference %s of '%s': cached", f->name, oname);
		return hit;
	}

	uint64_t t0 = now_ns();
	/* CUPLAY_REF_DOUBLES=1: every reference in doubles (to compare) */
	const char *env = getenv("CUPLAY_REF_DOUBLES");
	int doubles = env && env[0] && strcmp(env, "0") != 0;
	for (int j = 0; j < c->nargs; j++)
		if (ra[j].is_buf && !(ra[j].raw = pool_host_of(r, c->args[j].buf)))
			return NULL;
	char *e = NULL;
	void *want = ref_wanted(f, ra, ob->type, n, doubles, wt, &e);
	if (!want) {
		w_fail(r, 0, "check of '%s': %s", oname, e ? e : "reference failed");
		free(e);
		return NULL;
	}
	w_trace(r, "reference %s of '%s': computed in %.1f ms (%s, kept as %s)", f->name, oname,
	        (double)(now_ns() - t0) / 1e6,
	        ref_moves(f, ra, ob->type) && !doubles ? "moved in its own type" : "in doubles",
	        dtype_name(*wt));
	*owned = want;
	return want;
}

/* References computed on the host while the GPU runs the checked launch
 * and its outputs come down: those of the checks whose wanted values are
 * not cached (a new configuration's first check), one after the other on a
 * thread of their own (each one's loops on every core). */
typedef struct ref_ahead {
	wrun *r;
	int pending[PLAN_MAX_CHECKS]; /* check i's reference is computed here */
	const void *want[PLAN_MAX_CHECKS];
	void *owned[PLAN_MAX_CHECKS];
	dtype wt[PLAN_MAX_CHECKS];
	int scalar_out[PLAN_MAX_CHECKS];
	ref_key key[PLAN_MAX_CHECKS];
	pthread_t thread;
	int running;
} ref_ahead;

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
		a->want[i] = ref_want(a->r, c, n, &a->wt[i], &a->scalar_out[i], &a->key[i], &a->owned[i], 0);
		if (!a->want[i])
			break; /* its error is recorded; the rest are not needed */
	}
	return NULL;
}

/* Starts the thread for the references not cached; none: nothing runs.
 * The host copies of their buffers are made first, here: the thread only
 * reads them, and nothing writes them until the run ends (check_end).
 * early: before the buffers are written (from pool_setup): a check that
 * does not fit its reference is left to say so in its turn. */
static void ahead_start(wrun *r, ref_ahead *a, int early)
{
	const plan *p = r->p;
	memset(a, 0, sizeof *a);
	a->r = r;
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
		if (!ref_key_of(r, c, n, ra, &key, !early))
			break; /* the comparison loop stops there */
		if (ref_cache_get(&r->ws->refs, &key, &wt, &cn) && cn == n)
			continue;
		int have = 1;
		for (int j = 0; j < c->nargs && have; j++)
			if (ra[j].is_buf && !pool_host_of(r, c->args[j].buf))
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

/* From pool_setup, once the run's buffers are allocated and before any is
 * written: the references of a new configuration's checks start now, on
 * the host copies of their inputs, beside the upload, the checked launch
 * and the download. */
void check_early(wrun *r)
{
	if (!r->p->t.do_check || r->ahead)
		return;
	r->ahead = xcalloc(1, sizeof *r->ahead);
	ahead_start(r, r->ahead, 1);
}

/* The end of a run: a reference thread still running is waited for. */
void check_end(wrun *r)
{
	if (!r->ahead)
		return;
	ahead_join(r->ahead);
	ahead_free(r->ahead);
	free(r->ahead);
	r->ahead = NULL;
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

/* One check pass: other variants first (into scratch copies of their
 * output), then the kernel once on reset outputs, then every comparison.
 * *failed: some check did not pass. */
static int check_once(wrun *r, int *failed)
{
	const plan *p = r->p;
	wstate *ws = r->ws;
	void *kgot[PLAN_MAX_CHECKS] = {0};
	ref_ahead local, *ahead = r->ahead ? r->ahead : &local; /* started early, or here */
	memset(&local, 0, sizeof local);
	int ret = -1;
	r->res->nchecks = 0;
	w_progress(ws, 0, WIRE_PHASE_GPU, 0);
	for (int i = 0; i < p->nchecks; i++) {
		const plan_check *c = &p->checks[i];
		if (c->kind != CHECK_KERNEL)
			continue;
		const plan_buf *pb = &p->bufs[c->out];
		pbuf *ob = B(r, c->out);
		CUdeviceptr scratch = 0;
		char what[128];
		snprintf(what, sizeof what, "the check copy of buffer '%s'", pb->name);
		if (w_dalloc(r, &scratch, ob->bytes, 0, what) != 0)
			goto out;
		CUdeviceptr ptrs[PLAN_MAX_BUFS];
		for (int j = 0; j < p->nbufs; j++)
			ptrs[j] = B(r, j)->d;
		ptrs[c->out] = scratch;
		kargs *ka = xmalloc(sizeof *ka);
		w_build_args(ka, &c->other, ptrs);
		int ok = pool_init_dev(r, c->out, scratch, POOL_PRISTINE) == 0 && pool_reset_dirty(r) == 0 &&
		         w_launch(r, r->other[i], &c->other, ka) == 0 &&
		         w_ck_kernel(r, cu.CtxSynchronize(), c->other.name) == 0;
		free(ka);
		if (ok) {
			kgot[i] = download_new(r, scratch, pb, ob->bytes);
			ok = kgot[i] != NULL;
		}
		CUresult e = cu.MemFree(scratch);
		if (ok && w_ck(r, e, "cuMemFree") != 0)
			ok = 0;
		if (!ok)
			goto out;
	}
	if (pool_reset_dirty(r) != 0 || pipe_poison(r) != 0)
		goto out;
	if (ahead == &local)
		ahead_start(r, &local, 0);
	if (w_run_main(r) != 0 ||
	    w_ck_kernel(r, cu.CtxSynchronize(), p->launch.name) != 0)
		goto out;
	pf_first(r); /* what the checked launch printed (with the variants' before it) */
	w_trace(r, "checked launch done");
	w_progress(ws, 0, WIRE_PHASE_HOST, 0);
	int staged = -1; /* the output now in the download buffer */
	for (int i = 0; i < p->nchecks; i++) {
		const plan_check *c = &p->checks[i];
		const plan_buf *pb = &p->bufs[c->out];
		pbuf *ob = B(r, c->out);
		uint64_t n = pb->count * (uint64_t)dtype_lanes(pb->type); /* scalars */
		cmp_result cr;
		ref_key key;
		uint64_t h[2];
		int hashed = 0;
		const void *hout = pipe_out(r, c->out); /* an output copied out: checked where it landed */
		if (c->kind == CHECK_REF && !hout) {
			/* An output whose bits were compared before with the same wanted
			 * values gets that comparison's result: the same bits give the same
			 * result, so the check is as strict, without the download. */
			ref_arg ra[SPEC_MAX_CHECK_ARGS];
			const ref_fn *f = ref_key_of(r, c, n, ra, &key, 1);
			if (!f)
				goto out;
			int hr = ob->bytes && !p->bufs[c->out].managed ? gpu_outhash(r, ob->d, ob->bytes, h) : 1;
			if (hr < 0)
				goto out;
			hashed = hr == 0;
			uint64_t cn = f->scalar_out && n > 1 ? 1 : n;
			const cmp_result *seen = hashed ? verdict_get(&ws->verdicts, &key, c->tol, cn, ob->bytes, h) : NULL;
			if (seen) {
				cr = *seen;
				w_trace(r, "'%s': the same bits as an output compared before", pb->name);
				goto have_result;
			}
		}
		/* the wanted values first: the output is compared as it comes down */
		const void *want = kgot[i];
		dtype wt = pb->type;
		int scalar_out = 0;
		void *owned = NULL;
		if (c->kind == CHECK_REF && ahead->pending[i]) {
			/* the staging area, while the reference is still computed */
			if (!hout && !p->bufs[c->out].managed && stage_prepare(r) != 0)
				goto out;
			ahead_join(ahead);
			want = ahead->want[i];
			wt = ahead->wt[i];
			scalar_out = ahead->scalar_out[i];
			key = ahead->key[i];
			owned = ahead->owned[i];
			ahead->owned[i] = NULL;
			if (!want)
				goto out;
		} else if (c->kind == CHECK_REF) {
			want = ref_want(r, c, n, &wt, &scalar_out, &key, &owned, 1);
			if (!want)
				goto out;
		}
		uint64_t cn = scalar_out && n > 1 ? 1 : n;
		int how = 1; /* 1: not yet compared */
		/* through the staging area, chunk by chunk; a managed output (its
		 * pages may be on the host) comes down whole, as it always did */
		if (!hout && !p->bufs[c->out].managed) {
			how = stage_compare(r, ob->d, pb->name, pb->type, want, wt, cn, c->tol, &cr);
			staged = -1; /* the output is in no download buffer */
		}
		if (how == 1) {
			/* where it landed (copied out), else downloaded whole */
			char what[96];
			snprintf(what, sizeof what, "buffer '%s'", pb->name);
			const void *got = hout ? hout : stage_get(r, ob->bytes, what);
			how = got ? 0 : -1;
			if (got && !hout && staged != c->out) {
				staged = -1;
				if (ob->bytes && w_ck(r, cu.MemcpyDtoH(ws->stage, ob->d, ob->bytes), "cuMemcpyDtoH") != 0) {
					how = -1;
				} else {
					staged = c->out;
					w_trace(r, "downloaded '%s' (%.1f MiB)", pb->name, (double)ob->bytes / (double)MiB);
				}
			}
			if (how == 0) {
				ref_compare_typed(got, pb->type, want, wt, cn, c->tol, &cr);
				w_trace(r, "compared '%s' on %d threads", pb->name, ref_threads());
			}
		}
		if (how != 0) {
			free(owned);
			goto out;
		}
		if (owned)
			ref_cache_put(&ws->refs, &key, owned, wt, n);
		if (hashed)
			verdict_put(&ws->verdicts, &key, c->tol, cn, ob->bytes, h, &cr);
	have_result:;
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
	}
	ret = 0;
out:
	if (ahead == &local) {
		ahead_join(&local);
		ahead_free(&local);
	} else {
		check_end(r); /* a second pass computes in turn (or finds the cache) */
	}
	for (int i = 0; i < PLAN_MAX_CHECKS; i++)
		free(kgot[i]);
	return ret;
}

/* The checks. When one fails on buffers an earlier run left on the device
 * (trusted because kernels write only outputs), they are written again
 * from their host copies and the checks run once more: a kernel that
 * broke the contract (say, wrote past its output into an input) cannot
 * make a later, correct kernel fail. */
int check_pass(wrun *r)
{
	int failed = 0;
	if (check_once(r, &failed) != 0)
		return -1;
	if (!failed || pool_all_verified(r))
		return 0;
	w_trace(r, "a check failed on reused buffers: writing them again and checking once more");
	if (pool_reverify(r) != 0)
		return -1;
	failed = 0;
	return check_once(r, &failed);
}
