/* staging.c: a small page-locked staging area, allocated once per
 * worker, through which a new configuration's buffers go up and its
 * checked outputs come down in chunks, the host's work on one chunk
 * beside the copy of the next; and the pageable download buffer used
 * where the staging area cannot be had.
 *
 * Why two chunks of 8 MiB. Page-locking costs the host about 0.6 ms a MiB
 * (256 MiB: ~150 ms on an H100's host), paid once per worker: 16 MiB is
 * ~10 ms, against the ~70 ms that a 256 MiB output's pageable download
 * loses to page faults and the slower link. A copy of 8 MiB over a pinned
 * link of ~50 GB/s takes ~0.15 ms; the host's work on the chunk (comparing
 * 8 MiB with 8 MiB or more of wanted values, or copying 8 MiB out of a
 * pageable array into the area) moves 16 MiB or more through host memory
 * at a few tens of GB/s, ~0.5 ms, plus starting its threads (par.h starts
 * them for each loop: some tens of us each), which a chunk of 8 MiB keeps
 * to a fraction of it. The host side is the slower one, so two chunks (the
 * copy fills or drains one while the host works on the other) keep the
 * link busy whenever the host can; a third would only wait. */
#include "staging.h"

#include <stdlib.h>
#include <string.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"

#define STAGE_CHUNK ((size_t)8 << 20)
#define STAGE_CHUNKS 2

static unsigned char *pin_chunk(wstaging *st, int k)
{
	return (unsigned char *)st->area + (size_t)(k % STAGE_CHUNKS) * STAGE_CHUNK;
}

static void pin_release(wrun *r, wstaging *st)
{
	for (int k = 0; k < STAGE_CHUNKS; k++)
		if (st->done[k]) {
			CUresult e = cu.EventDestroy(st->done[k]);
			if (r)
				w_ck(r, e, "cuEventDestroy");
			st->done[k] = NULL;
		}
	if (st->stream) {
		CUresult e = cu.StreamDestroy(st->stream);
		if (r)
			w_ck(r, e, "cuStreamDestroy");
		st->stream = NULL;
	}
	if (st->area) {
		CUresult e = cu.MemFreeHost(st->area);
		if (r)
			w_ck(r, e, "cuMemFreeHost");
		st->area = NULL;
	}
}

/* The staging area, made on first need: 1 ready; 0 not to be had in this
 * worker (the callers go the way they went before it; CUPLAY_PAGEABLE=1
 * too), said once in the trace; -1 a sticky error, reported. */
static int pin_ready(wrun *r, wstaging *st)
{
	if (st->state)
		return st->state > 0;
	st->state = -1;
	const char *env = getenv("CUPLAY_PAGEABLE");
	if (env && env[0] && strcmp(env, "0") != 0) {
		w_trace(r, "staging area: none (CUPLAY_PAGEABLE): whole copies");
		return 0;
	}
	uint64_t t0 = now_ns();
	const char *call = "cuMemHostAlloc";
	CUresult e = cu.MemHostAlloc(&st->area, STAGE_CHUNK * STAGE_CHUNKS, 0);
	if (e != CUDA_SUCCESS)
		st->area = NULL;
	if (e == CUDA_SUCCESS) {
		call = "cuStreamCreate";
		e = cu.StreamCreate(&st->stream, CU_STREAM_DEFAULT);
		if (e != CUDA_SUCCESS)
			st->stream = NULL;
	}
	for (int k = 0; k < STAGE_CHUNKS && e == CUDA_SUCCESS; k++) {
		call = "cuEventCreate";
		e = cu.EventCreate(&st->done[k], CU_EVENT_DISABLE_TIMING);
		if (e != CUDA_SUCCESS)
			st->done[k] = NULL;
	}
	if (e != CUDA_SUCCESS) {
		if (cu_is_sticky(e))
			return w_ck(r, e, call);
		w_trace(r, "staging area: %s failed (%s): whole copies", call, cu_errstr(e));
		pin_release(NULL, st);
		return 0;
	}
	st->state = 1;
	w_trace(r, "staging area: %d x %zu MiB page-locked in %.1f ms", STAGE_CHUNKS, STAGE_CHUNK >> 20,
	        ms_since(t0));
	return 1;
}

