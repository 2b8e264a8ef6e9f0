/* wtime.c: stage 5 of a request: timing (warm-ups, samples, the stopping
 * rule), the empty kernel's baseline, the timeline's extra run, and the
 * counters pass and the per-line run (wlines.c), alone on the GPU (wlock.c). */
#include "wtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kclock.h"
#include "stats.h"
#include "wlines.h"
#include "wlock.h"
#include "wseq.h"

/* What the passes work with (time_stage's arguments). */
typedef struct tctx {
	wrun *r;
	wtimes *tt;
	const wcontents *c;
	const whost *wh;
	wkernels *k;
	wtimer *tm;
	wstart *st;
	wseq seq;              /* a sequence's samples split into steps and gaps */
	gpuhash *gh;           /* the output hash, for the first and the last launch */
	outsums *sums;         /* the hashes the last launch is compared with */
	int all_outputs;       /* reset every output, those the kernel never reads too */
	int piggy_at;          /* the sample from which on every output was reset, or -1 */
	double piggy_reset_ms; /* the GPU time one such reset adds (estimated) */
} tctx;

/* An empty kernel as PTX (the driver compiles it for this device): what any
 * launch costs (measure_empty). */
static const char empty_ptx[] =
	".version 7.0\n.target sm_70\n.address_size 64\n"
	".visible .entry cuplay_empty()\n{\n\tret;\n}\n";

static int cmp_ms(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The empty kernel's time, once per worker and clock: with events, one
 * launch after an L2 flush (21 times) and 100 back-to-back launches (5
 * times); with the kernel clock, the kernel's own duration (21 times). The
 * medians, the first launch left out. A baseline is a nicety: no message
 * when it cannot be had. */
static void measure_empty(tctx *x, int kernel_clock)
{
	wtimes *tt = x->tt;
	wtimer *tm = x->tm;
	if (kernel_clock ? tt->empty_kernel_done : tt->empty_done)
		return;
	if (kernel_clock)
		tt->empty_kernel_done = 1;
	else
		tt->empty_done = 1;
	CUmodule mod;
	CUfunction fn;
	if (cu.ModuleLoadData(&mod, empty_ptx) != CUDA_SUCCESS)
		return;
	double single[21], batch[5];
	int ok = cu.ModuleGetFunction(&fn, mod, "cuplay_empty") == CUDA_SUCCESS;
	if (ok && kernel_clock) {
		/* as the samples are taken: each launch waited for on its own */
		for (int i = 0; i < 21 && ok; i++) {
			if (tm->flush)
				ok &= flush_l2(tm, i) == CUDA_SUCCESS;
			ok &= cu.LaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL) == CUDA_SUCCESS;
			ok &= cu.CtxSynchronize() == CUDA_SUCCESS;
		}
		ok = ok && kclock_take("cuplay_empty", single, 21, NULL) == 21;
		if (ok) {
			qsort(single + 1, 20, sizeof single[0], cmp_ms);
			tt->empty_kernel_ms = (single[10] + single[11]) / 2;
		}
	} else if (ok) {
		for (int i = 0; i < 21 + 5 && ok; i++) {
			int b = i < 21 ? 1 : 100;
			if (b == 1 && tm->flush)
				ok &= flush_l2(tm, i) == CUDA_SUCCESS;
			ok &= cu.EventRecord(tm->ev0, NULL) == CUDA_SUCCESS;
			for (int k = 0; k < b; k++)
				ok &= cu.LaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL) == CUDA_SUCCESS;
			ok &= cu.EventRecord(tm->ev1, NULL) == CUDA_SUCCESS;
			ok &= cu.EventSynchronize(tm->ev1) == CUDA_SUCCESS;
			float ms = 0;
			ok &= cu.EventElapsedTime(&ms, tm->ev0, tm->ev1) == CUDA_SUCCESS;
			if (i < 21)
				single[i] = ms;
			else
				batch[i - 21] = ms / b;
		}
		if (ok) {
			qsort(single + 1, 20, sizeof single[0], cmp_ms); /* the first launch warms up */
			qsort(batch, 5, sizeof batch[0], cmp_ms);
			tt->empty_ms = (single[10] + single[11]) / 2;
			tt->empty_batch_ms = batch[2];
		}
	}
	cu.ModuleUnload(mod);
}

