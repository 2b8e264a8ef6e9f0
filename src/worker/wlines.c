/* wlines.c: the per-line run. */
#include "wlines.h"

#include <stdlib.h>
#include <string.h>

#include "sassprof.h"

/* What CUPTI gave, for the trace: the PC records and their samples, and
 * the function names each API reported. */
static void trace_names(wrun *r, const sp_head *h)
{
	char names[1024];
	size_t at = 0;
	names[0] = 0;
	for (int i = 0; i < h->nfuncs && at < sizeof names; i++) {
		int a = h->func_api[i];
		int w = snprintf(names + at, sizeof names - at, "%s'%s' (%s)", i ? ", " : "", h->funcs[i],
		                 a == (SP_BY_COUNTERS | SP_BY_SAMPLES) ? "counters, samples"
		                 : a == SP_BY_COUNTERS ? "counters" : a == SP_BY_SAMPLES ? "samples" : "?");
		at += w > 0 ? (size_t)w : 0;
	}
	w_trace(r, "per-line run: %d PC records (pc up to 0x%llx) with %llu samples, of %llu sampled (%llu dropped, "
	        "%llu in code CUPTI does not know); functions named: %s", h->pc_records,
	        (unsigned long long)h->samp_pc_max, (unsigned long long)h->record_samples,
	        (unsigned long long)h->total_samples, (unsigned long long)h->dropped_samples,
	        (unsigned long long)h->nonuser_samples, names[0] ? names : "none");
}

void lines_pass(wrun *r, const wstart *st, int (*prologue)(void *arg), int (*launch)(void *arg),
                int (*reload)(void *arg, char *err, size_t n), void *arg)
{
	const plan *p = r->p;
	w_progress(r->chan, 0, WIRE_PHASE_HOST, 0); /* patching and sampling are slow host work */
	sp_launch l = { prologue, launch, arg, reload };
	sp_head *h = xcalloc(1, sizeof *h);
	sp_pc *pcs = NULL;
	w_trace(r, "per-line run");
	prof_status ps = sassprof_collect(st->ctx, st->dev, &l, p->lines_period, h, &pcs);
	w_trace(r, "per-line run: counters %d (%.1f ms), samples %d (%.1f ms), %d instructions", h->status,
	        h->metrics_ms, h->samp_status, h->sampling_ms, h->npc);
	trace_names(r, h);
	if (ps == PROF_LAUNCH) {
		if (r->res->status == RES_OK)
			w_fail(r, W_ERROR, "kernel '%s': %s", p->launch.name, h->error[0] ? h->error : h->samp_error);
		w_ck_kernel(r, cu.CtxSynchronize(), p->launch.name);
		free(h);
		free(pcs);
		return;
	}
	if (ps != PROF_OK)
		w_ck_kernel(r, cu.CtxSynchronize(), p->launch.name); /* a fault in the replays is sticky */
	size_t len = sizeof *h + (size_t)h->npc * sizeof *pcs;
	char *buf = xmalloc(len);
	memcpy(buf, h, sizeof *h);
	if (h->npc > 0)
		memcpy(buf + sizeof *h, pcs, (size_t)h->npc * sizeof *pcs);
	free(r->chan->extra);
	r->chan->extra = buf;
	r->chan->extra_len = len;
	free(h);
	free(pcs);
}
