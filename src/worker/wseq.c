/* wseq.c: a sequence's timing: its samples on the kernel clock split into
 * steps and gaps, the sequence as one CUDA graph against its steps one by
 * one, its counters as one.
 *
 * A sequence's sample starts on an idle GPU: its prologue (outputs and
 * intermediates reset, the L2 flushed) is waited for before the first step
 * is launched, so the gaps between steps hold what launching them one by
 * one costs, as in a program that runs the algorithm once; a graph of the
 * same steps, launched whole, shows how much of that a graph removes: the
 * two are timed in turns between CUDA events. */
#include "wseq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kclock.h"
#include "stats.h"

/* A sample's parts: each step's time, then the gap after each step. */
#define SEQ_PARTS (2 * PLAN_MAX_STEPS)
/* Graph samples: as many as the streamed ones took, within these. */
#define SEQ_GRAPH_MIN 10
#define SEQ_GRAPH_MAX 400

void seq_free(wseq *sq)
{
	free(sq->parts);
	sq->parts = NULL;
}

/* The step kernels' records of k samples, each into its time (first
 * start to last end) and parts. k when all came in order; 0 when not (why
 * says so), -1 when CUPTI failed. */
static int seq_take(wrun *r, int k, double *ms, double *parts, char *why, size_t whylen)
{
	const plan *p = r->p;
	int ns = p->nsteps;
	const char *syms[PLAN_MAX_STEPS];
	for (int j = 0; j < ns; j++)
		syms[j] = kernel_symbol(&p->steps[j]);
	kspan *sp = xcalloc((size_t)k * ns + 1, sizeof *sp);
	char *err = NULL;
	int got = kclock_take_spans(syms, ns, sp, k * ns, &err);
	int rc = got == k * ns ? k : 0;
	if (got < 0)
		snprintf(why, whylen, "%s", err ? err : "CUPTI failed");
	else if (rc == 0)
		snprintf(why, whylen, "CUPTI gave %d kernel records for %d launches", got, k * ns);
	for (int i = 0; i < rc; i++) {
		const kspan *s = sp + i * ns;
		double *pt = parts + (size_t)i * SEQ_PARTS;
		memset(pt, 0, SEQ_PARTS * sizeof *pt);
		for (int j = 0; j < ns && rc; j++) {
			if (strcmp(syms[s[j].sym], syms[j]) != 0) {
				snprintf(why, whylen, "the kernel records of a sample came out of the steps' order");
				rc = 0;
				break;
			}
			pt[j] = (double)(s[j].end_ns - s[j].start_ns) * 1e-6;
			if (j + 1 < ns)
				pt[PLAN_MAX_STEPS + j] = ((double)s[j + 1].start_ns - (double)s[j].end_ns) * 1e-6;
		}
		ms[i] = (double)(s[ns - 1].end_ns - s[0].start_ns) * 1e-6;
	}
	free(err);
	free(sp);
	return got < 0 ? -1 : rc;
}

int seq_clock_samples(wrun *r, wseq *sq, wpool *pool, wkernels *k, wseq_prologue pro, void *ctx, int n,
                      int count, double *ms, char *why, size_t whylen)
{
	const char *name = r->p->launch.name;
	loop_split *sp = &r->res->split;
	if (!sq->parts)
		sq->parts = xcalloc((size_t)RES_MAX_SAMPLES * SEQ_PARTS, sizeof *sq->parts);
	for (int i = 0; i < count; i++) {
		uint64_t t0 = now_ns();
		if (pro(ctx, n + i) != 0 || w_ck_kernel(r, cu.CtxSynchronize(), name) != 0 ||
		    w_run_steps(r, pool, k, NULL) != 0)
			return -1;
		uint64_t t1 = now_ns();
		sp->issue_ms += (double)(t1 - t0) / 1e6;
		if (w_ck_kernel(r, cu.CtxSynchronize(), name) != 0)
			return -1;
		sp->wait_ms += ms_since(t1);
	}
	uint64_t t2 = now_ns();
	int got = seq_take(r, count, ms, sq->parts + (size_t)n * SEQ_PARTS, why, whylen);
	sp->records_ms += ms_since(t2);
	sp->takes++;
	return got;
}

/* The parts of the median sample (the lower of two middle ones), which add
 * up to it. */
