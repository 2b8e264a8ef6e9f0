/* test_stage.c: the staging area (server_stage.c) on a stand-in driver
 * whose "device" is host memory and whose copies on a stream happen only
 * when the stream or an event recorded after them is waited for, so a
 * chunk read before its copy has landed, or a half written while its copy
 * up is pending, shows as wrong data. */
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "staging.h"

/* ---- the stand-in driver */

enum { OP_COPY, OP_EVENT };
typedef struct op {
	int kind;
	void *dst;
	const void *src;
	size_t bytes;
	int event;
} op;

static op queue[64];
static int nq;
static int fail_after = -1; /* the n-th async copy fails (-1: none) */
static int ncopies, overlapped, pinned_out;
static CUresult alloc_result = CUDA_SUCCESS;

static void run_queue(int upto_event)
{
	int done = 0;
	for (int i = 0; i < nq; i++) {
		done = i + 1;
		if (queue[i].kind == OP_COPY)
			memcpy(queue[i].dst, queue[i].src, queue[i].bytes);
		else if (queue[i].event == upto_event)
			break;
	}
	memmove(queue, queue + done, (size_t)(nq - done) * sizeof *queue);
	nq -= done;
}

static CUresult push_copy(void *dst, const void *src, size_t bytes)
{
	if (fail_after >= 0 && ncopies++ == fail_after)
		return CUDA_ERROR_INVALID_VALUE;
	if (nq > 0)
		overlapped++; /* queued while another copy was still pending */
	queue[nq++] = (op){ OP_COPY, dst, src, bytes, 0 };
	return CUDA_SUCCESS;
}

static CUresult f_dtoh_async(void *dst, CUdeviceptr src, size_t bytes, CUstream s)
{
	(void)s;
	return push_copy(dst, (const void *)(uintptr_t)src, bytes);
}

static CUresult f_htod_async(CUdeviceptr dst, const void *src, size_t bytes, CUstream s)
{
	(void)s;
	return push_copy((void *)(uintptr_t)dst, src, bytes);
}

static CUresult f_dtoh(void *dst, CUdeviceptr src, size_t bytes)
{
	run_queue(-1);
	memcpy(dst, (const void *)(uintptr_t)src, bytes);
	return CUDA_SUCCESS;
}

static CUresult f_stream_sync(CUstream s)
{
	(void)s;
	run_queue(-1);
	return CUDA_SUCCESS;
}

static int events;
static CUresult f_event_create(CUevent *ev, unsigned int flags)
{
	(void)flags;
	*ev = (CUevent)(uintptr_t)(++events);
	return CUDA_SUCCESS;
}

static CUresult f_event_record(CUevent ev, CUstream s)
{
	(void)s;
	queue[nq++] = (op){ OP_EVENT, NULL, NULL, 0, (int)(uintptr_t)ev };
	return CUDA_SUCCESS;
}

static CUresult f_event_sync(CUevent ev)
{
	run_queue((int)(uintptr_t)ev);
	return CUDA_SUCCESS;
}

static CUresult f_event_destroy(CUevent ev)
{
	(void)ev;
	return CUDA_SUCCESS;
}

static CUresult f_stream_create(CUstream *s, unsigned int flags)
{
	(void)flags;
	*s = (CUstream)(uintptr_t)1;
	return CUDA_SUCCESS;
}

static CUresult f_stream_destroy(CUstream s)
{
	(void)s;
	return CUDA_SUCCESS;
}