/* Whether this run's samples come from the kernel clock (kclock.c): asked
 * for, one launch a sample, no launches from the device, and CUPTI willing.
 * Otherwise events, with res->clock_note saying why where the kernel clock
 * was asked for. A worker that could not start it once does not try again. */
static int kernel_clock_begin(tctx *x, int batch)
{
	wrun *r = x->r;
	wtimes *tt = x->tt;
	result *res = r->res;
	res->clock = CLOCK_EVENTS;
	res->clock_note[0] = 0;
	if (r->p->t.clock != CLOCK_KERNEL || batch > 1)
		return 0;
	if (r->p->device_launches) {
		snprintf(res->clock_note, sizeof res->clock_note,
		         "the kernel launches kernels from the device, and the event pair covers them all");
		return 0;
	}
	if (r->p->nchunks > 0) {
		snprintf(res->clock_note, sizeof res->clock_note,
		         "a run on host data is timed whole, from its first copy in to its last copy out");
		return 0;
	}
	if (!tt->kclock_why[0]) {
		char *why = NULL;
		if (kclock_start(&why) == 0) {
			res->clock = CLOCK_KERNEL;
			return 1;
		}
		snprintf(tt->kclock_why, sizeof tt->kclock_why, "%s", why ? why : "CUPTI failed");
		free(why);
	}
	snprintf(res->clock_note, sizeof res->clock_note, "%s", tt->kclock_why);
	return 0;
}

/* Resets the outputs before a sample (split.resets: how many); -1 on an error. */
static int reset_outputs(tctx *x)
{
	wrun *r = x->r;
	int n = contents_restore_outputs(r, x->c, x->all_outputs);
	if (n >= 0)
		r->res->split.resets = n;
	return n;
}

/* What comes before each sample: outputs reset, managed buffers back on
 * the host (or, marked prefetch, on the GPU, as cudaMemPrefetchAsync
 * before a launch would put them), and (with flush) a cold L2. All on the
 * stream, asynchronous. */
static int sample_prologue(tctx *x, int n)
{
	wrun *r = x->r;
	const plan *p = r->p;
	const pbuf *bufs = x->c->pool->buf;
	if (reset_outputs(x) < 0)
		return -1;
	for (int i = 0; !w_prefetch && i < p->nbufs; i++)
		if (p->bufs[i].prefetch)
			return w_fail(r, W_ERROR, "buffer '%s' is to be prefetched, but this driver has no cuMemPrefetchAsync_v2",
			              p->bufs[i].name);
	for (int i = 0; w_prefetch && i < p->nbufs; i++)
		if (p->bufs[i].managed && bufs[i].d &&
		    w_ck(r, w_prefetch(bufs[i].d, p->bufs[i].count * dtype_size(p->bufs[i].type),
		                      p->bufs[i].prefetch ? (cu_mem_location){ CU_MEM_LOCATION_TYPE_DEVICE_, (int)x->st->dev }
		                                          : (cu_mem_location){ CU_MEM_LOCATION_TYPE_HOST_, 0 }, 0, NULL),
		       p->bufs[i].prefetch ? "cuMemPrefetchAsync (managed buffer to the GPU)"
		                           : "cuMemPrefetchAsync (managed buffer to the host)") != 0)
			return -1;
	if (p->t.flush && x->tm->flush && w_ck(r, flush_l2(x->tm, n), "the L2 flush") != 0)
		return -1;
	return 0;
}

/* The prologue as a sequence's samples call it. */
static int prologue_of(void *ctx, int n)
{
	return sample_prologue(ctx, n);
}

/* Samples on the kernel clock, k of them: each one's prologue and launch
 * waited for on its own (with the next samples queued behind it, a 10 us
 * kernel's record grew by ~0.4 us on an H100), then the k kernels' records
 * in one CUPTI flush, which costs tens of microseconds. Returns k with
 * ms[0..k-1]; 0 when the records did not all come (the caller goes over to
 * events, and the worker stops asking for them); -1 on an error. */