static void seq_split_of(const double *ms, const double *parts, int n, int ns, seq_split *out)
{
	memset(out, 0, sizeof *out);
	if (n <= 0)
		return;
	int *idx = xcalloc((size_t)n, sizeof *idx);
	for (int i = 0; i < n; i++)
		idx[i] = i;
	/* insertion sort of the indices by time: n is at most RES_MAX_SAMPLES */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && ms[idx[j]] < ms[idx[j - 1]]; j--) {
			int t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	int m = idx[(n - 1) / 2];
	free(idx);
	const double *pt = parts + (size_t)m * SEQ_PARTS;
	out->nsteps = ns;
	for (int j = 0; j < ns; j++) {
		out->step_ms[j] = pt[j];
		out->gap_ms[j] = pt[PLAN_MAX_STEPS + j];
	}
	out->total_ms = ms[m];
}

void seq_split_result(wrun *r, const wseq *sq)
{
	result *res = r->res;
	if (r->p->nsteps == 0 || res->clock != CLOCK_KERNEL || !sq->parts)
		return;
	seq_split_of(res->samples_ms, sq->parts, res->nsamples, r->p->nsteps, &res->seq.stream);
}

/* The steps captured on st into one graph, instantiated into *e. */
static int seq_capture(wrun *r, wpool *pool, wkernels *k, CUstream st, CUgraph *g, CUgraphExec *e)
{
	if (w_ck(r, cu.StreamBeginCapture(st, CU_STREAM_CAPTURE_MODE_RELAXED), "cuStreamBeginCapture") != 0)
		return -1;
	int rc = w_run_steps(r, pool, k, st);
	CUresult ec = cu.StreamEndCapture(st, g); /* ends the capture whatever happened in it */
	if (rc != 0 || w_ck(r, ec, "cuStreamEndCapture") != 0)
		return -1;
	return w_ck(r, cu.GraphInstantiateWithFlags(e, *g, 0), "cuGraphInstantiate");
}

/* One sample between two events on st, from an idle GPU: the steps
 * launched one by one (g NULL) or the graph. */
static int seq_event_sample(wrun *r, wpool *pool, wkernels *k, wtimer *tm, wseq_prologue pro, void *ctx, int n,
                            CUgraphExec g, CUstream st, double *ms)
{
	const char *name = r->p->launch.name;
	float f = 0;
	if (pro(ctx, n) != 0 || w_ck_kernel(r, cu.CtxSynchronize(), name) != 0 ||
	    w_ck(r, cu.EventRecord(tm->ev0, st), "cuEventRecord") != 0)
		return -1;
	if (g ? w_ck(r, cu.GraphLaunch(g, st), "cuGraphLaunch") != 0 : w_run_steps(r, pool, k, st) != 0)
		return -1;
	if (w_ck(r, cu.EventRecord(tm->ev1, st), "cuEventRecord") != 0 ||
	    w_ck_kernel(r, cu.EventSynchronize(tm->ev1), name) != 0 ||
	    w_ck(r, cu.EventElapsedTime(&f, tm->ev0, tm->ev1), "cuEventElapsedTime") != 0)
		return -1;
	*ms = f;
	return 0;
}

/* The graph against the steps launched one by one, in turns, both between
 * CUDA events (the kernel clock's records of a graph's kernels are not
 * like a stream's): as many pairs as the streamed samples were (within
 * SEQ_GRAPH_MIN..SEQ_GRAPH_MAX). -1 on an error. */
static int seq_graph_samples(wrun *r, wpool *pool, wkernels *k, wtimer *tm, wseq_prologue pro, void *ctx,
                             CUgraphExec e, CUstream st)
{
	seq_timing *sq = &r->res->seq;
	int want = r->res->nsamples;
	want = want < SEQ_GRAPH_MIN ? SEQ_GRAPH_MIN : want > SEQ_GRAPH_MAX ? SEQ_GRAPH_MAX : want;
	double *gms = xcalloc((size_t)want, sizeof *gms), *sms = xcalloc((size_t)want, sizeof *sms);
	int n = 0, rc = 0;
	for (; n < want && rc == 0 && !w_stop_now(r->chan); n++)
		if ((rc = seq_event_sample(r, pool, k, tm, pro, ctx, 2 * n, NULL, st, &sms[n])) == 0)
			rc = seq_event_sample(r, pool, k, tm, pro, ctx, 2 * n + 1, e, st, &gms[n]);
	if (rc == 0 && n > 0) {
		stats a, b;
		stats_compute(gms, n, &a);
		stats_compute(sms, n, &b);
		sq->graph_n = n;
		sq->graph_ms = a.median;
		sq->graph_lo_ms = a.has_ci ? a.ci_lo : 0;
		sq->graph_hi_ms = a.has_ci ? a.ci_hi : 0;
		sq->streamed_ms = b.median;
	}
	free(gms);
	free(sms);
	return rc;
}