static CUresult f_host_alloc(void **p, size_t bytes, unsigned int flags)
{
	(void)flags;
	if (alloc_result != CUDA_SUCCESS)
		return alloc_result;
	*p = malloc(bytes);
	pinned_out++;
	return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult f_host_free(void *p)
{
	free(p);
	pinned_out--;
	return CUDA_SUCCESS;
}

static void driver(void)
{
	cu.MemcpyDtoHAsync = f_dtoh_async;
	cu.MemcpyHtoDAsync = f_htod_async;
	cu.MemcpyDtoH = f_dtoh;
	cu.StreamSynchronize = f_stream_sync;
	cu.StreamCreate = f_stream_create;
	cu.StreamDestroy = f_stream_destroy;
	cu.EventCreate = f_event_create;
	cu.EventRecord = f_event_record;
	cu.EventSynchronize = f_event_sync;
	cu.EventDestroy = f_event_destroy;
	cu.MemHostAlloc = f_host_alloc;
	cu.MemFreeHost = f_host_free;
}

typedef struct fx {
	wstaging st;
	wchan chan;
	wrun r;
	result res;
} fx;

static void fx_init(fx *f)
{
	memset(f, 0, sizeof *f);
	f->r.chan = &f->chan;
	f->r.res = &f->res;
	f->res.status = RES_OK;
	nq = 0;
	ncopies = 0;
	overlapped = 0;
	fail_after = -1;
	alloc_result = CUDA_SUCCESS;
}

static CUdeviceptr dev(void *p)
{
	return (CUdeviceptr)(uintptr_t)p;
}

static int same_result(const cmp_result *a, const cmp_result *b)
{
	return a->ok == b->ok && a->bad_index == b->bad_index && a->nonfinite == b->nonfinite &&
	       memcmp(&a->rel_err, &b->rel_err, sizeof a->rel_err) == 0 &&
	       memcmp(&a->got, &b->got, sizeof a->got) == 0 && memcmp(&a->want, &b->want, sizeof a->want) == 0;
}

/* ---- the tests */

TEST(download_and_compare)
{
	driver();
	/* 5.5 chunks of floats; a bad element in the fifth chunk, a NaN in the
	 * sixth: the first bad one is found again by a fetch */
	uint64_t n = (uint64_t)11 << 20, per = (uint64_t)2 << 20;
	float *want = malloc(n * sizeof *want), *out = malloc(n * sizeof *out);
	buffer_fill(want, DT_FLOAT, n, INIT_RANDOM, 0, 9);
	for (int k = 0; k < 4; k++) {
		fx f;
		fx_init(&f);
		memcpy(out, want, n * sizeof *out);
		if (k >= 1)
			out[4 * per + 12345] += 0.5f;
		if (k >= 2)
			out[5 * per + 7] = NAN;
		if (k == 3)
			out[n - 1] = INFINITY;
		cmp_result staged, whole;
		CHECK(stage_compare(&f.r, &f.st, dev(out), "out", DT_FLOAT, want, DT_FLOAT, n, 1e-5, &staged) == 0);
		CHECK(f.res.status == RES_OK);
		ref_compare_typed(out, DT_FLOAT, want, DT_FLOAT, n, 1e-5, &whole);
		CHECK(same_result(&staged, &whole));
		CHECK(nq == 0);
		if (k == 0)
			CHECK(staged.ok && staged.bad_index == -1);
		else
			CHECK(!staged.ok && staged.bad_index == (int64_t)(4 * per + 12345));
		if (k >= 2)
			CHECK(staged.nonfinite == (uint64_t)(k == 3 ? 2 : 1));
		stage_free(&f.st);
		CHECK(pinned_out == 0);
	}
	/* doubles against doubles, half against its wanted doubles, a length no
	 * chunk divides, and one element */
	uint64_t m = 3 * ((uint64_t)1 << 20) + 17;
	double *dw = malloc(m * sizeof *dw), *dg = malloc(m * sizeof *dg);
	buffer_fill(dw, DT_DOUBLE, m, INIT_RANDOM, 0, 4);
	memcpy(dg, dw, m * sizeof *dg);
	dg[m - 3] += 1e-3;
	fx f;
	fx_init(&f);
	cmp_result a, b;
	CHECK(stage_compare(&f.r, &f.st, dev(dg), "d", DT_DOUBLE, dw, DT_DOUBLE, m, 1e-10, &a) == 0);
	ref_compare_typed(dg, DT_DOUBLE, dw, DT_DOUBLE, m, 1e-10, &b);
	CHECK(same_result(&a, &b) && !a.ok && a.bad_index == (int64_t)(m - 3));
	uint16_t *hg = malloc(m * sizeof *hg);
	buffer_fill(hg, DT_HALF, m, INIT_RANDOM, 0, 5);
	buffer_to_double(hg, DT_HALF, m, dw);
	hg[m / 2] ^= 0x0400;
	CHECK(stage_compare(&f.r, &f.st, dev(hg), "h", DT_HALF, dw, DT_DOUBLE, m, 5e-3, &a) == 0);
	ref_compare_typed(hg, DT_HALF, dw, DT_DOUBLE, m, 5e-3, &b);
	CHECK(same_result(&a, &b));
	CHECK(stage_compare(&f.r, &f.st, dev(dg), "one", DT_DOUBLE, dg, DT_DOUBLE, 1, 0, &a) == 0 && a.ok);
	CHECK(stage_compare(&f.r, &f.st, dev(dg), "none", DT_DOUBLE, dg, DT_DOUBLE, 0, 0, &a) == 0 && a.ok);
	stage_free(&f.st);
	CHECK(pinned_out == 0);
	free(hg);
	free(dw);
	free(dg);
	free(want);
	free(out);
}

TEST(upload)
{
	driver();
	size_t sizes[] = { (size_t)16 << 20, ((size_t)41 << 20) + 3 };
	for (size_t i = 0; i < ARRAY_LEN(sizes); i++) {
		size_t bytes = sizes[i];
		unsigned char *src = malloc(bytes), *dst = calloc(1, bytes);
		buffer_fill(src, DT_U8, bytes, INIT_RANDOM, 0, 3 + i);
		fx f;
		fx_init(&f);
		CHECK(stage_upload(&f.r, &f.st, dev(dst), src, bytes, "in") == 0);
		CHECK(f.res.status == RES_OK && nq == 0);
		CHECK(memcmp(src, dst, bytes) == 0);
		CHECK(overlapped > 0); /* a chunk queued while the one before was still pending */
		stage_free(&f.st);
		free(src);
		free(dst);
	}
	/* small: one plain copy does */
	unsigned char small[100];
	fx f;
	fx_init(&f);
	CHECK(stage_upload(&f.r, &f.st, dev(small), small, sizeof small, "s") == 1);
	CHECK(pinned_out == 0);
}

TEST(falls_back_and_fails)
{
	driver();
	uint64_t n = (uint64_t)5 << 20;
	float *a = calloc(n, sizeof *a);
	cmp_result cr;
	/* no staging area to be had: 1 (the whole copies), once and for all */
	fx f;
	fx_init(&f);
	alloc_result = CUDA_ERROR_OUT_OF_MEMORY;
	CHECK(stage_compare(&f.r, &f.st, dev(a), "out", DT_FLOAT, a, DT_FLOAT, n, 1e-5, &cr) == 1);
	alloc_result = CUDA_SUCCESS;
	CHECK(stage_upload(&f.r, &f.st, dev(a), a, n * sizeof *a, "in") == 1);
	CHECK(f.res.status == RES_OK && pinned_out == 0);
	/* CUPLAY_PAGEABLE: no cuMemHostAlloc */
	fx_init(&f);
	setenv("CUPLAY_PAGEABLE", "1", 1);
	CHECK(stage_compare(&f.r, &f.st, dev(a), "out", DT_FLOAT, a, DT_FLOAT, n, 1e-5, &cr) == 1);
	CHECK(pinned_out == 0);
	unsetenv("CUPLAY_PAGEABLE");
	/* a copy that fails: -1, said, and nothing left in flight */
	fx_init(&f);
	fail_after = 1;
	CHECK(stage_compare(&f.r, &f.st, dev(a), "out", DT_FLOAT, a, DT_FLOAT, n, 1e-5, &cr) == -1);
	CHECK(f.res.status == RES_ERROR && strstr(f.res.error, "cuMemcpyDtoHAsync") != NULL);
	CHECK(nq == 0);
	stage_free(&f.st);
	fx_init(&f);
	fail_after = 2;
	CHECK(stage_upload(&f.r, &f.st, dev(a), a, n * sizeof *a, "in") == -1);
	CHECK(f.res.status == RES_ERROR && strstr(f.res.error, "cuMemcpyHtoDAsync") != NULL);
	CHECK(nq == 0);
	stage_free(&f.st);
	CHECK(pinned_out == 0);
	free(a);
}

int main(void)
{
	RUN(download_and_compare);
	RUN(upload);
	RUN(falls_back_and_fails);
	return test_report("stage");
}