static int kernel_clock_samples(tctx *x, int n, int k, double *ms)
{
	wrun *r = x->r;
	const plan_launch *l = &r->p->launch;
	loop_split *sp = &r->res->split;
	if (r->p->nsteps > 0) { /* a sequence: its steps' records, split */
		char why[256] = "";
		int got = seq_clock_samples(r, &x->seq, x->c->pool, x->k, prologue_of, x, n, k, ms, why, sizeof why);
		if (got == 0) {
			snprintf(x->tt->kclock_why, sizeof x->tt->kclock_why, "%s", why);
			snprintf(r->res->clock_note, sizeof r->res->clock_note, "%s", why);
		}
		return got;
	}
	for (int i = 0; i < k; i++) {
		uint64_t t0 = now_ns();
		if (sample_prologue(x, n + i) != 0 || w_run_main(r, x->c->pool, x->wh, x->k) != 0)
			return -1;
		uint64_t t1 = now_ns();
		sp->issue_ms += (double)(t1 - t0) / 1e6;
		if (w_ck_kernel(r, cu.CtxSynchronize(), l->name) != 0)
			return -1;
		sp->wait_ms += ms_since(t1);
	}
	char *why = NULL;
	uint64_t t2 = now_ns();
	int got = kclock_take(kernel_symbol(l), ms, k, &why);
	sp->records_ms += ms_since(t2);
	sp->takes++;
	if (got != k) {
		if (got >= 0)
			snprintf(x->tt->kclock_why, sizeof x->tt->kclock_why,
			         "CUPTI gave %d kernel records for %d launches", got, k);
		else
			snprintf(x->tt->kclock_why, sizeof x->tt->kclock_why, "%s", why);
		snprintf(r->res->clock_note, sizeof r->res->clock_note, "%s", x->tt->kclock_why);
	}
	free(why);
	return got == k ? k : 0;
}

/* How many kernel-clock samples to take records for at once: about 2 ms of
 * GPU time (the kernel plus its prologue, ~0.1 ms with a flush), at most
 * 16, at most a quarter of the samples so far (the stopping rule looks
 * after each group, so it may overshoot by k - 1), and no more than are
 * still allowed; one at first, to learn the time. */
static int group_size(const double *samples, int n, int max_reps)
{
	int k = 1;
	if (n > 0) {
		double each = samples[n - 1] + 0.1;
		k = each >= 2.0 ? 1 : (int)(2.0 / each);
		if (k > 16)
			k = 16;
		if (k > n / 4)
			k = n / 4 > 1 ? n / 4 : 1;
	}
	return k < max_reps - n ? k : max_reps - n;
}

/* One sample between two events: `batch` back-to-back launches, the
 * launch gaps overlapping kernels; outputs are reset once per sample. The
 * time of one launch. */
static int events_sample(tctx *x, int n, int batch, double *ms)
{
	wrun *r = x->r;
	wtimer *tm = x->tm;
	const plan *p = r->p;
	loop_split *sp = &r->res->split;
	uint64_t t0 = now_ns();
	if (sample_prologue(x, n) != 0 ||
	    (p->nsteps > 0 && w_ck_kernel(r, cu.CtxSynchronize(), p->launch.name) != 0) || /* a sequence: idle start */
	    w_ck(r, cu.EventRecord(tm->ev0, NULL), "cuEventRecord") != 0)
		return -1;
	for (int b = 0; b < batch; b++)
		if (w_run_main(r, x->c->pool, x->wh, x->k) != 0)
			return -1;
	if (w_ck(r, cu.EventRecord(tm->ev1, NULL), "cuEventRecord") != 0)
		return -1;
	uint64_t t1 = now_ns();
	sp->issue_ms += (double)(t1 - t0) / 1e6;
	if (w_ck_kernel(r, cu.EventSynchronize(tm->ev1), p->launch.name) != 0)
		return -1;
	sp->wait_ms += ms_since(t1);
	float f = 0;
	if (w_ck(r, cu.EventElapsedTime(&f, tm->ev0, tm->ev1), "cuEventElapsedTime") != 0)
		return -1;
	*ms = (double)f / batch;
	return 0;
}

