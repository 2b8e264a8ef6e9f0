/* cublas_sgemm.c: cuBLAS SGEMM throughput at N x N x N, for `make bench`
 * to compare matmul_register_tiled with, in the same run on the same GPU.
 * libcublas is loaded with dlopen from CUDA_HOME; the driver through
 * src/device/cudrv. Prints "cublas_sgemm N TFLOPS median_ms" or "cublas: skipped: why". */
#include "cudrv.h"
#include "util.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*create_fn)(void **);
typedef int (*destroy_fn)(void *);
typedef int (*sgemm_fn)(void *, int, int, int, int, int, const float *, const float *, int,
                        const float *, int, const float *, float *, int);

static int cmp(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4096;
	const char *home = getenv("CUDA_HOME");
	char path[512];
	snprintf(path, sizeof path, "%s/lib64/libcublas.so", home && *home ? home : CUDA_HOME_DEFAULT);
	char *err = NULL;
	if (cu_load(&err) != 0) {
		printf("cublas: skipped: %s\n", err);
		return 0;
	}
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		printf("cublas: skipped: cannot load '%s': %s\n", path, dlerror());
		return 0;
	}
	create_fn create = (create_fn)dlsym(lib, "cublasCreate_v2");
	destroy_fn destroy = (destroy_fn)dlsym(lib, "cublasDestroy_v2");
	sgemm_fn sgemm = (sgemm_fn)dlsym(lib, "cublasSgemm_v2");
	if (!create || !destroy || !sgemm) {
		printf("cublas: skipped: libcublas lacks cublasSgemm_v2\n");
		return 0;
	}
	CUdevice dev;
	CUcontext ctx;
#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { printf("cublas: failed: %s: %s\n", #x, cu_errstr(r_)); return 1; } } while (0)
	CK(cu.Init(0));
	CK(cu.DeviceGet(&dev, 0));
	CK(cu.DevicePrimaryCtxRetain(&ctx, dev)); /* the runtime inside cuBLAS shares it */
	CK(cu.CtxSetCurrent(ctx));
	size_t bytes = (size_t)n * n * sizeof(float);
	CUdeviceptr A, B, C;
	CK(cu.MemAlloc(&A, bytes));
	CK(cu.MemAlloc(&B, bytes));
	CK(cu.MemAlloc(&C, bytes));
	float *h = xmalloc(bytes);
	for (size_t i = 0; i < (size_t)n * n; i++)
		h[i] = (float)((i * 2654435761u) % 2001) / 1000.0f - 1.0f;
	CK(cu.MemcpyHtoD(A, h, bytes));
	CK(cu.MemcpyHtoD(B, h, bytes));
	free(h);
	void *handle = NULL;
	if (create(&handle) != 0) {
		printf("cublas: failed: cublasCreate\n");
		return 1;
	}
	float one = 1.0f, zero = 0.0f;
	CUevent e0, e1;
	CK(cu.EventCreate(&e0, 0));
	CK(cu.EventCreate(&e1, 0));
	enum { REPS = 20 };
	float t[REPS];
	for (int i = -3; i < REPS; i++) {
		CK(cu.EventRecord(e0, NULL));
		if (sgemm(handle, 0, 0, n, n, n, &one, (const float *)(uintptr_t)A, n, (const float *)(uintptr_t)B, n,
		          &zero, (float *)(uintptr_t)C, n) != 0) {
			printf("cublas: failed: cublasSgemm\n");
			return 1;
		}
		CK(cu.EventRecord(e1, NULL));
		CK(cu.EventSynchronize(e1));
		if (i >= 0)
			CK(cu.EventElapsedTime(&t[i], e0, e1));
	}
	qsort(t, REPS, sizeof t[0], cmp);
	double ms = (t[REPS / 2 - 1] + t[REPS / 2]) / 2;
	printf("cublas_sgemm %d %.2f %.4f\n", n, 2.0 * n * n * (double)n / (ms * 1e-3) / 1e12, ms);
	destroy(handle);
	return 0;
}
