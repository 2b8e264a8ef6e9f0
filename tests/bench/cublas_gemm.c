/* cublas_gemm.c: cuBLAS (cublasLt) GEMM throughput for every precision the
 * device has, N x N x N, for `make bench` to set cuplay's best kernel of
 * each precision beside, and for the GPU tests to compare the tensor roofs
 * with. libcublasLt is loaded with dlopen from CUDA_HOME; the driver through
 * src/gpu/cudrv. Inputs are random (a hash of the index, never zeros), in
 * the "TN" layout cuBLAS prefers for tensor cores (A transposed); outputs
 * FP32 (INT32 for INT8). Each case: 3 warm-up launches, then REPS launches
 * each between two events.
 *
 * Usage: cublas_gemm [N ...] [-p fp32,tf32,fp16,bf16,int8,fp8]
 * Prints per case "cublas_gemm PREC N TFLOPS_BEST TFLOPS_MEDIAN BEST_MS
 * MEDIAN_MS", or "cublas_gemm PREC N skipped: why"; "cublas: skipped: why"
 * when there is no driver or library. */
#include "cudrv.h"
#include "types.h"
#include "util.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* values from the toolkit's library_types.h and cublasLt.h */
enum { R_32F = 0, R_16F = 2, R_8I = 3, R_32I = 10, R_16BF = 14, R_8F_E4M3 = 28 };
enum { COMPUTE_32F = 68, COMPUTE_32F_FAST_TF32 = 77, COMPUTE_32I = 72 };
enum { DESC_TRANSA = 3, DESC_TRANSB = 4, PREF_MAX_WORKSPACE_BYTES = 1 };
enum { OP_N = 0, OP_T = 1 };

typedef struct heur {
	uint64_t algo[8];
	size_t workspace;
	int state;
	float waves;
	int reserved[4];
} heur;

static struct lt {
	int (*Create)(void **);
	int (*Destroy)(void *);
	int (*DescCreate)(void **, int, int);
	int (*DescDestroy)(void *);
	int (*DescSet)(void *, int, const void *, size_t);
	int (*LayoutCreate)(void **, int, uint64_t, uint64_t, int64_t);
	int (*LayoutDestroy)(void *);
	int (*PrefCreate)(void **);
	int (*PrefDestroy)(void *);
	int (*PrefSet)(void *, int, const void *, size_t);
	int (*Heuristic)(void *, void *, void *, void *, void *, void *, void *, int, heur *, int *);
	int (*Matmul)(void *, void *, const void *, const void *, void *, const void *, void *, const void *,
	              const void *, void *, void *, void *, const void *, void *, size_t, CUstream);
} lt;

typedef struct prec {
	const char *name;
	int ab, cd, compute, scale, elem, min_sm;
} prec;

static const prec precs[] = {
	{ "fp32", R_32F, R_32F, COMPUTE_32F, R_32F, 4, 0 },
	{ "tf32", R_32F, R_32F, COMPUTE_32F_FAST_TF32, R_32F, 4, 80 },
	{ "fp16", R_16F, R_32F, COMPUTE_32F, R_32F, 2, 70 },
	{ "bf16", R_16BF, R_32F, COMPUTE_32F, R_32F, 2, 80 },
	{ "int8", R_8I, R_32I, COMPUTE_32I, R_32I, 1, 75 },
	{ "fp8", R_8F_E4M3, R_32F, COMPUTE_32F, R_32F, 1, 89 },
};

static int cmp(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return x < y ? -1 : x > y;
}

static int load_lt(char *why, size_t n)
{
	const char *home = getenv("CUDA_HOME");
	char path[512];
	snprintf(path, sizeof path, "%s/lib64/libcublasLt.so", home && *home ? home : CUDA_HOME_DEFAULT);
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		lib = dlopen("libcublasLt.so.13", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(why, n, "cannot load '%s': %s", path, dlerror());
		return -1;
	}
	const struct { void **fn; const char *name; } syms[] = {
		{ (void **)&lt.Create, "cublasLtCreate" },
		{ (void **)&lt.Destroy, "cublasLtDestroy" },
		{ (void **)&lt.DescCreate, "cublasLtMatmulDescCreate" },
		{ (void **)&lt.DescDestroy, "cublasLtMatmulDescDestroy" },
		{ (void **)&lt.DescSet, "cublasLtMatmulDescSetAttribute" },
		{ (void **)&lt.LayoutCreate, "cublasLtMatrixLayoutCreate" },
		{ (void **)&lt.LayoutDestroy, "cublasLtMatrixLayoutDestroy" },
		{ (void **)&lt.PrefCreate, "cublasLtMatmulPreferenceCreate" },
		{ (void **)&lt.PrefDestroy, "cublasLtMatmulPreferenceDestroy" },
		{ (void **)&lt.PrefSet, "cublasLtMatmulPreferenceSetAttribute" },
		{ (void **)&lt.Heuristic, "cublasLtMatmulAlgoGetHeuristic" },
		{ (void **)&lt.Matmul, "cublasLtMatmul" },
	};
	for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
		*syms[i].fn = dlsym(lib, syms[i].name);
		if (!*syms[i].fn) {
			snprintf(why, n, "libcublasLt lacks %s", syms[i].name);
			return -1;
		}
	}
	return 0;
}