/* With CUPLAY_TRACE: the GPU's time for one reset of the outputs and one
 * L2 flush, each the median of 5 timed with events (after the samples,
 * outside them). -1 where there is none to time or the timing failed. */
static void time_prologue_parts(tctx *x)
{
	wrun *r = x->r;
	wtimer *tm = x->tm;
	loop_split *sp = &r->res->split;
	sp->reset_gpu_ms = sp->flush_gpu_ms = -1;
	for (int part = 0; part < 2; part++) {
		if (part == 1 && !(r->p->t.flush && tm->flush))
			continue;
		double ms[5];
		int ok = 1;
		for (int i = 0; i < 5 && ok; i++) {
			float f = 0;
			ok = cu.EventRecord(tm->ev0, NULL) == CUDA_SUCCESS &&
			     (part == 0 ? reset_outputs(x) >= 0 : flush_l2(tm, i) == CUDA_SUCCESS) &&
			     cu.EventRecord(tm->ev1, NULL) == CUDA_SUCCESS &&
			     cu.EventSynchronize(tm->ev1) == CUDA_SUCCESS &&
			     cu.EventElapsedTime(&f, tm->ev0, tm->ev1) == CUDA_SUCCESS;
			ms[i] = f;
		}
		if (!ok)
			continue;
		qsort(ms, 5, sizeof ms[0], cmp_ms);
		if (part == 0)
			sp->reset_gpu_ms = sp->resets > 0 ? ms[2] : 0;
		else
			sp->flush_gpu_ms = ms[2];
	}
}

/* Whether the timed samples may stand for the last launch: one sample a
 * launch, on the device, no other pass after the samples (counters, a
 * graph, a timeline, the prologue's timing), a cold L2 before each (so the
 * outputs reset in the prologue leave no trace in the figures), and some
 * output to compare. The bytes of the outputs the samples do not reset
 * into *unread. */
static int piggy_able(tctx *x, uint64_t *unread)
{
	const plan *p = x->r->p;
	*unread = 0;
	int any = 0;
	for (int i = 0; i < p->nchecks; i++)
		any |= x->sums->have[i];
	for (int b = 0; b < p->nbufs; b++) {
		any |= x->sums->step_have[b];
		if (p->bufs[b].output && p->bufs[b].unread)
			*unread += x->c->pool->buf[b].bytes;
	}
	return any && p->t.batch <= 1 && p->nchunks <= 0 && p->nmetrics == 0 && !(p->t.graph && p->nsteps > 0) &&
	       !x->tt->trace_loop && p->t.flush && x->tm->flush;
}

/* After n samples (median med_ms): from now on, every output reset before
 * each sample, so that the last sample is the last launch (last_launch),
 * where that reset costs under 1% of a sample: its bytes written at the
 * copy roof (or 1 TB/s) and a few microseconds. */
static void piggy_maybe(tctx *x, int n, double med_ms)
{
	uint64_t unread;
	if (x->all_outputs || !piggy_able(x, &unread))
		return;
	double gbps = x->r->res->roof_gbps > 0 ? x->r->res->roof_gbps : 1000;
	double est = unread ? (double)unread / (gbps * 1e6) + 0.005 : 0;
	if (est > 0.01 * med_ms)
		return;
	x->all_outputs = 1;
	x->piggy_at = n;
	x->piggy_reset_ms = est;
}

