/* kclock.c: kernel durations from CUPTI's kernel activity records. */
#include "kclock.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_abi.h"
#include "cuptilib.h"
#include "util.h"

#define KC_BUFFER (64 * 1024) /* one activity buffer: ~300 kernel records */
#define KC_RING 1024          /* finished kernels kept between takes */
#define KT_RING 4096          /* spans of a timeline */

static struct kclock_state {
	int loaded;           /* 1 ok, -1 failed (why says why) */
	char *why;
	int registered, on;
	CUptiResult (*Enable)(int kind);
	CUptiResult (*Disable)(int kind);
	CUptiResult (*RegisterCallbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
	CUptiResult (*FlushAll)(uint32_t flag);
	CUptiResult (*GetNextRecord)(uint8_t *buffer, size_t valid, void **record);
	/* finished kernels: the buffer callbacks may run on a CUPTI thread */
	pthread_mutex_t mu;
	struct {
		uint64_t name_hash;
		double ms;
		uint64_t start, end;  /* the GPU's timestamps, ns */
	} ring[KC_RING];
	int n;
	unsigned long lost;   /* kernels that did not fit, or buffers CUPTI could not get */
	int tracing;          /* ktrace_start: copies and concurrent kernels go to trace[] */
	tl_span trace[KT_RING];
	int ntrace, trace_lost;
} K = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* FNV-1a: kernels are told apart by their symbol's hash, so a record's
 * name (CUPTI's memory) is never kept */
static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void on_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = aligned_alloc(8, KC_BUFFER);
	*size = *buffer ? KC_BUFFER : 0;
	*max_records = 0;
	if (!*buffer) {
		pthread_mutex_lock(&K.mu);
		K.lost++;
		pthread_mutex_unlock(&K.mu);
	}
}

static void on_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
	(void)ctx, (void)stream, (void)size;
	void *rec = NULL;
	pthread_mutex_lock(&K.mu);
	while (buffer && K.GetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS && rec) {
		const cupti_kernel_record *k = rec;
		if (K.tracing && (k->kind == CUPTI_ACTIVITY_KIND_MEMCPY || k->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) {
			if (K.ntrace == KT_RING) {
				K.trace_lost++;
				continue;
			}
			tl_span *sp = &K.trace[K.ntrace++];
			memset(sp, 0, sizeof *sp);
			if (k->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
				const cupti_memcpy_record *m = rec;
				sp->kind = m->copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD ? SPAN_H2D
				         : m->copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH ? SPAN_D2H : SPAN_COPY;
				sp->stream = m->stream_id;
				sp->start_ns = m->start;
				sp->end_ns = m->end;
				sp->bytes = m->bytes;
			} else {
				sp->kind = SPAN_KERNEL;
				sp->stream = k->stream_id;
				sp->start_ns = k->start;
				sp->end_ns = k->end;
			}
			continue;
		}
		if (k->kind != CUPTI_ACTIVITY_KIND_KERNEL && k->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
			continue;
		if (K.n == KC_RING || k->end < k->start) {
			K.lost++;
			continue;
		}
		K.ring[K.n].name_hash = name_hash(k->name);
		K.ring[K.n].ms = (double)(k->end - k->start) * 1e-6;
		K.ring[K.n].start = k->start;
		K.ring[K.n].end = k->end;
		K.n++;
	}
	pthread_mutex_unlock(&K.mu);
	free(buffer);
}

static int cupti_fail(char **why, const char *call, CUptiResult r)
{
	char text[200];
	cuptilib_result_text(r, text, sizeof text);
	if (why) {
		if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
			*why = xasprintf("kernel timestamps taken by another profiler (ncu, nsys or compute-sanitizer?): %s: %s",
			                 call, text);
		else
			*why = xasprintf("%s failed: %s", call, text);
	}
	return -1;
}

static int load(char **why)
{
	if (K.loaded == 0) {
		K.loaded = -1;
		if (!cuptilib_open(&K.why))
			goto out;
		static const struct {
			const char *name;
			size_t off;
		} syms[] = {
			{ "cuptiActivityEnable", offsetof(struct kclock_state, Enable) },
			{ "cuptiActivityDisable", offsetof(struct kclock_state, Disable) },
			{ "cuptiActivityRegisterCallbacks", offsetof(struct kclock_state, RegisterCallbacks) },
			{ "cuptiActivityFlushAll", offsetof(struct kclock_state, FlushAll) },
			{ "cuptiActivityGetNextRecord", offsetof(struct kclock_state, GetNextRecord) },
		};
		for (size_t i = 0; i < ARRAY_LEN(syms); i++)
			if (cuptilib_sym(syms[i].name, (char *)&K + syms[i].off) != 0) {
				K.why = xasprintf("CUPTI too old: no '%s' in '%s'", syms[i].name, cuptilib_path());
				goto out;
			}
		K.loaded = 1;
	}
out:
	if (K.loaded < 0 && why)
		*why = xstrdup(K.why ? K.why : "CUPTI not loaded");
	return K.loaded > 0 ? 0 : -1;
}

static void drop_pending(void)
{
	pthread_mutex_lock(&K.mu);
	K.n = 0;
	K.lost = 0;
	pthread_mutex_unlock(&K.mu);
}

/* CUPTI's buffers for activity records, registered once a process. */
static int register_once(char **why)
{
	if (K.registered)
		return 0;
	CUptiResult r = K.RegisterCallbacks(on_request, on_complete);
	if (r != CUPTI_SUCCESS)
		return cupti_fail(why, "cuptiActivityRegisterCallbacks", r);
	K.registered = 1;
	return 0;
}

int kclock_start(char **why)
{
	if (load(why) != 0)
		return -1;
	if (K.tracing) {
		if (why)
			*why = xstrdup("a timeline is being recorded");
		return -1;
	}
	CUptiResult r;
	if (register_once(why) != 0)
		return -1;
	if (!K.on) {
		if ((r = K.Enable(CUPTI_ACTIVITY_KIND_KERNEL)) != CUPTI_SUCCESS)
			return cupti_fail(why, "cuptiActivityEnable", r);
		K.on = 1;
	}
	drop_pending();
	return 0;
}

int kclock_prepare(char **why)
{
	if (load(why) != 0 || register_once(why) != 0)
		return -1;
	if (K.on || K.tracing)
		return 0;
	/* the first enable attaches CUPTI to the context; the forced flush
	 * hands back what it gathered, and drop_pending forgets it */
	CUptiResult r = K.Enable(CUPTI_ACTIVITY_KIND_KERNEL);
	if (r != CUPTI_SUCCESS)
		return cupti_fail(why, "cuptiActivityEnable", r);
	const char *call = "cuptiActivityDisable";
	if ((r = K.Disable(CUPTI_ACTIVITY_KIND_KERNEL)) == CUPTI_SUCCESS) {
		call = "cuptiActivityFlushAll";
		r = K.FlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	}
	drop_pending();
	return r == CUPTI_SUCCESS ? 0 : cupti_fail(why, call, r);
}

/* Moves the matching durations out and empties the ring: -1 when some were lost. */
static int move_out(uint64_t h, double *ms, int max, int *got)
{
	pthread_mutex_lock(&K.mu);
	for (int i = 0; i < K.n; i++)
		if (K.ring[i].name_hash == h && *got < max)
			ms[(*got)++] = K.ring[i].ms;
	K.n = 0;
	unsigned long lost = K.lost;
	K.lost = 0;
	pthread_mutex_unlock(&K.mu);
	return lost ? -1 : 0;
}

int kclock_take(const char *symbol, double *ms, int max, char **why)
{
	if (!K.on) {
		if (why)
			*why = xstrdup("kernel timestamps are not being recorded");
		return -1;
	}
	uint64_t h = name_hash(symbol);
	int got = 0;
	/* a plain flush hands over the buffers whose records are all complete;
	 * after the caller's synchronize that is all of them, but a forced one
	 * follows when fewer than max came */
	for (int pass = 0; pass < 2 && got < max; pass++) {
		CUptiResult r = K.FlushAll(pass ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
		if (r != CUPTI_SUCCESS)
			return cupti_fail(why, "cuptiActivityFlushAll", r);
		if (move_out(h, ms, max, &got) != 0) {
			if (why)
				*why = xstrdup("CUPTI lost kernel records (out of buffer space)");
			return -1;
		}
	}
	return got;
}

/* Moves the records of the kernels in h[0..nh) out as spans and empties
 * the ring: -1 when some were lost. */
static int move_spans(const uint64_t *h, int nh, kspan *out, int max, int *got)
{
	pthread_mutex_lock(&K.mu);
	for (int i = 0; i < K.n; i++)
		for (int j = 0; j < nh; j++)
			if (K.ring[i].name_hash == h[j] && *got < max) {
				out[(*got)++] = (kspan){ j, K.ring[i].start, K.ring[i].end };
				break;
			}
	K.n = 0;
	unsigned long lost = K.lost;
	K.lost = 0;
	pthread_mutex_unlock(&K.mu);
	return lost ? -1 : 0;
}

static int span_order(const void *a, const void *b)
{
	const kspan *x = a, *y = b;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

int kclock_take_spans(const char *const *symbols, int nsym, kspan *out, int max, char **why)
{
	if (!K.on) {
		if (why)
			*why = xstrdup("kernel timestamps are not being recorded");
		return -1;
	}
	uint64_t h[KCLOCK_MAX_SYMBOLS];
	if (nsym < 1 || nsym > KCLOCK_MAX_SYMBOLS) {
		if (why)
			*why = xasprintf("%d kernels to take spans of: 1 to %d", nsym, KCLOCK_MAX_SYMBOLS);
		return -1;
	}
	for (int i = 0; i < nsym; i++)
		h[i] = name_hash(symbols[i]);
	int got = 0;
	for (int pass = 0; pass < 2 && got < max; pass++) {
		CUptiResult r = K.FlushAll(pass ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
		if (r != CUPTI_SUCCESS)
			return cupti_fail(why, "cuptiActivityFlushAll", r);
		if (move_spans(h, nsym, out, max, &got) != 0) {
			if (why)
				*why = xstrdup("CUPTI lost kernel records (out of buffer space)");
			return -1;
		}
	}
	qsort(out, (size_t)got, sizeof *out, span_order);
	return got;
}

void kclock_stop(void)
{
	if (!K.on)
		return;
	K.Disable(CUPTI_ACTIVITY_KIND_KERNEL); /* nothing to do if it fails: records are dropped below */
	K.on = 0;
	K.FlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	drop_pending();
}

int ktrace_start(char **why)
{
	if (load(why) != 0)
		return -1;
	if (K.on) {
		if (why)
			*why = xstrdup("kernel timestamps are being recorded");
		return -1;
	}
	CUptiResult r;
	if (register_once(why) != 0)
		return -1;
	pthread_mutex_lock(&K.mu);
	K.ntrace = K.trace_lost = 0;
	K.tracing = 1;
	pthread_mutex_unlock(&K.mu);
	if ((r = K.Enable(CUPTI_ACTIVITY_KIND_MEMCPY)) != CUPTI_SUCCESS) {
		ktrace_stop();
		return cupti_fail(why, "cuptiActivityEnable (copies)", r);
	}
	if ((r = K.Enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) != CUPTI_SUCCESS) {
		K.Disable(CUPTI_ACTIVITY_KIND_MEMCPY);
		ktrace_stop();
		return cupti_fail(why, "cuptiActivityEnable (concurrent kernels)", r);
	}
	return 0;
}

int ktrace_take(tl_span *out, int max, int *lost, char **why)
{
	if (!K.tracing) {
		if (why)
			*why = xstrdup("the timeline is not being recorded");
		return -1;
	}
	CUptiResult r = K.FlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (r != CUPTI_SUCCESS)
		return cupti_fail(why, "cuptiActivityFlushAll", r);
	pthread_mutex_lock(&K.mu);
	int n = K.ntrace < max ? K.ntrace : max;
	memcpy(out, K.trace, (size_t)n * sizeof *out);
	*lost = K.trace_lost + (K.ntrace - n);
	K.ntrace = K.trace_lost = 0;
	unsigned long blost = K.lost;
	K.lost = 0;
	pthread_mutex_unlock(&K.mu);
	if (blost) /* a buffer CUPTI could not get: some records never came */
		*lost += (int)blost;
	return n;
}

void ktrace_stop(void)
{
	if (!K.tracing)
		return;
	K.Disable(CUPTI_ACTIVITY_KIND_MEMCPY);
	K.Disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	K.FlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	pthread_mutex_lock(&K.mu);
	K.tracing = 0;
	K.ntrace = K.trace_lost = 0;
	K.n = 0;
	K.lost = 0;
	pthread_mutex_unlock(&K.mu);
}