/* n x n random values of the precision's input type: uniform in [-1, 1]
 * (FP8: random bytes of exponent at most 7, never NaN; INT8: random bytes). */
static void *random_input(const prec *p, int n, uint32_t seed)
{
	size_t count = (size_t)n * n;
	unsigned char *h = xmalloc(count * (size_t)p->elem);
	for (size_t i = 0; i < count; i++) {
		uint32_t x = (uint32_t)(i * 2654435761u) ^ seed;
		x ^= x >> 15;
		x *= 2246822519u;
		x ^= x >> 13;
		float f = (float)(x % 2001) / 1000.0f - 1.0f;
		switch (p->ab) {
		case R_32F: ((float *)h)[i] = f; break;
		case R_16F: ((uint16_t *)h)[i] = float_to_half(f); break;
		case R_16BF: ((uint16_t *)h)[i] = float_to_bf16(f); break;
		case R_8I: h[i] = (unsigned char)(x >> 8); break;
		default: h[i] = (unsigned char)((x >> 8) & 0xB7); break; /* e4m3: sign, exponent <= 6 */
		}
	}
	return h;
}

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
	printf("cublas_gemm %s %d skipped: %s: %s\n", p->name, n, #x, cu_errstr(r_)); goto out; } } while (0)
#define LT(x) do { int s_ = (x); if (s_ != 0) { \
	printf("cublas_gemm %s %d skipped: %s: cuBLAS status %d\n", p->name, n, #x, s_); goto out; } } while (0)

enum { REPS = 20 };

/* Times one precision at n; prints its line. */
static void one(void *handle, const prec *p, int n, CUdeviceptr ws, size_t wsize)
{
	size_t in_bytes = (size_t)n * n * (size_t)p->elem, out_bytes = (size_t)n * n * 4;
	CUdeviceptr A = 0, B = 0, C = 0;
	void *desc = NULL, *la = NULL, *lb = NULL, *lc = NULL, *pref = NULL;
	CUevent e0 = NULL, e1 = NULL;
	CK(cu.MemAlloc(&A, in_bytes));
	CK(cu.MemAlloc(&B, in_bytes));
	CK(cu.MemAlloc(&C, out_bytes));
	void *h = random_input(p, n, 1);
	CUresult r = cu.MemcpyHtoD(A, h, in_bytes);
	free(h);
	CK(r);
	h = random_input(p, n, 2);
	r = cu.MemcpyHtoD(B, h, in_bytes);
	free(h);
	CK(r);
	CK(cu.MemsetD8(C, 0, out_bytes));
	LT(lt.DescCreate(&desc, p->compute, p->scale));
	int ta = OP_T, tb = OP_N;
	LT(lt.DescSet(desc, DESC_TRANSA, &ta, sizeof ta));
	LT(lt.DescSet(desc, DESC_TRANSB, &tb, sizeof tb));
	LT(lt.LayoutCreate(&la, p->ab, (uint64_t)n, (uint64_t)n, n));
	LT(lt.LayoutCreate(&lb, p->ab, (uint64_t)n, (uint64_t)n, n));
	LT(lt.LayoutCreate(&lc, p->cd, (uint64_t)n, (uint64_t)n, n));
	LT(lt.PrefCreate(&pref));
	uint64_t wsz = wsize;
	LT(lt.PrefSet(pref, PREF_MAX_WORKSPACE_BYTES, &wsz, sizeof wsz));
	heur hr;
	int got = 0;
	memset(&hr, 0, sizeof hr);
	if (lt.Heuristic(handle, desc, la, lb, lc, lc, pref, 1, &hr, &got) != 0 || got < 1) {
		printf("cublas_gemm %s %d skipped: cuBLAS has no algorithm for it on this device\n", p->name, n);
		goto out;
	}
	float fone = 1.0f, fzero = 0.0f;
	int ione = 1, izero = 0;
	const void *alpha = p->scale == R_32I ? (const void *)&ione : (const void *)&fone;
	const void *beta = p->scale == R_32I ? (const void *)&izero : (const void *)&fzero;
	CK(cu.EventCreate(&e0, 0));
	CK(cu.EventCreate(&e1, 0));
	float t[REPS];
	for (int i = -3; i < REPS; i++) {
		CK(cu.EventRecord(e0, NULL));
		LT(lt.Matmul(handle, desc, alpha, (void *)(uintptr_t)A, la, (void *)(uintptr_t)B, lb, beta,
		             (void *)(uintptr_t)C, lc, (void *)(uintptr_t)C, lc, hr.algo, (void *)(uintptr_t)ws, wsize,
		             NULL));
		CK(cu.EventRecord(e1, NULL));
		CK(cu.EventSynchronize(e1));
		if (i >= 0)
			CK(cu.EventElapsedTime(&t[i], e0, e1));
	}
	qsort(t, REPS, sizeof t[0], cmp);
	double med = (t[REPS / 2 - 1] + t[REPS / 2]) / 2, best = t[0];
	double flops = 2.0 * n * n * (double)n;
	printf("cublas_gemm %s %d %.2f %.2f %.4f %.4f\n", p->name, n, flops / (best * 1e-3) / 1e12,
	       flops / (med * 1e-3) / 1e12, best, med);
out:
	if (e0)
		cu.EventDestroy(e0);
	if (e1)
		cu.EventDestroy(e1);
	if (pref)
		lt.PrefDestroy(pref);
	if (la)
		lt.LayoutDestroy(la);
	if (lb)
		lt.LayoutDestroy(lb);
	if (lc)
		lt.LayoutDestroy(lc);
	if (desc)
		lt.DescDestroy(desc);
	if (A)
		cu.MemFree(A);
	if (B)
		cu.MemFree(B);
	if (C)
		cu.MemFree(C);
}
#undef CK
#undef LT

int main(int argc, char **argv)
{
	int sizes[8], nsizes = 0;
	const char *want = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-p") == 0 && i + 1 < argc)
			want = argv[++i];
		else if (nsizes < 8 && atoi(argv[i]) > 0)
			sizes[nsizes++] = atoi(argv[i]);
	}
	if (nsizes == 0) {
		sizes[0] = 4096;
		sizes[1] = 8192;
		nsizes = 2;
	}
	char *err = NULL, why[1024];
	if (cu_load(&err) != 0) {
		printf("cublas: skipped: %s\n", err);
		free(err);
		return 0;
	}
	if (load_lt(why, sizeof why) != 0) {
		printf("cublas: skipped: %s\n", why);
		return 0;
	}
	CUdevice dev;
	CUcontext ctx;
	int major = 0, minor = 0;
#define CK0(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { printf("cublas: failed: %s: %s\n", #x, cu_errstr(r_)); return 1; } } while (0)
	CK0(cu.Init(0));
	CK0(cu.DeviceGet(&dev, 0));
	CK0(cu.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
	CK0(cu.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
	CK0(cu.DevicePrimaryCtxRetain(&ctx, dev)); /* the runtime inside cuBLAS shares it */
	CK0(cu.CtxSetCurrent(ctx));
	size_t wsize = 32u << 20;
	CUdeviceptr ws;
	CK0(cu.MemAlloc(&ws, wsize));
	void *handle = NULL;
	if (lt.Create(&handle) != 0) {
		printf("cublas: failed: cublasLtCreate\n");
		return 1;
	}
	int sm = major * 10 + minor;
	for (size_t k = 0; k < sizeof precs / sizeof *precs; k++) {
		const prec *p = &precs[k];
		if (want && !strstr(want, p->name))
			continue;
		for (int s = 0; s < nsizes; s++) {
			if (sm < p->min_sm)
				printf("cublas_gemm %s %d skipped: sm_%d has no %s tensor cores\n", p->name, sizes[s], sm,
				       p->name);
			else
				one(handle, p, sizes[s], ws, wsize);
			fflush(stdout);
		}
	}
	lt.Destroy(handle);
	cu.MemFree(ws);
	return 0;
}