static int time_samples(tctx *x, int kernel_clock)
{
	wrun *r = x->r;
	const plan *p = r->p;
	wtimes *tt = x->tt;
	result *res = r->res;
	timing_opts t = p->t;
	if (t.max_reps > RES_MAX_SAMPLES)
		t.max_reps = RES_MAX_SAMPLES;
	if (t.max_reps < 1)
		t.max_reps = 1;
	int n = 0;
	double total_s = 0;
	int batch = t.batch > 1 ? t.batch : 1;
	loop_split *sp = &res->split;
	measure_empty(x, kernel_clock);
	uint64_t loop_t0 = now_ns();
	const stop_rule rule = { t.rule, t.min_reps, t.max_reps, t.target, t.noise_target, t.min_time_s, t.max_time_s };
	double *sorted = xmalloc(RES_MAX_SAMPLES * sizeof *sorted);
	int rc = 0, retried = 0;
	res->stop = STOP_NOT;
	for (;;) {
		uint64_t tr = now_ns();
		stop_why why = stats_stop(sorted, res->samples_ms, n, total_s, &rule);
		sp->rule_ms += ms_since(tr);
		if (why != STOP_NOT || n >= t.max_reps) {
			res->stop = why != STOP_NOT ? why : STOP_SAMPLES;
			break;
		}
		int got = 1;
		if (kernel_clock) {
			got = kernel_clock_samples(x, n, group_size(res->samples_ms, n, t.max_reps), res->samples_ms + n);
			if (got < 0) {
				rc = -1;
				break;
			}
			if (got == 0 && !retried) {
				/* once a run, the group again: the first launch after a
				 * profiling session has come without its record */
				retried = 1;
				w_trace(r, "%s: %s; the samples again", r->p->launch.name, x->tt->kclock_why);
				x->tt->kclock_why[0] = 0;
				res->clock_note[0] = 0;
				continue;
			}
			if (got == 0) {
				/* over to events for the rest of the run: samples are not mixed */
				kclock_stop();
				kernel_clock = 0;
				res->clock = CLOCK_EVENTS;
				n = res->nsamples = 0;
				total_s = 0;
				if (x->all_outputs)
					x->piggy_at = 0; /* the samples again, every output reset before each */
				memset(sp, 0, sizeof *sp);
				measure_empty(x, 0);
				loop_t0 = now_ns();
				continue;
			}
		} else if (events_sample(x, n, batch, &res->samples_ms[n]) != 0) {
			rc = -1;
			break;
		}
		for (int i = 0; i < got; i++, n++) {
			total_s += res->samples_ms[n] * batch * 1e-3;
			sp->kernel_ms += res->samples_ms[n] * batch;
			stats_insert_sorted(sorted, n, res->samples_ms[n]);
			res->nsamples = n + 1;
			w_progress(r->chan, n + 1, WIRE_PHASE_GPU, res->samples_ms[n]);
		}
		piggy_maybe(x, n, sorted[n / 2]);
		/* the wall cap; a short kernel's (timing_wall_cap) once the least
		 * kernel time is sampled, and before the next group of samples
		 * would pass it (the group's time and one sample's more ahead, for
		 * the loop's own ending) */
		double el = (double)(now_ns() - loop_t0) * 1e-9;
		int ahead = (kernel_clock ? group_size(res->samples_ms, n, t.max_reps) : 1) + 1;
		if (t.max_wall_s > 0 && n >= t.min_reps &&
		    (el >= t.max_wall_s ||
		     (total_s >= t.min_time_s && el + ahead * el / n >= timing_wall_cap(&t, sorted[n / 2] * batch * 1e-3)))) {
			res->stop = STOP_WALL;
			break;
		}
		if (w_stop_now(r->chan)) {
			res->status = RES_INTERRUPTED;
			res->stop = STOP_INTERRUPTED;
			break;
		}
	}
	free(sorted);
	if (rc != 0)
		return -1;
	sp->loop_ms = ms_since(loop_t0);
	stats st;
	stats_compute(res->samples_ms, res->nsamples, &st);
	res->ci_lo_ms = st.has_ci ? st.ci_lo : 0;
	res->ci_hi_ms = st.has_ci ? st.ci_hi : 0;
	res->empty_ms = batch > 1 ? tt->empty_batch_ms : kernel_clock ? tt->empty_kernel_ms : tt->empty_ms;
	return 0;
}

/* Warm-ups, then samples: 0; 1 interrupted during the warm-ups (said in
 * the result); -1 on an error. */
