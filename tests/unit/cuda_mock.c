/* cuda_mock.c: a stand-in libcuda.so.1 for test_start.c, built by that test
 * into a temporary folder which the worker it starts finds first on
 * LD_LIBRARY_PATH. One device, "Mock GPU" (sm_90, 80 GiB, 3 GiB free),
 * whose context takes a while to make:
 *   MOCK_INIT_MS   cuInit sleeps this many milliseconds (logs "init-begin")
 *   MOCK_CTX_MS    cuDevicePrimaryCtxRetain sleeps this many milliseconds
 *   MOCK_CTX_FAIL  cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY (2)
 *   MOCK_LOG       a file: one line an event ("hello-ready", "ctx-begin",
 *                  "ctx-done", "current", "meminfo", "nocontext CALL")
 * A call that needs a context on a thread where none is current answers
 * CUDA_ERROR_INVALID_CONTEXT (201) and logs "nocontext CALL": the worker
 * must make the context current on every thread that makes such calls.
 * Device memory can be allocated and freed; copies, launches and modules
 * answer CUDA_ERROR_NOT_SUPPORTED (801). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;

static __thread void *current;
static int ctx_obj, event_obj;
static uint64_t next_ptr = 0x100000;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void say(const char *what, const char *call)
{
	const char *path = getenv("MOCK_LOG");
	if (!path || !*path)
		return;
	pthread_mutex_lock(&mu);
	FILE *f = fopen(path, "a");
	if (f) {
		fprintf(f, "%s%s%s\n", what, call ? " " : "", call ? call : "");
		fclose(f);
	}
	pthread_mutex_unlock(&mu);
}

static CUresult need_ctx(const char *call)
{
	if (current)
		return 0;
	say("nocontext", call);
	return 201;
}

CUresult cuInit(unsigned flags)
{
	(void)flags;
	const char *ms = getenv("MOCK_INIT_MS");
	if (ms && atoi(ms) > 0) {
		say("init-begin", NULL);
		struct timespec ts = { atoi(ms) / 1000, (long)(atoi(ms) % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	return 0;
}

CUresult cuDriverGetVersion(int *v)
{
	*v = 12080;
	return 0;
}

CUresult cuGetErrorName(CUresult e, const char **s)
{
	switch (e) {
	case 0: *s = "CUDA_SUCCESS"; return 0;
	case 2: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
	case 201: *s = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
	case 801: *s = "CUDA_ERROR_NOT_SUPPORTED"; return 0;
	default: *s = NULL; return 1;
	}
}

CUresult cuGetErrorString(CUresult e, const char **s)
{
	*s = e == 2 ? "out of memory" : e == 201 ? "invalid device context" : e == 801 ? "operation not supported" : NULL;
	return *s ? 0 : 1;
}

CUresult cuDeviceGetCount(int *n)
{
	*n = 1;
	return 0;
}

CUresult cuDeviceGet(int *d, int ordinal)
{
	*d = ordinal;
	return ordinal == 0 ? 0 : 101;
}

CUresult cuDeviceGetName(char *name, int len, int dev)
{
	(void)dev;
	snprintf(name, (size_t)len, "Mock GPU");
	return 0;
}

CUresult cuDeviceGetAttribute(int *v, int attr, int dev)
{
	(void)dev;
	switch (attr) {
	case 75: *v = 9; break;   /* compute capability major */
	case 76: *v = 0; break;   /* minor */
	case 16: *v = 132; break; /* SMs */
	case 10: *v = 32; break;  /* warp size */
	case 38: *v = 50 << 20; break; /* L2 */
	case 5: *v = 2147483647; break; /* grid x */
	case 6: case 7: *v = 65535; break;
	case 8: *v = 48 << 10; break;  /* shared memory a block */
	case 97: *v = 227 << 10; break; /* ... opted in */
	case 81: *v = 228 << 10; break; /* ... an SM */
	case 12: case 82: *v = 65536; break; /* registers */
	case 39: *v = 2048; break;     /* threads an SM */
	case 106: *v = 32; break;      /* blocks an SM */
	default: *v = 1024; break;
	}
	return 0;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, int dev)
{
	(void)dev;
	*bytes = (size_t)80 << 30;
	say("hello-ready", NULL); /* the last query before the HELLO */
	return 0;
}

CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev)
{
	(void)dev;
	say("ctx-begin", NULL);
	const char *ms = getenv("MOCK_CTX_MS");
	if (ms && *ms) {
		long n = atol(ms);
		struct timespec ts = { n / 1000, (n % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	if (getenv("MOCK_CTX_FAIL")) {
		say("ctx-failed", NULL);
		return 2;
	}
	*ctx = &ctx_obj;
	say("ctx-done", NULL);
	return 0;
}

CUresult cuDevicePrimaryCtxRelease_v2(int dev)
{
	(void)dev;
	return 0;
}

CUresult cuCtxSetCurrent(void *ctx)
{
	current = ctx;
	say("current", NULL);
	return 0;
}

CUresult cuMemGetInfo_v2(size_t *fr, size_t *tot)
{
	CUresult e = need_ctx("cuMemGetInfo");
	if (e)
		return e;
	*fr = (size_t)3 << 30;
	*tot = (size_t)80 << 30;
	say("meminfo", NULL);
	return 0;
}

CUresult cuMemAlloc_v2(uint64_t *p, size_t bytes)
{
	CUresult e = need_ctx("cuMemAlloc");
	if (e)
		return e;
	pthread_mutex_lock(&mu);
	*p = next_ptr;
	next_ptr += (bytes + 255) / 256 * 256;
	pthread_mutex_unlock(&mu);
	return 0;
}

CUresult cuMemAllocManaged(uint64_t *p, size_t bytes, unsigned flags)
{
	(void)flags;
	return cuMemAlloc_v2(p, bytes);
}

CUresult cuMemFree_v2(uint64_t p)
{
	(void)p;
	return need_ctx("cuMemFree");
}

CUresult cuEventCreate(void **ev, unsigned flags)
{
	(void)flags;
	CUresult e = need_ctx("cuEventCreate");
	if (!e)
		*ev = &event_obj;
	return e;
}

CUresult cuEventDestroy_v2(void *ev)
{
	(void)ev;
	return need_ctx("cuEventDestroy");
}

CUresult cuCtxSynchronize(void)
{
	return need_ctx("cuCtxSynchronize");
}

/* Everything else: a context is needed, and then it is not supported. */
#define UNSUPPORTED(name) \
	CUresult name(void); \
	CUresult name(void) \
	{ \
		CUresult e = need_ctx(#name); \
		return e ? e : 801; \
	}

UNSUPPORTED(cuMemcpyHtoD_v2)
UNSUPPORTED(cuMemcpyDtoH_v2)
UNSUPPORTED(cuMemcpyDtoD_v2)
UNSUPPORTED(cuMemcpyDtoDAsync_v2)
UNSUPPORTED(cuMemsetD8_v2)
UNSUPPORTED(cuMemsetD8Async)
UNSUPPORTED(cuMemsetD32_v2)
UNSUPPORTED(cuMemsetD32Async)
UNSUPPORTED(cuModuleLoadData)
UNSUPPORTED(cuModuleUnload)
UNSUPPORTED(cuModuleGetFunction)
UNSUPPORTED(cuModuleGetGlobal_v2)
UNSUPPORTED(cuFuncSetAttribute)
UNSUPPORTED(cuFuncGetAttribute)
UNSUPPORTED(cuLaunchKernel)
UNSUPPORTED(cuEventRecord)
UNSUPPORTED(cuEventSynchronize)
UNSUPPORTED(cuEventElapsedTime)
UNSUPPORTED(cuStreamSynchronize)
UNSUPPORTED(cuMemHostAlloc)
UNSUPPORTED(cuMemFreeHost)
UNSUPPORTED(cuMemcpyHtoDAsync_v2)
UNSUPPORTED(cuMemcpyDtoHAsync_v2)
UNSUPPORTED(cuStreamCreate)
UNSUPPORTED(cuStreamDestroy_v2)