int stage_prepare(wrun *r, wstaging *st)
{
	return pin_ready(r, st) < 0 ? -1 : 0;
}

/* ---- down: the checked output in chunks, each compared as it lands */

typedef struct refetch {
	wrun *r;
	wstaging *st;
	CUdeviceptr d;
	size_t es;
	void *spare; /* a chunk too large for the staging area */
} refetch;

/* ref_cmp_end's fetch: elements [lo, hi) of the output, again. */
static const void *refetch_got(void *ctx, uint64_t lo, uint64_t hi)
{
	refetch *f = ctx;
	size_t bytes = (size_t)(hi - lo) * f->es;
	void *dst = f->st->area;
	if (bytes > STAGE_CHUNK * STAGE_CHUNKS) {
		free(f->spare);
		f->spare = w_hmalloc(f->r, bytes, "the chunk that holds the first bad element");
		if (!f->spare)
			return NULL;
		dst = f->spare;
	}
	if (w_ck(f->r, cu.MemcpyDtoH(dst, f->d + lo * f->es, bytes), "cuMemcpyDtoH") != 0)
		return NULL;
	return dst;
}

int stage_compare(wrun *r, wstaging *st, CUdeviceptr d, const char *name, dtype gt, const void *want, dtype wt,
                  uint64_t n, double tol, cmp_result *cr)
{
	int ready = pin_ready(r, st);
	if (ready <= 0)
		return ready < 0 ? -1 : 1;
	uint64_t t0 = now_ns();
	size_t es = dtype_size(dtype_scalar(gt));
	uint64_t per = STAGE_CHUNK / es, nch = n / per + (n % per != 0);
	cmp_run *cmp = ref_cmp_begin(gt, wt, n, tol);
	int ret = -1, queued = 0;
	/* chunk k + 1 is queued once chunk k has landed (the stream then holds
	 * nothing else), into the half the host finished with before */
	if (nch > 0) {
		uint64_t m = n > per ? per : n;
		if (w_ck(r, cu.MemcpyDtoHAsync(pin_chunk(st, 0), d, m * es, st->stream), "cuMemcpyDtoHAsync") != 0)
			goto out;
		queued = 1;
	}
	for (uint64_t k = 0; k < nch; k++) {
		uint64_t lo = k * per, hi = n - lo > per ? lo + per : n;
		queued = 0;
		if (w_ck(r, cu.StreamSynchronize(st->stream), "cuStreamSynchronize") != 0)
			goto out;
		if (k + 1 < nch) {
			uint64_t hi2 = n - hi > per ? hi + per : n;
			if (w_ck(r, cu.MemcpyDtoHAsync(pin_chunk(st, (int)(k + 1)), d + hi * es, (hi2 - hi) * es,
			                               st->stream), "cuMemcpyDtoHAsync") != 0)
				goto out;
			queued = 1;
		}
		ref_cmp_range(cmp, pin_chunk(st, (int)k), want, lo, hi);
	}
	refetch f = { r, st, d, es, NULL };
	int rc = ref_cmp_end(cmp, want, refetch_got, &f, cr);
	cmp = NULL;
	free(f.spare);
	if (rc != 0) {
		if (r->res->status == RES_OK)
			w_fail(r, W_ERROR, "the comparison of '%s' came out incomplete", name);
		goto out;
	}
	w_trace(r, "downloaded and compared '%s' in %" PRIu64 " chunk%s through the staging area"
	        " (%.1f MiB, %.1f ms)", name, nch, nch == 1 ? "" : "s", (double)(n * es) / (double)MiB,
	        ms_since(t0));
	ret = 0;
out:
	if (queued) /* the area is not reused while a copy may still write it */
		w_ck(r, cu.StreamSynchronize(st->stream), "cuStreamSynchronize");
	ref_cmp_abort(cmp);
	return ret;
}