static int warm_and_sample(tctx *x)
{
	wrun *r = x->r;
	const plan *p = r->p;
	int warm = p->t.warmup < 0 ? 0 : p->t.warmup;
	for (int i = 0; i < warm; i++) {
		if (w_stop_now(r->chan)) {
			r->res->status = RES_INTERRUPTED;
			r->res->stop = STOP_INTERRUPTED;
			return 1;
		}
		/* timed without its check (`//@ check at`): the first launch
		 * after the module's load, on every output at its initial
		 * contents as the last launch's are, is the one the last is
		 * compared with */
		int first = i == 0 && p->t.checked_apart && !p->t.do_check && p->nchecks > 0;
		x->all_outputs = first;
		int rr = reset_outputs(x);
		x->all_outputs = 0;
		if (rr < 0 || w_run_main(r, x->c->pool, x->wh, x->k) != 0 ||
		    w_ck_kernel(r, cu.CtxSynchronize(), p->launch.name) != 0)
			return -1;
		uint64_t tk = now_ns();
		if (first && (outsums_take(r, x->gh, x->c->pool, x->sums, 1) < 0 ||
		              outsums_take_steps(r, x->gh, x->c->pool, x->sums) < 0 ||
		              w_ck(r, cu.CtxSynchronize(), "cuCtxSynchronize") != 0)) /* the copies' GPU time counted */
			return -1;
		if (first) { /* the comparison's own cost */
			x->sums->keep_ms = ms_since(tk);
			r->res->timed_ms += x->sums->keep_ms;
		}
		w_progress(r->chan, 0, WIRE_PHASE_GPU, 0);
	}
	int kernel_clock = kernel_clock_begin(x, p->t.batch);
	x->piggy_at = -1;
	int rc = time_samples(x, kernel_clock);
	if (!x->all_outputs || x->piggy_at >= r->res->nsamples)
		x->piggy_at = -1; /* not on, or on after the last sample */
	x->all_outputs = 0;
	kclock_stop();
	if (rc != 0)
		return -1;
	seq_split_result(r, &x->seq);
	return 0;
}

/* Timing: warm-ups, then samples until the stopping rule says enough, each
 * on reset outputs and (with flush) a cold L2. */
static int time_pass(tctx *x)
{
	wrun *r = x->r;
	nvml_dev *nvml = x->st->nvml;
	result *res = r->res;
	w_progress(r->chan, 0, WIRE_PHASE_GPU, 0);
	/* the clocks' reading spans the pass, ended on every way out (an
	 * error's too: never half filled) */
	nvml_begin(nvml, &res->cond);
	int rc = warm_and_sample(x);
	nvml_end(nvml, &res->cond);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (x->tt->trace_loop)
		time_prologue_parts(x);
	return 0;
}

/* The timeline: one more run (a pipeline, or a batch of launches) after
 * the samples, on reset outputs, with CUPTI recording its copies and
 * kernels. Where CUPTI cannot, res->tl_note says why and the run goes on. */
static int trace_pass(tctx *x)
{
	wrun *r = x->r;
	const plan *p = r->p;
	result *res = r->res;
	int batch = p->t.batch > 1 ? p->t.batch : 1;
	res->nspans = res->spans_lost = 0;
	res->tl_note[0] = 0;
	if (p->nchunks <= 0 && batch == 1)
		return 0;
	if (reset_outputs(x) < 0 || w_ck(r, cu.CtxSynchronize(), "cuCtxSynchronize") != 0)
		return -1;
	char *why = NULL;
	if (ktrace_start(&why) != 0) {
		snprintf(res->tl_note, sizeof res->tl_note, "no timeline: %s", why ? why : "CUPTI failed");
		free(why);
		return 0;
	}
	int rc = 0;
	for (int b = 0; b < batch && rc == 0; b++)
		rc = w_run_main(r, x->c->pool, x->wh, x->k);
	if (rc == 0)
		rc = w_ck_kernel(r, cu.CtxSynchronize(), p->launch.name);
	if (rc == 0) {
		int lost = 0;
		int n = ktrace_take(res->spans, RES_MAX_SPANS, &lost, &why);
		if (n < 0) {
			snprintf(res->tl_note, sizeof res->tl_note, "no timeline: %s", why ? why : "CUPTI failed");
			free(why);
		} else {
			res->nspans = n;
			res->spans_lost = lost;
		}
	}
	ktrace_stop();
	return rc;
}