int seq_graph_pass(wrun *r, wpool *pool, wkernels *k, wtimer *tm, wseq_prologue pro, void *ctx)
{
	const plan *p = r->p;
	seq_timing *sq = &r->res->seq;
	if (!p->t.graph || p->nsteps == 0 || r->res->nsamples == 0)
		return 0;
	if (!cu.StreamBeginCapture || !cu.StreamEndCapture || !cu.GraphInstantiateWithFlags || !cu.GraphLaunch ||
	    !cu.GraphExecDestroy || !cu.GraphDestroy) {
		snprintf(sq->note, sizeof sq->note, "no graph timing: this driver has no CUDA graph entry points");
		return 0;
	}
	CUstream st = NULL;
	CUgraph g = NULL;
	CUgraphExec e = NULL;
	int rc = w_ck(r, cu.StreamCreate(&st, CU_STREAM_DEFAULT), "cuStreamCreate");
	if (rc == 0)
		rc = seq_capture(r, pool, k, st, &g, &e);
	if (rc == 0)
		rc = seq_graph_samples(r, pool, k, tm, pro, ctx, e, st);
	if (e && w_ck(r, cu.GraphExecDestroy(e), "cuGraphExecDestroy") != 0)
		rc = -1;
	if (g && w_ck(r, cu.GraphDestroy(g), "cuGraphDestroy") != 0)
		rc = -1;
	if (st && w_ck(r, cu.StreamDestroy(st), "cuStreamDestroy") != 0)
		rc = -1;
	return rc;
}
int seq_graph_once(wrun *r, wpool *pool, wkernels *k, wseq_prologue pro, void *ctx)
{
	CUstream st = NULL;
	CUgraph g = NULL;
	CUgraphExec e = NULL;
	int rc = w_ck(r, cu.StreamCreate(&st, CU_STREAM_DEFAULT), "cuStreamCreate");
	if (rc == 0)
		rc = seq_capture(r, pool, k, st, &g, &e);
	if (rc == 0 && (pro(ctx, 0) != 0 || w_ck_kernel(r, cu.CtxSynchronize(), r->p->launch.name) != 0 ||
	                w_ck(r, cu.GraphLaunch(e, st), "cuGraphLaunch") != 0 ||
	                w_ck_kernel(r, cu.StreamSynchronize(st), r->p->launch.name) != 0))
		rc = -1;
	if (e && w_ck(r, cu.GraphExecDestroy(e), "cuGraphExecDestroy") != 0)
		rc = -1;
	if (g && w_ck(r, cu.GraphDestroy(g), "cuGraphDestroy") != 0)
		rc = -1;
	if (st && w_ck(r, cu.StreamDestroy(st), "cuStreamDestroy") != 0)
		rc = -1;
	return rc;
}

static int ends_with(const char *s, const char *end)
{
	size_t a = strlen(s), b = strlen(end);
	return a >= b && strcmp(s + a - b, end) == 0;
}

void seq_combine_metrics(const char *const *names, int n, int ns, const double *per, double *out)
{
	int dur = -1;
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], "gpu__time_duration.sum") == 0)
			dur = i;
	double wsum = 0;
	for (int r = 0; r < ns; r++)
		wsum += dur >= 0 ? per[r * n + dur] : 1;
	for (int i = 0; i < n; i++) {
		double v = per[i];
		if (ends_with(names[i], ".sum")) {
			for (int r = 1; r < ns; r++)
				v += per[r * n + i];
		} else if (ends_with(names[i], ".max") || ends_with(names[i], ".min")) {
			int mx = ends_with(names[i], ".max");
			for (int r = 1; r < ns; r++)
				if (mx ? per[r * n + i] > v : per[r * n + i] < v)
					v = per[r * n + i];
		} else if (ns > 1 && wsum > 0) {
			v = 0;
			for (int r = 0; r < ns; r++)
				v += per[r * n + i] * (dur >= 0 ? per[r * n + dur] : 1) / wsum;
		}
		out[i] = v;
	}
}