/* ---- up: a host array in chunks, each copied into the area on every core
 * while the one before goes up */

typedef struct pin_copy {
	unsigned char *dst;
	const unsigned char *src;
} pin_copy;

static void pin_copy_part(void *p, uint64_t ci, uint64_t lo, uint64_t hi)
{
	const pin_copy *c = p;
	(void)ci;
	memcpy(c->dst + lo, c->src + lo, hi - lo);
}

int stage_upload(wrun *r, wstaging *st, CUdeviceptr dst, const void *src, size_t bytes, const char *name)
{
	if (bytes < 2 * STAGE_CHUNK) /* one copy: nothing to overlap */
		return 1;
	int ready = pin_ready(r, st);
	if (ready <= 0)
		return ready < 0 ? -1 : 1;
	uint64_t t0 = now_ns();
	size_t nch = bytes / STAGE_CHUNK + (bytes % STAGE_CHUNK != 0);
	int ret = -1, used[STAGE_CHUNKS] = {0};
	for (size_t k = 0; k < nch; k++) {
		size_t lo = k * STAGE_CHUNK, m = bytes - lo > STAGE_CHUNK ? STAGE_CHUNK : bytes - lo;
		int b = (int)(k % STAGE_CHUNKS);
		/* the half's last copy up has read it */
		if (used[b] && w_ck(r, cu.EventSynchronize(st->done[b]), "cuEventSynchronize") != 0)
			goto out;
		pin_copy c = { pin_chunk(st, b), (const unsigned char *)src + lo };
		par_chunks(m, (uint64_t)1 << 20, pin_copy_part, &c);
		if (w_ck(r, cu.MemcpyHtoDAsync(dst + lo, pin_chunk(st, b), m, st->stream), "cuMemcpyHtoDAsync") != 0 ||
		    w_ck(r, cu.EventRecord(st->done[b], st->stream), "cuEventRecord") != 0)
			goto out;
		used[b] = 1;
	}
	ret = 0;
out:
	/* done (or failed) only once nothing is in flight */
	if (w_ck(r, cu.StreamSynchronize(st->stream), "cuStreamSynchronize") != 0)
		ret = -1;
	if (ret == 0)
		w_trace(r, "uploaded '%s' through the staging area in %zu chunks (%.1f MiB, %.1f ms)", name, nch,
		        (double)bytes / (double)MiB, ms_since(t0));
	return ret;
}

/* ---- host arrays a copy from the GPU writes whole */

static void touch_part(void *p, uint64_t ci, uint64_t lo, uint64_t hi)
{
	volatile unsigned char *b = p;
	(void)ci;
	for (uint64_t i = lo; i < hi; i += 4096)
		b[i] = 0;
}

void *stage_host_array(wrun *r, size_t bytes, const char *what)
{
	unsigned char *p = w_hmalloc(r, bytes, what);
	/* every page faulted in now, on every core: a copy into fresh pageable
	 * memory takes each fault in turn (~1 us a 4 KiB page) */
	if (p && bytes > ((size_t)4 << 20))
		par_chunks(bytes, (uint64_t)4 << 20, touch_part, p);
	return p;
}

/* ---- the pageable download buffer: where there is no staging area, a
 * checked output comes down whole, into a buffer kept between runs */

static void stage_drop(wstaging *st)
{
	free(st->download);
	st->download = NULL;
	st->download_bytes = 0;
}

void stage_free(wstaging *st)
{
	stage_drop(st);
	pin_release(NULL, st);
	st->state = 0;
}

void stage_trim(wstaging *st)
{
	if (st->download && st->download_bytes > STAGE_KEEP_MAX)
		stage_drop(st);
}

void *stage_get(wrun *r, wstaging *st, size_t bytes, const char *what)
{
	if (bytes == 0)
		bytes = 1;
	if (st->download && st->download_bytes >= bytes)
		return st->download;
	stage_drop(st);
	void *h = stage_host_array(r, bytes, what);
	if (!h)
		return NULL;
	st->download = h;
	st->download_bytes = bytes;
	return h;
}