/* The launch CUPTI profiles, once a pass. */
static int prof_launch(void *arg)
{
	tctx *x = arg;
	if (x->r->p->nsteps > 0)
		return w_run_steps(x->r, x->c->pool, x->k, NULL) != 0;
	return w_launch(x->r, x->c->pool, x->k->fn, &x->r->p->launch, &x->k->ka) != 0;
}

/* The per-line run's sampled launch: the module loaded again once PC
 * sampling is on (w_load_again), the kernels of the run's last launches. */
static int prof_reload(void *arg, char *err, size_t n)
{
	tctx *x = arg;
	return w_load_again(x->r->p, x->k, err, n);
}

/* Before each pass, outside the profiled range: the prologue of a timed
 * sample (outputs reset, managed buffers placed, with flush a cold L2),
 * with the GPU idle after it, so the range holds only the kernel. */
static int prof_prologue(void *arg)
{
	tctx *x = arg;
	wrun *r = x->r;
	if (sample_prologue(x, 0) < 0)
		return -1;
	return w_ck_kernel(r, cu.CtxSynchronize(), r->p->launch.name) != 0;
}

/* Hardware counters: one more launch, outside the timed samples, on reset
 * outputs and (with flush) a cold L2, with the GPU idle before, so the
 * profiled range holds only the kernel. Counters that cannot be read are
 * reported in res->prof and stop nothing; a launch that fails, or a broken
 * context after a failed collect, takes the usual error path. */
static void metrics_pass(tctx *x)
{
	wrun *r = x->r;
	const plan *p = r->p;
	prof_reply *pr = &r->res->prof;
	memset(pr, 0, sizeof *pr);
	int n = p->nmetrics;
	/* CUPTI's setup and the replays are host work, and slow */
	w_progress(r->chan, 0, WIRE_PHASE_HOST, 0);
	const char *names[PROF_MAX_METRICS];
	for (int i = 0; i < n; i++)
		names[i] = p->metrics[i];
	prof_info info;
	memset(&info, 0, sizeof info);
	char *err = NULL;
	w_trace(r, "collecting %d metrics", n);
	int nr = p->nsteps > 0 ? p->nsteps : 1; /* a range a step, added up */
	double *per = xcalloc((size_t)n * nr, sizeof *per);
	prof_status st = prof_collect_ranges(x->st->ctx, x->st->dev, names, n, nr, prof_prologue, prof_launch, x, per,
	                                     &info, &err);
	if (st == PROF_OK)
		seq_combine_metrics(names, n, nr, per, pr->values);
	free(per);
	pr->status = st;
	pr->n = n;
	pr->passes = info.passes;
	pr->ranges = info.ranges;
	pr->dropped = info.dropped;
	pr->ms = info.ms;
	snprintf(pr->chip, sizeof pr->chip, "%s", info.chip);
	if (st != PROF_OK)
		snprintf(pr->error, sizeof pr->error, "%s", err ? err : "hardware counters failed");
	free(err);
	w_trace(r, "metrics: status %d, %d passes (%s replay, %d launches), %.1f ms", (int)st, info.passes,
	        info.user_replay ? "user" : "kernel", info.launches, info.ms);
	if (st == PROF_LAUNCH) {
		/* w_launch() recorded why; make sure a run error says so */
		if (r->res->status == RES_OK)
			w_fail(r, W_ERROR, "kernel '%s': the profiled launch failed", p->launch.name);
		return;
	}
	if (st != PROF_OK)
		w_ck_kernel(r, cu.CtxSynchronize(), p->launch.name); /* a fault during the replays is sticky */
}

/* The last launch: one more after the timed ones and outside their
 * statistics, made as they were (the prologue, with flush a cold L2, a
 * batch's launches before it), on every output reset to its initial
 * contents (poison, unless declared), those the kernel never reads too, so
 * that work skipped leaves its poison. Its outputs stay in the buffers for
 * the comparison (wrecheck.c). Only where some output's hash is there to
 * compare with. */
static int last_launch(tctx *x)
{
	wrun *r = x->r;
	const plan *p = r->p;
	int any = 0;
	for (int i = 0; i < p->nchecks; i++)
		any |= x->sums->have[i];
	for (int b = 0; b < p->nbufs; b++)
		any |= x->sums->step_have[b];
	if (!any || r->res->nsamples == 0 || r->res->status != RES_OK || w_stop_now(r->chan))
		return 0;
	if (x->piggy_at >= 0) {
		/* the samples from piggy_at on ran on every output reset: the last
		 * of them is the last launch, at the cost of those resets */
		x->sums->last = 1;
		x->sums->launch_ms = 0;
		x->sums->resets_ms = (r->res->nsamples - x->piggy_at) * x->piggy_reset_ms;
		r->res->timed_ms += x->sums->resets_ms;
		w_trace(r, "the last launch: the last timed sample, every output reset before samples %d to %d", x->piggy_at + 1,
		        r->res->nsamples);
		return 0;
	}
	int batch = p->t.batch > 1 ? p->t.batch : 1;
	int resets = r->res->split.resets; /* the samples' count, for the trace */
	uint64_t t0 = now_ns();
	x->all_outputs = 1;
	/* a sequence timed as a CUDA graph too: its last launch as the graph */
	int graph = p->nsteps > 0 && r->res->seq.graph_n > 0;
	int rc = graph ? seq_graph_once(r, x->c->pool, x->k, prologue_of, x) : sample_prologue(x, 0);
	for (int b = 0; !graph && b + 1 < batch && rc == 0; b++)
		rc = w_run_main(r, x->c->pool, x->wh, x->k);
	if (rc == 0 && !graph && batch > 1 && reset_outputs(x) < 0)
		rc = -1;
	x->all_outputs = 0;
	r->res->split.resets = resets;
	if (rc != 0 || (!graph && (w_run_main(r, x->c->pool, x->wh, x->k) != 0 ||
	                           w_ck_kernel(r, cu.CtxSynchronize(), p->launch.name) != 0)))
		return -1;
	x->sums->last = 1;
	x->sums->launch_ms = ms_since(t0);
	r->res->timed_ms += x->sums->launch_ms;
	w_trace(r, "the last launch%s, on reset outputs: %.3f ms", graph ? ", as the graph" : "", x->sums->launch_ms);
	return 0;
}

int time_stage(wrun *r, wtimes *tt, const wcontents *c, const whost *wh, wkernels *k, wstart *st, wtimer *tm,
               gpuhash *gh, outsums *sums)
{
	const plan *p = r->p;
	result *res = r->res;
	tctx x = { r, tt, c, wh, k, tm, st, { NULL }, gh, sums, 0, -1, 0 };
	uint64_t t0 = now_ns();
	if (p->t.do_time || p->nmetrics > 0 || p->lines)
		start_join(st); /* NVML and CUPTI set up */
	if (p->t.do_time) {
		if (w_stop_now(r->chan))
			res->status = RES_INTERRUPTED;
		else if (w_gpu_lock(r, &st->info) == 0) {
			t0 = now_ns(); /* the timing's own time, not the wait for the lock */
			if (time_pass(&x) == 0 && res->status == RES_OK && !w_stop_now(r->chan) &&
			    seq_graph_pass(r, c->pool, k, tm, prologue_of, &x) == 0)
				trace_pass(&x);
		}
	}
	res->time_ms = ms_since(t0);
	w_trace(r, "timing done: %d samples", res->nsamples);
	if (p->nmetrics > 0 && res->status == RES_OK && !w_stop_now(r->chan) && w_gpu_lock(r, &st->info) == 0)
		metrics_pass(&x);
	if (p->t.do_time && res->status == RES_OK)
		last_launch(&x);
	if (p->lines && res->status == RES_OK && !w_stop_now(r->chan) && w_gpu_lock(r, &st->info) == 0)
		lines_pass(r, st, prof_prologue, prof_launch, prof_reload, &x);
	w_gpu_unlock();
	seq_free(&x.seq);
	return res->status == RES_OK ? 0 : -1;
}
