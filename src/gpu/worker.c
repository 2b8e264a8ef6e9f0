/* worker.c: the GPU worker, a child process that owns the CUDA context, and
 * its client in the front end.
 *
 * Wire: framed messages over two pipes (worker.h). The worker answers every
 * RUN with exactly one RESULT, sending PROGRESS messages before; a sticky
 * CUDA error makes it answer RES_FATAL and exit. The client kills a worker
 * that makes no progress, reaps one that dies, and starts a new one on the
 * next run. */
#include "worker.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "cudrv.h"
#include "kclock.h"
#include "ref.h"
#include "stats.h"
#include "util.h"

#define KiB ((uint64_t)1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)

/* ------------------------------------------------------------------ wire */

/* send() with MSG_NOSIGNAL on the worker's sockets (a gone reader gives
 * EPIPE, never SIGPIPE); write() on anything else, e.g. a pipe. */
static ssize_t write_some(int fd, const void *p, size_t n)
{
	ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
	if (w < 0 && errno == ENOTSOCK)
		w = write(fd, p, n);
	return w;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *s = p;
	while (n > 0) {
		ssize_t w = write_some(fd, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Bytes read before end of file (n when complete), or -1. */
static ssize_t read_full(int fd, void *p, size_t n)
{
	char *s = p;
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, s + got, n - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

#define WIRE_HDR 12

int wire_send(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen)
{
	uint64_t len = (uint64_t)alen + (uint64_t)blen;
	if (len > WIRE_MAX_PAYLOAD) {
		errno = EMSGSIZE;
		return -1;
	}
	unsigned char hdr[WIRE_HDR];
	memcpy(hdr, &type, 4);
	memcpy(hdr + 4, &len, 8);
	if (WIRE_HDR + len <= 4096) {
		/* One write: atomic on a pipe, so a dying writer never leaves half
		 * a small message. */
		unsigned char buf[4096];
		memcpy(buf, hdr, WIRE_HDR);
		if (alen)
			memcpy(buf + WIRE_HDR, a, alen);
		if (blen)
			memcpy(buf + WIRE_HDR + alen, b, blen);
		return write_all(fd, buf, WIRE_HDR + (size_t)len);
	}
	if (write_all(fd, hdr, WIRE_HDR) != 0)
		return -1;
	if (alen && write_all(fd, a, alen) != 0)
		return -1;
	if (blen && write_all(fd, b, blen) != 0)
		return -1;
	return 0;
}

int wire_recv(int fd, uint32_t *type, void **payload, uint64_t *len)
{
	unsigned char hdr[WIRE_HDR];
	*payload = NULL;
	*len = 0;
	ssize_t r = read_full(fd, hdr, WIRE_HDR);
	if (r < 0)
		return -1;
	if (r == 0)
		return 1;
	if (r < WIRE_HDR) {
		errno = EPROTO;
		return -1;
	}
	uint64_t n;
	memcpy(type, hdr, 4);
	memcpy(&n, hdr + 4, 8);
	if (n > WIRE_MAX_PAYLOAD) {
		errno = EPROTO;
		return -1;
	}
	if (n == 0)
		return 0;
	char *p = malloc((size_t)n + 1);
	if (!p) {
		errno = ENOMEM;
		return -1;
	}
	r = read_full(fd, p, (size_t)n);
	if (r < 0 || (uint64_t)r != n) {
		int e = r < 0 ? errno : EPROTO;
		free(p);
		errno = e;
		return -1;
	}
	p[n] = 0;
	*payload = p;
	*len = n;
	return 0;
}

/* --------------------------------------------------- compile-only facts */

static const struct arch_facts {
	int sm, sms;
	int64_t l2;
	int smem_optin, smem_sm, threads_sm, blocks_sm;
} arch_table[] = {
	/* sm   SMs  L2         opt-in  per SM  thr/SM blk/SM   like */
	{ 70,  80,   6 * MiB,  98304,  98304,  2048,  32 },  /* V100 */
	{ 75,  40,   4 * MiB,  65536,  65536,  1024,  16 },  /* T4 */
	{ 80, 108,  40 * MiB, 166912, 167936,  2048,  32 },  /* A100 */
	{ 86,  72,   6 * MiB, 101376, 102400,  1536,  16 },  /* A10 */
	{ 89, 142,  96 * MiB, 101376, 102400,  1536,  24 },  /* L40S */
	{ 90, 132,  50 * MiB, 232448, 233472,  2048,  32 },  /* H100 SXM */
	{ 100, 148, 126 * MiB, 232448, 233472, 2048,  32 },  /* B200 */
	{ 120, 170,  96 * MiB, 101376, 102400, 1536,  32 },  /* RTX 5090 */
};

void devinfo_for_arch(int sm, devinfo *d)
{
	const struct arch_facts *f = &arch_table[0];
	for (size_t i = 0; i < ARRAY_LEN(arch_table); i++)
		if (arch_table[i].sm <= sm)
			f = &arch_table[i];
	memset(d, 0, sizeof *d);
	d->ordinal = 0;
	d->count = 0;
	snprintf(d->name, sizeof d->name, "sm_%d (no GPU)", sm);
	d->cc_major = sm / 10;
	d->cc_minor = sm % 10;
	d->sm_count = f->sms;
	d->warp_size = 32;
	d->l2_bytes = f->l2;
	d->max_threads_per_block = 1024;
	d->max_block[0] = 1024;
	d->max_block[1] = 1024;
	d->max_block[2] = 64;
	d->max_grid[0] = 2147483647;
	d->max_grid[1] = 65535;
	d->max_grid[2] = 65535;
	d->max_smem_block = 48 * 1024;
	d->max_smem_optin = f->smem_optin;
	d->max_smem_sm = f->smem_sm;
	d->regs_per_block = 65536;
	d->regs_per_sm = 65536;
	d->max_threads_sm = f->threads_sm;
	d->max_blocks_sm = f->blocks_sm;
}

/* ----------------------------------------------------------- worker side */

static volatile sig_atomic_t w_interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	w_interrupted = 1;
}

enum { PAT_NONE, PAT_D8, PAT_D32 };

/* A device buffer kept from run to run (the pool). Its signature says what
 * its initial contents are; kernels write only outputs (the header's
 * contract), so an input left clean by the last run needs no upload. */
typedef struct pbuf {
	buffer_sig sig;
	CUdeviceptr d;         /* what the kernel sees; 0: an empty slot */
	CUdeviceptr pristine;  /* a device copy of the initial contents, or 0 */
	void *host;            /* the initial contents, or NULL until needed */
	size_t bytes;
	int pat;               /* PAT_*: the initial contents as one memset */
	unsigned int pval;
	int dirty;             /* d may differ from the initial contents */
	int verified;          /* this run wrote d (and pristine) from host or pattern */
} pbuf;

/* The reference cache: at most this many results, of at most this many
 * bytes in all. */
#define REF_CACHE_ENTRIES 4
#define REF_CACHE_BYTES (2 * GiB)
/* The download buffer of checked outputs is kept between runs (page-locked
 * when the driver can) up to this size. */
#define STAGE_KEEP_MAX (1 * GiB)

typedef struct wstate {
	int rfd, wfd;
	int ordinal;
	CUdevice dev;
	CUcontext ctx;
	int have_ctx;
	devinfo info;
	CUevent ev0, ev1;
	CUdeviceptr flush;     /* L2 flush scratch, allocated on first need */
	size_t flush_bytes;
	CUmodule flush_mod;    /* the read-only flush kernel (flush_l2) */
	CUfunction flush_fn;
	int have_flush_fn;
	int roof_done;
	double roof_gbps;
	int empty_done;        /* an empty kernel, timed once: single and batched */
	double empty_ms, empty_batch_ms;
	int empty_kernel_done; /* ... and on the kernel clock */
	double empty_kernel_ms;
	char kclock_why[256];  /* why the kernel clock cannot be had in this worker; "" */
	int stop, quit;        /* STOP / QUIT (or the front end gone) seen */
	/* pool[i]: buffer i of the last plan. Only the last plan's buffers are
	 * kept, so device memory never holds more than one plan's buffers and
	 * their pristine copies. */
	pbuf pool[PLAN_MAX_BUFS];
	ref_cache refs;        /* reference results of recent checks */
	void *stage;           /* download buffer for checked outputs */
	size_t stage_bytes;
	int stage_pinned;
	nvml_dev nvml;         /* clocks and throttling around the samples */
} wstate;

typedef union argval {
	CUdeviceptr p;
	int32_t i32;
	uint32_t u32;
	int64_t i64;
	uint64_t u64;
	float f32;
	double f64;
} argval;

/* Kernel arguments; params[i] points into v[i], so never copy one. */
typedef struct kargs {
	argval v[PLAN_MAX_ARGS];
	void *params[PLAN_MAX_ARGS + 1];
} kargs;

typedef struct wrun {
	wstate *ws;
	const plan *p;
	result *res;
	CUmodule mod;
	int have_mod;
	CUfunction fn;
	CUfunction other[PLAN_MAX_CHECKS];
	kargs ka;
	uint64_t t0;           /* the request's start, for traces */
} wrun;

_Static_assert(SPEC_MAX_CHECK_ARGS <= REF_MAX_ARGS, "a reference key holds every check argument");

/* Buffer i of the run's plan. */
static pbuf *B(wrun *r, int i)
{
	return &r->ws->pool[i];
}

/* CUPLAY_TRACE_WORKER=1: one line to stderr a phase of every run (where
 * the milliseconds of a request go). */
static int w_trace;

static void trace(wrun *r, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void trace(wrun *r, const char *fmt, ...)
{
	if (!w_trace)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "cuplay worker: %8.2f ms: ", r ? (double)(now_ns() - r->t0) / 1e6 : 0.0);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static const char *fmt_bytes(uint64_t n, char *buf, size_t len)
{
	if (n >= GiB)
		snprintf(buf, len, "%.1f GiB", (double)n / (double)GiB);
	else if (n >= MiB)
		snprintf(buf, len, "%.1f MiB", (double)n / (double)MiB);
	else if (n >= KiB)
		snprintf(buf, len, "%.1f KiB", (double)n / (double)KiB);
	else
		snprintf(buf, len, "%" PRIu64 " bytes", n);
	return buf;
}

/* Records the run's error (a FATAL one replaces an earlier plain one);
 * returns -1. */
static int rfail(wrun *r, int fatal, const char *fmt, ...) PRINTF_LIKE(3, 4);
static int rfail(wrun *r, int fatal, const char *fmt, ...)
{
	result *res = r->res;
	int have = res->status == RES_ERROR || res->status == RES_FATAL;
	if (!have || (fatal && res->status != RES_FATAL)) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(res->error, sizeof res->error, fmt, ap);
		va_end(ap);
		res->status = fatal ? RES_FATAL : RES_ERROR;
	}
	return -1;
}

/* A CUDA call's status: "CALL failed: CUDA_ERROR_X (text)". */
static int ck(wrun *r, CUresult e, const char *call)
{
	if (e == CUDA_SUCCESS)
		return 0;
	return rfail(r, cu_is_sticky(e), "%s failed: %s", call, cu_errstr(e));
}

/* The status of waiting for a kernel: "kernel 'NAME' failed: ...". */
static int ck_kernel(wrun *r, CUresult e, const char *name)
{
	if (e == CUDA_SUCCESS)
		return 0;
	return rfail(r, cu_is_sticky(e), "kernel '%s' failed: %s", name, cu_errstr(e));
}

static void *hmalloc(wrun *r, size_t n, const char *what)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		char b[32];
		rfail(r, 0, "cannot allocate %s of host memory for %s", fmt_bytes(n, b, sizeof b), what);
	}
	return p;
}

static void send_progress(wstate *ws, int n, int phase, double ms)
{
	wire_progress pg;
	memset(&pg, 0, sizeof pg);
	pg.nsamples = n;
	pg.phase = phase;
	pg.last_ms = ms;
	if (wire_send(ws->wfd, MSG_PROGRESS, &pg, sizeof pg, NULL, 0) != 0)
		ws->stop = ws->quit = 1; /* the front end is gone */
}

/* Reads any STOP / QUIT waiting on the pipe, without blocking. */
static void poll_requests(wstate *ws)
{
	for (;;) {
		struct pollfd pf = { ws->rfd, POLLIN, 0 };
		int n = poll(&pf, 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || !(pf.revents & (POLLIN | POLLHUP | POLLERR)))
			return;
		uint32_t type = 0;
		void *payload = NULL;
		uint64_t len = 0;
		int rr = wire_recv(ws->rfd, &type, &payload, &len);
		free(payload);
		if (rr != 0) {
			ws->stop = ws->quit = 1;
			return;
		}
		if (type == MSG_STOP)
			ws->stop = 1;
		else if (type == MSG_QUIT)
			ws->stop = ws->quit = 1;
		/* anything else during a run is dropped */
	}
}

static int stop_now(wstate *ws)
{
	poll_requests(ws);
	return w_interrupted || ws->stop;
}

/* Allocates device memory; out of memory is only returned (the caller may
 * make room and try again), any other failure is reported. */
static CUresult dalloc_try(wrun *r, CUdeviceptr *d, size_t bytes, int managed, const char *what)
{
	CUresult e = managed ? cu.MemAllocManaged(d, bytes ? bytes : 1, CU_MEM_ATTACH_GLOBAL)
	                     : cu.MemAlloc(d, bytes ? bytes : 1);
	if (e == CUDA_SUCCESS)
		return e;
	*d = 0;
	if (e != CUDA_ERROR_OUT_OF_MEMORY) {
		char b[32];
		rfail(r, cu_is_sticky(e), "%s failed for %s (%s): %s",
		      managed ? "cuMemAllocManaged" : "cuMemAlloc", what,
		      fmt_bytes(bytes, b, sizeof b), cu_errstr(e));
	}
	return e;
}

static int dalloc(wrun *r, CUdeviceptr *d, size_t bytes, int managed, const char *what)
{
	CUresult e = dalloc_try(r, d, bytes, managed, what);
	if (e == CUDA_SUCCESS)
		return 0;
	if (e == CUDA_ERROR_OUT_OF_MEMORY) {
		char b[32];
		rfail(r, 0, "%s failed for %s (%s): %s", managed ? "cuMemAllocManaged" : "cuMemAlloc",
		      what, fmt_bytes(bytes, b, sizeof b), cu_errstr(e));
	}
	return -1;
}

/* Page-locked host memory for downloads: cuMemHostAlloc and cuMemFreeHost,
 * looked up in the libcuda that cu_load opened (cudrv.h does not list
 * them). A download into pageable memory is several times slower.
 * CUPLAY_PAGEABLE=1 keeps to malloc (to compare). */
typedef CUresult (*host_alloc_fn)(void **p, size_t bytes, unsigned int flags);
typedef CUresult (*host_free_fn)(void *p);
static host_alloc_fn cu_host_alloc;
static host_free_fn cu_host_free;
/* cuMemPrefetchAsync_v2 (CUDA 12.2+): sends managed pages back to the host
 * before each timed launch, so every sample pays the first-touch migration
 * that unified memory costs (lecture 002). */
typedef struct cu_mem_location { int type, id; } cu_mem_location;
enum { CU_MEM_LOCATION_TYPE_HOST_ = 2 };
typedef CUresult (*prefetch_fn)(CUdeviceptr p, size_t bytes, cu_mem_location loc, unsigned int flags, CUstream s);
static prefetch_fn cu_prefetch;

static void load_host_alloc(void)
{
	const char *env = getenv("CUPLAY_PAGEABLE");
	if (env && env[0] && strcmp(env, "0") != 0)
		return;
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (!lib)
		return;
	void *a = dlsym(lib, "cuMemHostAlloc"), *f = dlsym(lib, "cuMemFreeHost");
	if (a && f) {
		/* as in cudrv.c: the bytes of a void * into a function pointer */
		memcpy(&cu_host_alloc, &a, sizeof a);
		memcpy(&cu_host_free, &f, sizeof f);
	}
	void *pf = dlsym(lib, "cuMemPrefetchAsync_v2");
	if (pf)
		memcpy(&cu_prefetch, &pf, sizeof pf);
	dlclose(lib); /* cu_load's handle keeps the library loaded */
}

/* The device-to-device copy roof, once per worker: 2 warm-ups, the median
 * of 5 timed copies, bytes read + written. A failure that is not sticky
 * leaves the roof at 0 and the run goes on. */
static void measure_roof(wrun *r)
{
	wstate *ws = r->ws;
	if (ws->roof_done)
		return;
	size_t fr = 0, tot = 0;
	CUresult e = cu.MemGetInfo(&fr, &tot);
	if (e != CUDA_SUCCESS) {
		if (cu_is_sticky(e))
			ck(r, e, "cuMemGetInfo");
		return;
	}
	size_t bytes = (size_t)(256 * MiB);
	while (bytes > 16 * MiB && 2 * (uint64_t)bytes + 256 * MiB > fr)
		bytes /= 2;
	if (2 * (uint64_t)bytes + 64 * MiB > fr)
		return; /* not now: try again on the next run */
	ws->roof_done = 1;
	CUdeviceptr a = 0, b = 0;
	const char *call = "cuMemAlloc";
	float ms[5];
	int nms = 0;
	if ((e = cu.MemAlloc(&a, bytes)) != CUDA_SUCCESS)
		goto out;
	if ((e = cu.MemAlloc(&b, bytes)) != CUDA_SUCCESS)
		goto out;
	call = "cuMemsetD8";
	if ((e = cu.MemsetD8(a, 1, bytes)) != CUDA_SUCCESS)
		goto out;
	for (int i = 0; i < 7; i++) {
		int timed = i >= 2;
		call = "cuEventRecord";
		if (timed && (e = cu.EventRecord(ws->ev0, NULL)) != CUDA_SUCCESS)
			goto out;
		call = "cuMemcpyDtoDAsync";
		if ((e = cu.MemcpyDtoDAsync(b, a, bytes, NULL)) != CUDA_SUCCESS)
			goto out;
		if (!timed)
			continue;
		call = "cuEventRecord";
		if ((e = cu.EventRecord(ws->ev1, NULL)) != CUDA_SUCCESS)
			goto out;
		call = "cuEventSynchronize";
		if ((e = cu.EventSynchronize(ws->ev1)) != CUDA_SUCCESS)
			goto out;
		call = "cuEventElapsedTime";
		if ((e = cu.EventElapsedTime(&ms[nms], ws->ev0, ws->ev1)) != CUDA_SUCCESS)
			goto out;
		nms++;
	}
	/* median of 5 */
	for (int i = 1; i < nms; i++)
		for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
			float t = ms[j];
			ms[j] = ms[j - 1];
			ms[j - 1] = t;
		}
	if (nms > 0 && ms[nms / 2] > 0)
		ws->roof_gbps = 2.0 * (double)bytes / ((double)ms[nms / 2] * 1e-3) / 1e9;
	e = CUDA_SUCCESS;
out:
	if (e != CUDA_SUCCESS && cu_is_sticky(e))
		rfail(r, 1, "measuring the copy roof: %s failed: %s", call, cu_errstr(e));
	if (a)
		cu.MemFree(a);
	if (b)
		cu.MemFree(b);
}

/* The flush kernel: each thread reads words of the buffer in a grid-stride
 * loop; the xor of them decides a store that never happens (the buffer is
 * all zeros), so the loads cannot be dropped and nothing is written. */
static const char flush_ptx[] =
	".version 7.0\n.target sm_70\n.address_size 64\n"
	".visible .entry cuplay_flush(.param .u64 buf, .param .u64 nwords)\n{\n"
	"\t.reg .pred %p<3>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n"
	"\tld.param.u64 %rd1, [buf];\n\tld.param.u64 %rd2, [nwords];\n"
	"\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %ntid.x;\n\tmov.u32 %r3, %tid.x;\n\tmov.u32 %r4, %nctaid.x;\n"
	"\tmad.lo.s32 %r5, %r1, %r2, %r3;\n\tcvt.u64.u32 %rd3, %r5;\n\tmul.wide.u32 %rd4, %r4, %r2;\n"
	"\tmov.u32 %r6, 0;\n\tsetp.ge.u64 %p1, %rd3, %rd2;\n\t@%p1 bra DONE;\n"
	"LOOP:\n\tshl.b64 %rd5, %rd3, 2;\n\tadd.s64 %rd6, %rd1, %rd5;\n\tld.global.u32 %r7, [%rd6];\n"
	"\txor.b32 %r6, %r6, %r7;\n\tadd.s64 %rd3, %rd3, %rd4;\n\tsetp.lt.u64 %p1, %rd3, %rd2;\n\t@%p1 bra LOOP;\n"
	"DONE:\n\tsetp.ne.u32 %p2, %r6, 2143294004;\n\t@%p2 bra END;\n\tst.global.u32 [%rd1], %r6;\n"
	"END:\n\tret;\n}\n";

static int ensure_flush(wrun *r)
{
	wstate *ws = r->ws;
	if (ws->flush)
		return 0;
	uint64_t want = 2 * (uint64_t)(ws->info.l2_bytes > 0 ? ws->info.l2_bytes : 0);
	if (want < 8 * MiB)
		want = 8 * MiB;
	if (dalloc(r, &ws->flush, (size_t)want, 0, "the L2 flush buffer") != 0)
		return -1;
	ws->flush_bytes = (size_t)want;
	/* written once; after that the flush only reads it (flush_l2) */
	if (ck(r, cu.MemsetD8(ws->flush, 0, ws->flush_bytes), "cuMemsetD8") != 0)
		return -1;
	if (cu.ModuleLoadData(&ws->flush_mod, flush_ptx) == CUDA_SUCCESS) {
		if (cu.ModuleGetFunction(&ws->flush_fn, ws->flush_mod, "cuplay_flush") == CUDA_SUCCESS)
			ws->have_flush_fn = 1;
		else
			cu.ModuleUnload(ws->flush_mod);
	}
	return 0;
}

/* A cold L2 before a timed launch: read a buffer twice the L2's size. A read
 * evicts everything, and writes back what earlier kernels left dirty now,
 * not during the next kernel (a memset would leave the L2 full of dirty
 * lines whose write-back lands in the measured kernel: ~19 MB more DRAM
 * writes than Nsight Compute counts, on an H100). Memset if PTX fails. */
static CUresult flush_l2(wstate *ws, int n)
{
	if (!ws->have_flush_fn)
		return cu.MemsetD8Async(ws->flush, (unsigned char)(n & 1), ws->flush_bytes, NULL);
	unsigned long long nwords = ws->flush_bytes / 4;
	void *args[] = { &ws->flush, &nwords };
	unsigned int blocks = (unsigned int)(ws->info.sm_count > 0 ? ws->info.sm_count * 4 : 512);
	return cu.LaunchKernel(ws->flush_fn, blocks, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
}

static int check_launch(wrun *r, const plan_launch *l)
{
	const plan *p = r->p;
	if (l->nargs < 0 || l->nargs > PLAN_MAX_ARGS)
		return rfail(r, 0, "kernel '%s' has %d arguments; at most %d are supported",
		             l->name, l->nargs, PLAN_MAX_ARGS);
	for (int i = 0; i < l->nargs; i++) {
		const plan_arg *a = &l->args[i];
		if (a->kind <= ARG_NONE || a->kind > ARG_F64)
			return rfail(r, 0, "kernel '%s' parameter %d has a type that cannot be passed",
			             l->name, i + 1);
		if (a->kind == ARG_PTR && (a->buf < 0 || a->buf >= p->nbufs))
			return rfail(r, 0, "kernel '%s' parameter %d names no buffer", l->name, i + 1);
	}
	for (int i = 0; i < 3; i++)
		if (l->grid[i] == 0 || l->block[i] == 0)
			return rfail(r, 0, "kernel '%s' has an empty launch: grid %ux%ux%u, block %ux%ux%u",
			             l->name, l->grid[0], l->grid[1], l->grid[2],
			             l->block[0], l->block[1], l->block[2]);
	return 0;
}

static int validate_plan(wrun *r)
{
	const plan *p = r->p;
	if (p->nbufs < 0 || p->nbufs > PLAN_MAX_BUFS)
		return rfail(r, 0, "%d buffers; at most %d are supported", p->nbufs, PLAN_MAX_BUFS);
	for (int i = 0; i < p->nbufs; i++) {
		const plan_buf *b = &p->bufs[i];
		size_t es = dtype_size(b->type);
		if (es == 0)
			return rfail(r, 0, "buffer '%s' has an unknown element type", b->name);
		if (b->count > ((uint64_t)1 << 47) || b->count > (uint64_t)(SIZE_MAX / 8))
			return rfail(r, 0, "buffer '%s' is too large (%" PRIu64 " elements)", b->name, b->count);
	}
	if (check_launch(r, &p->launch) != 0)
		return -1;
	if (p->nchecks < 0 || p->nchecks > PLAN_MAX_CHECKS)
		return rfail(r, 0, "%d checks; at most %d are supported", p->nchecks, PLAN_MAX_CHECKS);
	for (int i = 0; i < p->nchecks; i++) {
		const plan_check *c = &p->checks[i];
		if (c->out < 0 || c->out >= p->nbufs)
			return rfail(r, 0, "check %d names no output buffer", i + 1);
		if (c->kind == CHECK_KERNEL) {
			if (check_launch(r, &c->other) != 0)
				return -1;
		} else if (c->kind == CHECK_REF) {
			if (c->nargs < 0 || c->nargs > SPEC_MAX_CHECK_ARGS)
				return rfail(r, 0, "check of '%s' has %d arguments", p->bufs[c->out].name, c->nargs);
			for (int j = 0; j < c->nargs; j++)
				if (c->args[j].kind == ARG_PTR && (c->args[j].buf < 0 || c->args[j].buf >= p->nbufs))
					return rfail(r, 0, "check of '%s': argument %d names no buffer",
					             p->bufs[c->out].name, j + 1);
		} else {
			return rfail(r, 0, "check %d has an unknown kind", i + 1);
		}
	}
	return 0;
}

/* A launch's kernel as the cubin names it (mangled, unless extern "C"). */
static const char *kernel_symbol(const plan_launch *l)
{
	return l->lowered[0] ? l->lowered : l->name;
}

/* The function of a launch in the module, with its dynamic shared memory
 * allowed. */
static int get_function(wrun *r, const plan_launch *l, CUfunction *fn)
{
	const char *symbol = kernel_symbol(l);
	CUresult e = cu.ModuleGetFunction(fn, r->mod, symbol);
	if (e == CUDA_ERROR_NOT_FOUND)
		return rfail(r, 0, "kernel '%s' is not in the compiled module (looked for '%s')", l->name, symbol);
	if (ck(r, e, "cuModuleGetFunction") != 0)
		return -1;
	if (l->smem == 0)
		return 0;
	int static_smem = 0;
	if (cu.FuncGetAttribute &&
	    cu.FuncGetAttribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, *fn) != CUDA_SUCCESS)
		static_smem = 0;
	if ((uint64_t)l->smem + (uint64_t)(static_smem > 0 ? static_smem : 0) <= 48 * KiB)
		return 0;
	e = cu.FuncSetAttribute(*fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)l->smem);
	if (e != CUDA_SUCCESS)
		return rfail(r, cu_is_sticky(e), "kernel '%s' asks for %u bytes of dynamic shared memory "
		             "(%d static): cuFuncSetAttribute failed: %s", l->name, l->smem, static_smem,
		             cu_errstr(e));
	return 0;
}

static void build_args(kargs *ka, const plan_launch *l, const CUdeviceptr *ptrs)
{
	memset(ka, 0, sizeof *ka);
	for (int i = 0; i < l->nargs; i++) {
		const plan_arg *a = &l->args[i];
		argval *v = &ka->v[i];
		switch (a->kind) {
		case ARG_PTR: v->p = ptrs[a->buf]; break;
		case ARG_I32: v->i32 = (int32_t)a->i; break;
		case ARG_U32: v->u32 = (uint32_t)a->i; break;
		case ARG_I64: v->i64 = a->i; break;
		case ARG_U64: v->u64 = (uint64_t)a->i; break;
		case ARG_F32: v->f32 = (float)a->f; break;
		case ARG_F64: v->f64 = a->f; break;
		default: break;
		}
		ka->params[i] = v;
	}
	ka->params[l->nargs] = NULL;
}

/* Every launch may change every output (a check kernel writes the others). */
static int launch(wrun *r, CUfunction fn, const plan_launch *l, kargs *ka)
{
	for (int i = 0; i < r->p->nbufs; i++)
		if (r->p->bufs[i].output)
			B(r, i)->dirty = 1;
	return ck(r, cu.LaunchKernel(fn, l->grid[0], l->grid[1], l->grid[2],
	                             l->block[0], l->block[1], l->block[2],
	                             l->smem, NULL, ka->params, NULL), "cuLaunchKernel");
}

/* ------------------------------------------------------- the buffer pool */

/* The initial contents of a buffer as one memset, when they are one
 * repeated byte or one repeated 32-bit word (never for random or iota). */
static void pattern_of(const plan_buf *pb, int *pat, unsigned int *val)
{
	size_t es = dtype_size(pb->type);
	*pat = PAT_NONE;
	*val = 0;
	if (pb->init == INIT_RANDOM || pb->init == INIT_IOTA || es == 0 || es > 8)
		return;
	unsigned char e[8];
	buffer_fill(e, pb->type, 1, pb->init, pb->value, 0);
	int same = 1;
	for (size_t i = 1; i < es; i++)
		if (e[i] != e[0])
			same = 0;
	if (same) {
		*pat = PAT_D8;
		*val = e[0];
	} else if (es == 4 || (es == 8 && memcmp(e, e + 4, 4) == 0)) {
		uint32_t v;
		memcpy(&v, e, 4);
		*pat = PAT_D32;
		*val = v;
	}
}

/* Frees a pooled buffer (r NULL: quietly, when the worker leaves). */
static int pbuf_release(wrun *r, pbuf *e)
{
	int ret = 0;
	if (e->d) {
		CUresult x = cu.MemFree(e->d);
		if (r && ck(r, x, "cuMemFree") != 0)
			ret = -1;
	}
	if (e->pristine) {
		CUresult x = cu.MemFree(e->pristine);
		if (r && ck(r, x, "cuMemFree") != 0)
			ret = -1;
	}
	free(e->host);
	memset(e, 0, sizeof *e);
	return ret;
}

static int pool_drop(wrun *r)
{
	int ret = 0;
	for (int i = 0; i < PLAN_MAX_BUFS; i++)
		if (pbuf_release(r, &r->ws->pool[i]) != 0)
			ret = -1;
	return ret;
}

static int pool_held(const wstate *ws)
{
	for (int i = 0; i < PLAN_MAX_BUFS; i++)
		if (ws->pool[i].d)
			return 1;
	return 0;
}

/* The host copy of buffer i's initial contents, made on first need. */
static void *host_of(wrun *r, int i)
{
	pbuf *e = B(r, i);
	if (e->host)
		return e->host;
	const plan_buf *pb = &r->p->bufs[i];
	char what[96];
	snprintf(what, sizeof what, "buffer '%s'", pb->name);
	void *h = hmalloc(r, e->bytes, what);
	if (!h)
		return NULL;
	buffer_fill(h, pb->type, pb->count, pb->init, pb->value, buffer_seed(r->p->seed, pb->name));
	e->host = h;
	return h;
}

/* Writes buffer i's initial contents into dst: one memset, else a copy of
 * the pristine device copy (when use_pristine and there is one), else an
 * upload of the host copy. */
static int init_dev(wrun *r, int i, CUdeviceptr dst, int use_pristine)
{
	pbuf *e = B(r, i);
	if (e->bytes == 0)
		return 0;
	if (e->pat == PAT_D8)
		return ck(r, cu.MemsetD8(dst, (unsigned char)e->pval, e->bytes), "cuMemsetD8");
	if (e->pat == PAT_D32)
		return ck(r, cu.MemsetD32(dst, e->pval, e->bytes / 4), "cuMemsetD32");
	if (use_pristine && e->pristine && e->pristine != dst)
		return ck(r, cu.MemcpyDtoD(dst, e->pristine, e->bytes), "cuMemcpyDtoD");
	void *h = host_of(r, i);
	if (!h)
		return -1;
	return ck(r, cu.MemcpyHtoD(dst, h, e->bytes), "cuMemcpyHtoD");
}

/* Resets every buffer whose device contents may have changed. */
static int reset_dirty(wrun *r)
{
	for (int i = 0; i < r->p->nbufs; i++) {
		pbuf *e = B(r, i);
		if (!e->dirty)
			continue;
		if (init_dev(r, i, e->d, 1) != 0)
			return -1;
		e->dirty = 0;
	}
	return 0;
}

/* Whether an output needs a device copy of its initial contents: to reset
 * it before every timed launch when no memset will do. */
static int needs_pristine(const plan *p, int i, const pbuf *e)
{
	return p->t.do_time && p->bufs[i].output && e->pat == PAT_NONE && e->bytes > 0;
}

/* Whether a pristine copy already made is still worth keeping: its buffer
 * is still an output reset by copying (a check-only run then resets it
 * from the device, not the host). Should it stand in the way of new
 * allocations, setup drops the pool and starts again. */
static int keeps_pristine(const plan *p, int i, const pbuf *e)
{
	return p->bufs[i].output && e->pat == PAT_NONE && e->bytes > 0;
}

/* Makes pool[i] buffer i of the plan: the pooled buffers whose signature
 * matches stay (with their contents), the others are freed, the missing
 * ones allocated; then every buffer holds its initial contents.
 * 0: done; 1: short of device memory (*need_out: what the new allocations
 * need; nothing reported); -1: an error, reported. */
static int pool_take(wrun *r, uint64_t *need_out)
{
	const plan *p = r->p;
	wstate *ws = r->ws;
	buffer_sig have[PLAN_MAX_BUFS], want[PLAN_MAX_BUFS];
	int hidx[PLAN_MAX_BUFS], match[PLAN_MAX_BUFS], nhave = 0;
	for (int j = 0; j < PLAN_MAX_BUFS; j++)
		if (ws->pool[j].d) {
			have[nhave] = ws->pool[j].sig;
			hidx[nhave++] = j;
		}
	for (int i = 0; i < p->nbufs; i++) {
		const plan_buf *pb = &p->bufs[i];
		buffer_sig_make(&want[i], pb->name, pb->type, pb->count, pb->init, pb->value, pb->managed, p->seed);
	}
	buffer_sig_match(have, nhave, want, p->nbufs, match);

	/* The matched buffers move to their new places, the others go. */
	pbuf next[PLAN_MAX_BUFS];
	int kept[PLAN_MAX_BUFS] = {0}, reused = 0, ret = 0;
	memset(next, 0, sizeof next);
	for (int i = 0; i < p->nbufs; i++)
		if (match[i] >= 0) {
			next[i] = ws->pool[hidx[match[i]]];
			kept[hidx[match[i]]] = 1;
			reused++;
		}
	for (int j = 0; j < PLAN_MAX_BUFS; j++)
		if (!kept[j] && pbuf_release(r, &ws->pool[j]) != 0)
			ret = -1;
	memcpy(ws->pool, next, sizeof next);
	if (ret != 0)
		return -1;

	/* What the new allocations need. */
	uint64_t need = 0, scratch = 0;
	for (int i = 0; i < p->nbufs; i++) {
		const plan_buf *pb = &p->bufs[i];
		pbuf *e = B(r, i);
		e->verified = 0;
		if (!e->d) {
			e->sig = want[i];
			e->bytes = (size_t)(pb->count * dtype_size(pb->type));
			pattern_of(pb, &e->pat, &e->pval);
			need += e->bytes ? e->bytes : 1;
		}
		if (e->pristine && !keeps_pristine(p, i, e)) {
			CUresult x = cu.MemFree(e->pristine);
			e->pristine = 0;
			if (ck(r, x, "cuMemFree") != 0)
				return -1;
		}
		if (needs_pristine(p, i, e) && !e->pristine)
			need += e->bytes;
		if (p->t.do_check)
			for (int j = 0; j < p->nchecks; j++)
				if (p->checks[j].kind == CHECK_KERNEL && p->checks[j].out == i && e->bytes > scratch)
					scratch = e->bytes;
	}
	need += scratch;
	size_t fr = 0, tot = 0;
	if (ck(r, cu.MemGetInfo(&fr, &tot), "cuMemGetInfo") != 0)
		return -1;
	*need_out = need;
	if (need > fr)
		return 1;

	/* Allocate. A new buffer is dirty until written; a new pristine copy
	 * joins its buffer only once written. */
	CUdeviceptr newp[PLAN_MAX_BUFS] = {0};
	int nnew = 0;
	uint64_t uploaded = 0;
	for (int i = 0; i < p->nbufs; i++) {
		pbuf *e = B(r, i);
		if (e->d)
			continue;
		char what[128];
		snprintf(what, sizeof what, "buffer '%s'", p->bufs[i].name);
		CUresult x = dalloc_try(r, &e->d, e->bytes, p->bufs[i].managed, what);
		if (x != CUDA_SUCCESS) {
			memset(e, 0, sizeof *e);
			return x == CUDA_ERROR_OUT_OF_MEMORY ? 1 : -1;
		}
		e->dirty = 1;
		nnew++;
	}
	for (int i = 0; i < p->nbufs; i++) {
		pbuf *e = B(r, i);
		if (!needs_pristine(p, i, e) || e->pristine)
			continue;
		char what[128];
		snprintf(what, sizeof what, "the initial copy of buffer '%s'", p->bufs[i].name);
		CUresult x = dalloc_try(r, &newp[i], e->bytes, 0, what);
		if (x != CUDA_SUCCESS) {
			ret = x == CUDA_ERROR_OUT_OF_MEMORY ? 1 : -1;
			goto out;
		}
	}

	/* Write the initial contents where they may be missing. A buffer is
	 * verified when this run wrote it from its host copy or a memset (not
	 * trusting what earlier runs left). */
	for (int i = 0; i < p->nbufs; i++) {
		pbuf *e = B(r, i);
		int ok = 1;
		if (e->dirty) {
			int via_pristine = e->pat == PAT_NONE && e->pristine;
			if (e->pat == PAT_NONE && !via_pristine)
				uploaded += e->bytes;
			if (init_dev(r, i, e->d, 1) != 0) {
				ret = -1;
				goto out;
			}
			e->dirty = 0;
			ok = !via_pristine;
		} else {
			ok = 0;
		}
		if (newp[i]) {
			/* from the buffer just written, else from the host copy */
			CUresult x = ok ? cu.MemcpyDtoD(newp[i], e->d, e->bytes) : CUDA_SUCCESS;
			if ((ok && ck(r, x, "cuMemcpyDtoD") != 0) || (!ok && init_dev(r, i, newp[i], 0) != 0)) {
				ret = -1;
				goto out;
			}
			e->pristine = newp[i];
			newp[i] = 0;
		} else if (e->pristine) {
			ok = 0;
		}
		e->verified = ok;
	}
	trace(r, "buffers: %d reused, %d new, %.1f MiB uploaded", reused, nnew, (double)uploaded / (double)MiB);
out:
	for (int i = 0; i < p->nbufs; i++)
		if (newp[i])
			cu.MemFree(newp[i]); /* never written: not worth a message of its own */
	return ret;
}

static int setup_buffers(wrun *r)
{
	uint64_t need = 0;
	for (int attempt = 0;; attempt++) {
		int rc = pool_take(r, &need);
		if (rc <= 0)
			return rc;
		/* Short of device memory: start again once without the pool (what
		 * it holds may be in the way); then report what the whole plan
		 * needs, as a fresh worker would. */
		int held = pool_held(r->ws);
		if (pool_drop(r) != 0)
			return -1;
		if (attempt == 0 && held) {
			trace(r, "short of device memory: the pool is dropped");
			continue;
		}
		size_t f = 0, tot = 0;
		if (ck(r, cu.MemGetInfo(&f, &tot), "cuMemGetInfo") != 0)
			return -1;
		char a[32], b[32];
		return rfail(r, 0, "buffers need %s but only %s of device memory is free",
		             fmt_bytes(need, a, sizeof a), fmt_bytes(f, b, sizeof b));
	}
}

/* Whether every buffer of the run was written by this run. */
static int all_verified(wrun *r)
{
	for (int i = 0; i < r->p->nbufs; i++)
		if (!B(r, i)->verified)
			return 0;
	return 1;
}

/* Writes every buffer not verified (and its pristine copy) again from its
 * host copy or memset. */
static int reverify(wrun *r)
{
	for (int i = 0; i < r->p->nbufs; i++) {
		pbuf *e = B(r, i);
		if (e->verified)
			continue;
		if (e->pristine && init_dev(r, i, e->pristine, 0) != 0)
			return -1;
		if (init_dev(r, i, e->d, 0) != 0)
			return -1;
		e->dirty = 0;
		e->verified = 1;
	}
	return 0;
}

/* Resets every output to its initial contents before a timed launch,
 * queued on the stream. */
static int restore_outputs(wrun *r)
{
	for (int i = 0; i < r->p->nbufs; i++) {
		pbuf *e = B(r, i);
		if (!r->p->bufs[i].output || e->bytes == 0)
			continue;
		CUresult x;
		const char *call;
		if (e->pat == PAT_D8) {
			x = cu.MemsetD8Async(e->d, (unsigned char)e->pval, e->bytes, NULL);
			call = "cuMemsetD8Async";
		} else if (e->pat == PAT_D32) {
			x = cu.MemsetD32Async(e->d, e->pval, e->bytes / 4, NULL);
			call = "cuMemsetD32Async";
		} else if (e->pristine) {
			x = cu.MemcpyDtoDAsync(e->d, e->pristine, e->bytes, NULL);
			call = "cuMemcpyDtoDAsync";
		} else {
			if (init_dev(r, i, e->d, 0) != 0) /* not expected: timing keeps a pristine copy */
				return -1;
			continue;
		}
		if (ck(r, x, call) != 0)
			return -1;
	}
	return 0;
}

/* --------------------------------------------------------------- checks */

/* Integer outputs wrap as the device's arithmetic does. */
static double wrap_int(double v, dtype t)
{
	if (!isfinite(v) || v != floor(v) || fabs(v) >= 9.2e18)
		return v;
	uint64_t x = (uint64_t)(int64_t)v;
	switch (t) {
	case DT_INT: return (double)(int32_t)(uint32_t)x;
	case DT_UNSIGNED: return (double)(uint32_t)x;
	default: return v;
	}
}

/* The wanted values of a CHECK_REF check: the reference on the initial
 * contents of its buffers, n values of type *wt. From the cache when the
 * same reference ran on the same data before; else computed, and *owned is
 * set to the new array (the caller gives it to the cache with *key). */
static const void *ref_want(wrun *r, const plan_check *c, uint64_t n, dtype *wt, int *scalar_out,
                            ref_key *key, void **owned)
{
	const plan *p = r->p;
	const plan_buf *ob = &p->bufs[c->out];
	const char *oname = ob->name;
	const ref_fn *f = ref_find(c->ref);
	*owned = NULL;
	if (!f) {
		rfail(r, 0, "check of '%s': unknown reference '%s'", oname, c->ref);
		return NULL;
	}
	*scalar_out = f->scalar_out;
	if (c->nargs != f->nargs) {
		rfail(r, 0, "check of '%s': %s takes %d argument%s, got %d", oname, f->synopsis,
		      f->nargs, f->nargs == 1 ? "" : "s", c->nargs);
		return NULL;
	}
	ref_arg ra[SPEC_MAX_CHECK_ARGS];
	memset(ra, 0, sizeof ra);
	ref_key_init(key, f->name, ob->type, n);
	for (int j = 0; j < c->nargs; j++) {
		const plan_arg *a = &c->args[j];
		int want_buf = f->argkinds[j] == 'b';
		if (want_buf != (a->kind == ARG_PTR)) {
			rfail(r, 0, "check of '%s': argument %d of %s must be %s", oname, j + 1, f->synopsis,
			      want_buf ? "a buffer" : "a number, not a buffer");
			return NULL;
		}
		if (a->kind == ARG_PTR) {
			ra[j].is_buf = 1;
			ra[j].count = p->bufs[a->buf].count;
			ra[j].name = p->bufs[a->buf].name;
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
	uint64_t cn = 0;
	const void *hit = ref_cache_get(&r->ws->refs, key, wt, &cn);
	if (hit && cn == n) {
		trace(r, "reference %s of '%s': cached", f->name, oname);
		return hit;
	}

	uint64_t t0 = now_ns();
	double *conv[SPEC_MAX_CHECK_ARGS] = {0};
	double *want = NULL;
	char *e = NULL;
	const void *ret = NULL;
	for (int j = 0; j < c->nargs; j++) {
		if (!ra[j].is_buf)
			continue;
		int bi = c->args[j].buf;
		const plan_buf *pb = &p->bufs[bi];
		char what[96];
		void *h = host_of(r, bi);
		if (!h)
			goto out;
		snprintf(what, sizeof what, "buffer '%s' as doubles", pb->name);
		conv[j] = hmalloc(r, (size_t)pb->count * sizeof(double), what);
		if (!conv[j])
			goto out;
		buffer_to_double(h, pb->type, pb->count, conv[j]);
		ra[j].data = conv[j];
	}
	char what[96];
	snprintf(what, sizeof what, "the reference of buffer '%s'", oname);
	want = hmalloc(r, (size_t)n * sizeof(double), what);
	if (!want)
		goto out;
	buffer_fill(want, DT_DOUBLE, n, INIT_VALUE, NAN, 0);
	if (f->fn(ra, want, n, &e) != 0) {
		rfail(r, 0, "check of '%s': %s", oname, e ? e : "reference failed");
		goto out;
	}
	if (!dtype_is_float(ob->type))
		for (uint64_t k = 0; k < n; k++)
			want[k] = wrap_int(want[k], ob->type);
	*wt = DT_DOUBLE;
	/* Kept in the output's own type when that holds every value exactly
	 * (a transpose or copy of floats): half the memory to cache and read. */
	if (ob->type == DT_FLOAT || ob->type == DT_INT || ob->type == DT_UNSIGNED) {
		void *narrow = malloc(n ? (size_t)n * 4 : 1);
		if (narrow && buffer_from_double_exact(want, n, ob->type, narrow)) {
			free(want);
			want = narrow;
			*wt = ob->type;
		} else {
			free(narrow);
		}
	}
	trace(r, "reference %s of '%s': computed in %.1f ms (kept as %s)", f->name, oname,
	      (double)(now_ns() - t0) / 1e6, dtype_name(*wt));
	*owned = want;
	ret = want;
	want = NULL;
out:
	free(e);
	free(want);
	for (int j = 0; j < SPEC_MAX_CHECK_ARGS; j++)
		free(conv[j]);
	return ret;
}

/* The buffer downloads of checked outputs go to, kept between runs. */
static void stage_free(wstate *ws)
{
	if (ws->stage) {
		if (ws->stage_pinned && cu_host_free)
			cu_host_free(ws->stage); /* nothing to do about a failure here */
		else if (!ws->stage_pinned)
			free(ws->stage);
	}
	ws->stage = NULL;
	ws->stage_bytes = 0;
	ws->stage_pinned = 0;
}

static void *stage_get(wrun *r, size_t bytes, const char *what)
{
	wstate *ws = r->ws;
	if (bytes == 0)
		bytes = 1;
	if (ws->stage && ws->stage_bytes >= bytes)
		return ws->stage;
	stage_free(ws);
	if (cu_host_alloc && bytes <= STAGE_KEEP_MAX) {
		void *h = NULL;
		CUresult e = cu_host_alloc(&h, bytes, 0);
		if (e == CUDA_SUCCESS && h) {
			ws->stage = h;
			ws->stage_bytes = bytes;
			ws->stage_pinned = 1;
			return h;
		}
		if (cu_is_sticky(e)) {
			ck(r, e, "cuMemHostAlloc");
			return NULL;
		}
		trace(r, "cuMemHostAlloc failed (%s): pageable memory instead", cu_errstr(e));
	}
	void *h = hmalloc(r, bytes, what);
	if (!h)
		return NULL;
	ws->stage = h;
	ws->stage_bytes = bytes;
	ws->stage_pinned = 0;
	return h;
}

/* Downloads a device buffer into a new host array (for checks against
 * another kernel). */
static void *download_new(wrun *r, CUdeviceptr d, const plan_buf *pb, size_t bytes)
{
	char what[96];
	snprintf(what, sizeof what, "buffer '%s'", pb->name);
	void *raw = hmalloc(r, bytes, what);
	if (!raw)
		return NULL;
	if (bytes && ck(r, cu.MemcpyDtoH(raw, d, bytes), "cuMemcpyDtoH") != 0) {
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
	int ret = -1;
	r->res->nchecks = 0;
	send_progress(ws, 0, WIRE_PHASE_GPU, 0);
	for (int i = 0; i < p->nchecks; i++) {
		const plan_check *c = &p->checks[i];
		if (c->kind != CHECK_KERNEL)
			continue;
		const plan_buf *pb = &p->bufs[c->out];
		pbuf *ob = B(r, c->out);
		CUdeviceptr scratch = 0;
		char what[128];
		snprintf(what, sizeof what, "the check copy of buffer '%s'", pb->name);
		if (dalloc(r, &scratch, ob->bytes, 0, what) != 0)
			goto out;
		CUdeviceptr ptrs[PLAN_MAX_BUFS];
		for (int j = 0; j < p->nbufs; j++)
			ptrs[j] = B(r, j)->d;
		ptrs[c->out] = scratch;
		kargs *ka = xmalloc(sizeof *ka);
		build_args(ka, &c->other, ptrs);
		int ok = init_dev(r, c->out, scratch, 1) == 0 && reset_dirty(r) == 0 &&
		         launch(r, r->other[i], &c->other, ka) == 0 &&
		         ck_kernel(r, cu.CtxSynchronize(), c->other.name) == 0;
		free(ka);
		if (ok) {
			kgot[i] = download_new(r, scratch, pb, ob->bytes);
			ok = kgot[i] != NULL;
		}
		CUresult e = cu.MemFree(scratch);
		if (ok && ck(r, e, "cuMemFree") != 0)
			ok = 0;
		if (!ok)
			goto out;
	}
	if (reset_dirty(r) != 0)
		goto out;
	if (launch(r, r->fn, &p->launch, &r->ka) != 0 ||
	    ck_kernel(r, cu.CtxSynchronize(), p->launch.name) != 0)
		goto out;
	trace(r, "checked launch done");
	send_progress(ws, 0, WIRE_PHASE_HOST, 0);
	int staged = -1; /* the output now in the download buffer */
	for (int i = 0; i < p->nchecks; i++) {
		const plan_check *c = &p->checks[i];
		const plan_buf *pb = &p->bufs[c->out];
		pbuf *ob = B(r, c->out);
		uint64_t n = pb->count;
		char what[96];
		snprintf(what, sizeof what, "buffer '%s'", pb->name);
		void *got = stage_get(r, ob->bytes, what);
		if (!got)
			goto out;
		if (staged != c->out) {
			staged = -1;
			if (ob->bytes && ck(r, cu.MemcpyDtoH(got, ob->d, ob->bytes), "cuMemcpyDtoH") != 0)
				goto out;
			staged = c->out;
			trace(r, "downloaded '%s' (%.1f MiB%s)", pb->name, (double)ob->bytes / (double)MiB,
			      ws->stage_pinned ? ", page-locked" : "");
		}
		const void *want = kgot[i];
		dtype wt = pb->type;
		int scalar_out = 0;
		void *owned = NULL;
		ref_key key;
		if (c->kind == CHECK_REF) {
			want = ref_want(r, c, n, &wt, &scalar_out, &key, &owned);
			if (!want)
				goto out;
		}
		cmp_result cr;
		ref_compare_typed(got, pb->type, want, wt, scalar_out && n > 1 ? 1 : n, c->tol, &cr);
		trace(r, "compared '%s' on %d threads", pb->name, ref_threads());
		if (owned)
			ref_cache_put(&ws->refs, &key, owned, wt, n);
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
	for (int i = 0; i < PLAN_MAX_CHECKS; i++)
		free(kgot[i]);
	return ret;
}

/* The checks. When one fails on buffers an earlier run left on the device
 * (trusted because kernels write only outputs), they are written again
 * from their host copies and the checks run once more: a kernel that
 * broke the contract (say, wrote past its output into an input) cannot
 * make a later, correct kernel fail. */
static int check_pass(wrun *r)
{
	int failed = 0;
	if (check_once(r, &failed) != 0)
		return -1;
	if (!failed || all_verified(r))
		return 0;
	trace(r, "a check failed on reused buffers: writing them again and checking once more");
	if (reverify(r) != 0)
		return -1;
	failed = 0;
	return check_once(r, &failed);
}

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
static void measure_empty(wrun *r, int kernel_clock)
{
	wstate *ws = r->ws;
	if (kernel_clock ? ws->empty_kernel_done : ws->empty_done)
		return;
	if (kernel_clock)
		ws->empty_kernel_done = 1;
	else
		ws->empty_done = 1;
	CUmodule mod;
	CUfunction fn;
	if (cu.ModuleLoadData(&mod, empty_ptx) != CUDA_SUCCESS)
		return;
	double single[21], batch[5];
	int ok = cu.ModuleGetFunction(&fn, mod, "cuplay_empty") == CUDA_SUCCESS;
	if (ok && kernel_clock) {
		/* as the samples are taken: each launch waited for on its own */
		for (int i = 0; i < 21 && ok; i++) {
			if (ws->flush)
				ok &= flush_l2(ws, i) == CUDA_SUCCESS;
			ok &= cu.LaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL) == CUDA_SUCCESS;
			ok &= cu.CtxSynchronize() == CUDA_SUCCESS;
		}
		ok = ok && kclock_take("cuplay_empty", single, 21, NULL) == 21;
		if (ok) {
			qsort(single + 1, 20, sizeof single[0], cmp_ms);
			ws->empty_kernel_ms = (single[10] + single[11]) / 2;
		}
	} else if (ok) {
		for (int i = 0; i < 21 + 5 && ok; i++) {
			int b = i < 21 ? 1 : 100;
			if (b == 1 && ws->flush)
				ok &= flush_l2(ws, i) == CUDA_SUCCESS;
			ok &= cu.EventRecord(ws->ev0, NULL) == CUDA_SUCCESS;
			for (int k = 0; k < b; k++)
				ok &= cu.LaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL) == CUDA_SUCCESS;
			ok &= cu.EventRecord(ws->ev1, NULL) == CUDA_SUCCESS;
			ok &= cu.EventSynchronize(ws->ev1) == CUDA_SUCCESS;
			float ms = 0;
			ok &= cu.EventElapsedTime(&ms, ws->ev0, ws->ev1) == CUDA_SUCCESS;
			if (i < 21)
				single[i] = ms;
			else
				batch[i - 21] = ms / b;
		}
		if (ok) {
			qsort(single + 1, 20, sizeof single[0], cmp_ms); /* the first launch warms up */
			qsort(batch, 5, sizeof batch[0], cmp_ms);
			ws->empty_ms = (single[10] + single[11]) / 2;
			ws->empty_batch_ms = batch[2];
		}
	}
	cu.ModuleUnload(mod);
}

/* Whether this run's samples come from the kernel clock (kclock.c): asked
 * for, one launch a sample, no launches from the device, and CUPTI willing.
 * Otherwise events, with res->clock_note saying why where the kernel clock
 * was asked for. A worker that could not start it once does not try again. */
static int kernel_clock_begin(wrun *r, int batch)
{
	wstate *ws = r->ws;
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
	if (!ws->kclock_why[0]) {
		char *why = NULL;
		if (kclock_start(&why) == 0) {
			res->clock = CLOCK_KERNEL;
			return 1;
		}
		snprintf(ws->kclock_why, sizeof ws->kclock_why, "%s", why ? why : "CUPTI failed");
		free(why);
	}
	snprintf(res->clock_note, sizeof res->clock_note, "%s", ws->kclock_why);
	return 0;
}

/* What comes before each sample: outputs reset, managed buffers back on
 * the host, and (with flush) a cold L2. All on the stream, asynchronous. */
static int sample_prologue(wrun *r, int n)
{
	const plan *p = r->p;
	if (restore_outputs(r) != 0)
		return -1;
	for (int i = 0; cu_prefetch && i < p->nbufs; i++)
		if (p->bufs[i].managed && B(r, i)->d &&
		    ck(r, cu_prefetch(B(r, i)->d, p->bufs[i].count * dtype_size(p->bufs[i].type),
		                      (cu_mem_location){ CU_MEM_LOCATION_TYPE_HOST_, 0 }, 0, NULL),
		       "cuMemPrefetchAsync (managed buffer to the host)") != 0)
			return -1;
	if (p->t.flush && r->ws->flush && ck(r, flush_l2(r->ws, n), "the L2 flush") != 0)
		return -1;
	return 0;
}

/* Samples on the kernel clock, k of them: each one's prologue and launch
 * waited for on its own (with the next samples queued behind it, a 10 us
 * kernel's record grew by ~0.4 us on an H100), then the k kernels' records
 * in one CUPTI flush, which costs tens of microseconds. Returns k with
 * ms[0..k-1]; 0 when the records did not all come (the caller goes over to
 * events, and the worker stops asking for them); -1 on an error. */
static int kernel_clock_samples(wrun *r, int n, int k, double *ms)
{
	const plan_launch *l = &r->p->launch;
	for (int i = 0; i < k; i++)
		if (sample_prologue(r, n + i) != 0 || launch(r, r->fn, l, &r->ka) != 0 ||
		    ck_kernel(r, cu.CtxSynchronize(), l->name) != 0)
			return -1;
	char *why = NULL;
	int got = kclock_take(kernel_symbol(l), ms, k, &why);
	if (got != k) {
		if (got >= 0)
			snprintf(r->ws->kclock_why, sizeof r->ws->kclock_why,
			         "CUPTI gave %d kernel records for %d launches", got, k);
		else
			snprintf(r->ws->kclock_why, sizeof r->ws->kclock_why, "%s", why);
		snprintf(r->res->clock_note, sizeof r->res->clock_note, "%s", r->ws->kclock_why);
	}
	free(why);
	return got == k ? k : 0;
}

/* How many kernel-clock samples to take records for at once: about 1 ms of
 * GPU time (the kernel plus its prologue, ~0.1 ms with a flush), at most 8,
 * and no more than are still allowed; one at first, to learn the time. The
 * stopping rule looks after each group, so it may overshoot by k - 1. */
static int group_size(const double *samples, int n, int max_reps)
{
	int k = 1;
	if (n > 0) {
		double each = samples[n - 1] + 0.1;
		k = each >= 1.0 ? 1 : (int)(1.0 / each);
		if (k > 8)
			k = 8;
	}
	return k < max_reps - n ? k : max_reps - n;
}

/* One sample between two events: `batch` back-to-back launches, the
 * launch gaps overlapping kernels; outputs are reset once per sample. The
 * time of one launch. */
static int events_sample(wrun *r, int n, int batch, double *ms)
{
	wstate *ws = r->ws;
	const plan *p = r->p;
	if (sample_prologue(r, n) != 0 || ck(r, cu.EventRecord(ws->ev0, NULL), "cuEventRecord") != 0)
		return -1;
	for (int b = 0; b < batch; b++)
		if (launch(r, r->fn, &p->launch, &r->ka) != 0)
			return -1;
	if (ck(r, cu.EventRecord(ws->ev1, NULL), "cuEventRecord") != 0 ||
	    ck_kernel(r, cu.EventSynchronize(ws->ev1), p->launch.name) != 0)
		return -1;
	float f = 0;
	if (ck(r, cu.EventElapsedTime(&f, ws->ev0, ws->ev1), "cuEventElapsedTime") != 0)
		return -1;
	*ms = (double)f / batch;
	return 0;
}

static int time_samples(wrun *r, int kernel_clock)
{
	const plan *p = r->p;
	wstate *ws = r->ws;
	result *res = r->res;
	timing_opts t = p->t;
	if (t.max_reps > RES_MAX_SAMPLES)
		t.max_reps = RES_MAX_SAMPLES;
	if (t.max_reps < 1)
		t.max_reps = 1;
	int n = 0;
	double total_s = 0;
	int batch = t.batch > 1 ? t.batch : 1;
	uint64_t loop_t0 = now_ns();
	measure_empty(r, kernel_clock);
	while (n < t.max_reps && !stats_should_stop(res->samples_ms, n, total_s, &t)) {
		int got = 1;
		if (kernel_clock) {
			got = kernel_clock_samples(r, n, group_size(res->samples_ms, n, t.max_reps), res->samples_ms + n);
			if (got < 0)
				return -1;
			if (got == 0) {
				/* over to events for the rest of the run: samples are not mixed */
				kclock_stop();
				kernel_clock = 0;
				res->clock = CLOCK_EVENTS;
				n = res->nsamples = 0;
				total_s = 0;
				measure_empty(r, 0);
				continue;
			}
		} else if (events_sample(r, n, batch, &res->samples_ms[n]) != 0) {
			return -1;
		}
		for (int i = 0; i < got; i++, n++) {
			total_s += res->samples_ms[n] * batch * 1e-3;
			res->nsamples = n + 1;
			send_progress(ws, n + 1, WIRE_PHASE_GPU, res->samples_ms[n]);
		}
		if (t.max_wall_s > 0 && n >= t.min_reps && (double)(now_ns() - loop_t0) * 1e-9 >= t.max_wall_s)
			break;
		if (stop_now(ws)) {
			res->status = RES_INTERRUPTED;
			break;
		}
	}
	res->empty_ms = batch > 1 ? ws->empty_batch_ms : kernel_clock ? ws->empty_kernel_ms : ws->empty_ms;
	return 0;
}

/* Timing: warm-ups, then samples until the stopping rule says enough, each
 * on reset outputs and (with flush) a cold L2. */
static int time_pass(wrun *r)
{
	const plan *p = r->p;
	wstate *ws = r->ws;
	result *res = r->res;
	int warm = p->t.warmup < 0 ? 0 : p->t.warmup;
	send_progress(ws, 0, WIRE_PHASE_GPU, 0);
	nvml_begin(&ws->nvml, &res->cond);
	for (int i = 0; i < warm; i++) {
		if (stop_now(ws)) {
			res->status = RES_INTERRUPTED;
			nvml_end(&ws->nvml, &res->cond);
			return 0;
		}
		if (restore_outputs(r) != 0 || launch(r, r->fn, &p->launch, &r->ka) != 0 ||
		    ck_kernel(r, cu.CtxSynchronize(), p->launch.name) != 0)
			return -1;
		send_progress(ws, 0, WIRE_PHASE_GPU, 0);
	}
	int kernel_clock = kernel_clock_begin(r, p->t.batch);
	int rc = time_samples(r, kernel_clock);
	kclock_stop();
	if (rc != 0)
		return -1;
	nvml_end(&ws->nvml, &res->cond);
	return 0;
}

/* The launch CUPTI profiles (and replays once per pass). */
static int prof_launch(void *arg)
{
	wrun *r = arg;
	return launch(r, r->fn, &r->p->launch, &r->ka) != 0;
}

/* Hardware counters: one more launch, outside the timed samples, on reset
 * outputs and (with flush) a cold L2, with the GPU idle before, so the
 * profiled range holds only the kernel. Counters that cannot be read are
 * reported in res->prof and stop nothing; a launch that fails, or a broken
 * context after a failed collect, takes the usual error path. */
static void metrics_pass(wrun *r)
{
	const plan *p = r->p;
	wstate *ws = r->ws;
	prof_reply *pr = &r->res->prof;
	memset(pr, 0, sizeof *pr);
	int n = p->nmetrics;
	if (restore_outputs(r) != 0)
		return;
	if (p->t.flush && ws->flush &&
	    ck(r, flush_l2(ws, 0), "the L2 flush") != 0)
		return;
	if (ck_kernel(r, cu.CtxSynchronize(), p->launch.name) != 0)
		return;
	/* CUPTI's setup and the replays are host work, and slow */
	send_progress(ws, 0, WIRE_PHASE_HOST, 0);
	const char *names[PROF_MAX_METRICS];
	for (int i = 0; i < n; i++)
		names[i] = p->metrics[i];
	prof_info info;
	memset(&info, 0, sizeof info);
	char *err = NULL;
	trace(r, "collecting %d metrics", n);
	prof_status st = prof_collect(ws->ctx, ws->dev, names, n, prof_launch, r, pr->values, &info, &err);
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
	trace(r, "metrics: status %d, %d passes, %.1f ms", (int)st, info.passes, info.ms);
	if (st == PROF_LAUNCH) {
		/* launch() recorded why; make sure a run error says so */
		if (r->res->status == RES_OK)
			rfail(r, 0, "kernel '%s': the profiled launch failed", p->launch.name);
		return;
	}
	if (st != PROF_OK)
		ck_kernel(r, cu.CtxSynchronize(), p->launch.name); /* a fault during the replays is sticky */
}

/* `info`: the function's attributes and the occupancy API's answers for the
 * planned launch. A query the driver does not offer stays unknown. */
static void info_pass(wrun *r)
{
	const plan_launch *l = &r->p->launch;
	func_info *fi = &r->res->fn;
	memset(fi, 0, sizeof *fi);
	fi->occ_blocks = -1;
	if (cu.FuncGetAttribute) {
		static const int attrs[] = { CU_FUNC_ATTRIBUTE_NUM_REGS, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
		                             CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,
		                             CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK };
		int32_t *dst[] = { &fi->regs, &fi->static_smem, &fi->local_bytes, &fi->const_bytes, &fi->max_threads };
		for (size_t i = 0; i < ARRAY_LEN(attrs); i++) {
			int v = 0;
			if (ck(r, cu.FuncGetAttribute(&v, attrs[i], r->fn), "cuFuncGetAttribute") != 0)
				return;
			*dst[i] = v;
		}
		fi->known = 1;
	}
	int threads = (int)(l->block[0] * l->block[1] * l->block[2]);
	if (cu.OccupancyMaxActiveBlocksPerMultiprocessor) {
		int blocks = 0;
		CUresult e = cu.OccupancyMaxActiveBlocksPerMultiprocessor(&blocks, r->fn, threads, l->smem);
		if (e == CUDA_SUCCESS)
			fi->occ_blocks = blocks;
		else if (cu_is_sticky(e))
			ck(r, e, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
	}
	if (cu.OccupancyMaxPotentialBlockSize) {
		int grid = 0, block = 0;
		CUresult e = cu.OccupancyMaxPotentialBlockSize(&grid, &block, r->fn, NULL, l->smem, 0);
		if (e == CUDA_SUCCESS) {
			fi->suggest_block = block;
			fi->suggest_grid = grid;
		} else if (cu_is_sticky(e)) {
			ck(r, e, "cuOccupancyMaxPotentialBlockSize");
		}
	}
	nvml_now(&r->ws->nvml, &r->res->cond);
}

/* The module goes; the buffers stay in the pool for the next run. */
static void run_cleanup(wrun *r)
{
	wstate *ws = r->ws;
	if (r->have_mod)
		cu.ModuleUnload(r->mod);
	r->have_mod = 0;
	if (ws->stage && ws->stage_bytes > STAGE_KEEP_MAX)
		stage_free(ws);
}

static void serve_run(wstate *ws, const plan *p, const void *image, result *res)
{
	uint64_t t0 = now_ns();
	wrun *r = xcalloc(1, sizeof *r);
	r->t0 = t0;
	r->ws = ws;
	r->p = p;
	r->res = res;
	res->status = RES_OK;
	w_interrupted = 0;
	ws->stop = 0;
	send_progress(ws, 0, WIRE_PHASE_HOST, 0);
	if (validate_plan(r) != 0)
		goto done;
	if (p->info_only) {
		if (ck(r, cu.ModuleLoadData(&r->mod, image), "cuModuleLoadData") != 0)
			goto done;
		r->have_mod = 1;
		if (get_function(r, &p->launch, &r->fn) == 0)
			info_pass(r);
		goto done;
	}
	measure_roof(r);
	if (res->status != RES_OK)
		goto done;
	if ((p->t.do_time || p->nmetrics > 0) && p->t.flush && ensure_flush(r) != 0)
		goto done;
	if (ck(r, cu.ModuleLoadData(&r->mod, image), "cuModuleLoadData") != 0)
		goto done;
	r->have_mod = 1;
	if (get_function(r, &p->launch, &r->fn) != 0)
		goto done;
	if (p->t.do_check)
		for (int i = 0; i < p->nchecks; i++)
			if (p->checks[i].kind == CHECK_KERNEL && get_function(r, &p->checks[i].other, &r->other[i]) != 0)
				goto done;
	if (setup_buffers(r) != 0)
		goto done;
	{
		CUdeviceptr ptrs[PLAN_MAX_BUFS] = {0};
		for (int i = 0; i < p->nbufs; i++)
			ptrs[i] = B(r, i)->d;
		build_args(&r->ka, &p->launch, ptrs);
	}
	uint64_t t1 = now_ns();
	trace(r, "setup done");
	res->setup_ms = (double)(t1 - t0) / 1e6;
	if (p->t.do_check && check_pass(r) != 0)
		goto done;
	uint64_t t2 = now_ns();
	res->check_ms = (double)(t2 - t1) / 1e6;
	trace(r, "checks done");
	if (p->t.do_time) {
		if (stop_now(ws))
			res->status = RES_INTERRUPTED;
		else
			time_pass(r);
	}
	res->time_ms = (double)(now_ns() - t2) / 1e6;
	trace(r, "timing done: %d samples", res->nsamples);
	if (p->nmetrics > 0 && res->status == RES_OK && !stop_now(ws))
		metrics_pass(r);
done:
	run_cleanup(r);
	free(r);
	res->roof_gbps = ws->roof_gbps;
	res->launch_ms = (double)(now_ns() - t0) / 1e6;
}

static int get_attr(wstate *ws, int attr, int dflt)
{
	int v = 0;
	if (cu.DeviceGetAttribute(&v, attr, ws->dev) != CUDA_SUCCESS)
		return dflt;
	return v;
}

static int worker_init(wstate *ws, char **err)
{
	if (cu_load(err) != 0)
		return -1;
	CUresult e = cu.Init(0);
	if (e == CUDA_ERROR_NO_DEVICE)
		return fail(err, "no CUDA device");
	if (e != CUDA_SUCCESS)
		return fail(err, "cuInit failed: %s", cu_errstr(e));
	int n = 0;
	if ((e = cu.DeviceGetCount(&n)) != CUDA_SUCCESS)
		return fail(err, "cuDeviceGetCount failed: %s", cu_errstr(e));
	if (n <= 0)
		return fail(err, "no CUDA device");
	if (ws->ordinal < 0 || ws->ordinal >= n) {
		if (n == 1)
			return fail(err, "no CUDA device %d (only device 0 is present)", ws->ordinal);
		return fail(err, "no CUDA device %d (devices 0 to %d are present)", ws->ordinal, n - 1);
	}
	if ((e = cu.DeviceGet(&ws->dev, ws->ordinal)) != CUDA_SUCCESS)
		return fail(err, "cuDeviceGet failed: %s", cu_errstr(e));
	devinfo *d = &ws->info;
	memset(d, 0, sizeof *d);
	d->ordinal = ws->ordinal;
	d->count = n;
	if ((e = cu.DeviceGetName(d->name, (int)sizeof d->name, ws->dev)) != CUDA_SUCCESS)
		return fail(err, "cuDeviceGetName failed: %s", cu_errstr(e));
	d->name[sizeof d->name - 1] = 0;
	if ((e = cu.DeviceGetAttribute(&d->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ws->dev)) != CUDA_SUCCESS ||
	    (e = cu.DeviceGetAttribute(&d->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, ws->dev)) != CUDA_SUCCESS)
		return fail(err, "cuDeviceGetAttribute failed: %s", cu_errstr(e));
	d->sm_count = get_attr(ws, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0);
	d->warp_size = get_attr(ws, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32);
	d->l2_bytes = get_attr(ws, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 0);
	d->max_threads_per_block = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024);
	d->max_block[0] = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024);
	d->max_block[1] = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024);
	d->max_block[2] = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64);
	d->max_grid[0] = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2147483647);
	d->max_grid[1] = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535);
	d->max_grid[2] = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535);
	d->max_smem_block = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 48 * 1024);
	d->max_smem_optin = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, d->max_smem_block);
	if (d->max_smem_optin < d->max_smem_block)
		d->max_smem_optin = d->max_smem_block;
	d->max_smem_sm = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, d->max_smem_optin);
	d->regs_per_block = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 65536);
	d->regs_per_sm = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, 65536);
	d->max_threads_sm = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 2048);
	d->max_blocks_sm = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 32);
	d->clock_khz = get_attr(ws, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 0);
	d->mem_clock_khz = get_attr(ws, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 0);
	d->bus_width_bits = get_attr(ws, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 0);
	if (cu.DriverGetVersion(&d->driver_version) != CUDA_SUCCESS)
		d->driver_version = 0;
	if ((e = cu.DevicePrimaryCtxRetain(&ws->ctx, ws->dev)) != CUDA_SUCCESS)
		return fail(err, "cuDevicePrimaryCtxRetain failed: %s", cu_errstr(e));
	ws->have_ctx = 1;
	if ((e = cu.CtxSetCurrent(ws->ctx)) != CUDA_SUCCESS)
		return fail(err, "cuCtxSetCurrent failed: %s", cu_errstr(e));
	size_t fr = 0, tot = 0;
	if ((e = cu.MemGetInfo(&fr, &tot)) != CUDA_SUCCESS)
		return fail(err, "cuMemGetInfo failed: %s", cu_errstr(e));
	d->total_mem = tot;
	d->free_mem = fr;
	if ((e = cu.EventCreate(&ws->ev0, CU_EVENT_DEFAULT)) != CUDA_SUCCESS)
		return fail(err, "cuEventCreate failed: %s", cu_errstr(e));
	if ((e = cu.EventCreate(&ws->ev1, CU_EVENT_DEFAULT)) != CUDA_SUCCESS)
		return fail(err, "cuEventCreate failed: %s", cu_errstr(e));
	load_host_alloc();
	/* for NVML, opened after the HELLO (see worker_main) */
	nvml_pci_bus_id(ws->ordinal, d->pci_bus_id, (int)sizeof d->pci_bus_id);
	return 0;
}

static void worker_fini(wstate *ws)
{
	ref_cache_clear(&ws->refs);
	if (!cu_loaded())
		return;
	prof_shutdown();
	nvml_close();
	for (int i = 0; i < PLAN_MAX_BUFS; i++)
		pbuf_release(NULL, &ws->pool[i]);
	stage_free(ws);
	if (ws->flush)
		cu.MemFree(ws->flush);
	if (ws->have_flush_fn)
		cu.ModuleUnload(ws->flush_mod);
	if (ws->ev0)
		cu.EventDestroy(ws->ev0);
	if (ws->ev1)
		cu.EventDestroy(ws->ev1);
	if (ws->have_ctx)
		cu.DevicePrimaryCtxRelease(ws->dev);
	ws->flush = 0;
	ws->ev0 = ws->ev1 = NULL;
	ws->have_ctx = 0;
}

/* Makes the strings of a plan from the wire safe to print. */
static void sanitize_launch(plan_launch *l)
{
	l->name[PLAN_NAME - 1] = 0;
	l->lowered[PLAN_LOWERED - 1] = 0;
}

static void sanitize_plan(plan *p)
{
	for (int i = 0; i < PLAN_MAX_BUFS; i++)
		p->bufs[i].name[sizeof p->bufs[i].name - 1] = 0;
	sanitize_launch(&p->launch);
	for (int i = 0; i < PLAN_MAX_CHECKS; i++) {
		p->checks[i].ref[sizeof p->checks[i].ref - 1] = 0;
		sanitize_launch(&p->checks[i].other);
	}
	if (p->nmetrics < 0 || p->nmetrics > PROF_MAX_METRICS)
		p->nmetrics = 0;
	for (int i = 0; i < PROF_MAX_METRICS; i++)
		p->metrics[i][PLAN_METRIC_NAME - 1] = 0;
}

int worker_main(int rfd, int wfd, int device)
{
	wstate ws;
	memset(&ws, 0, sizeof ws);
	ws.rfd = rfd;
	ws.wfd = wfd;
	ws.ordinal = device;

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigset_t ss;
	sigemptyset(&ss);
	sigaddset(&ss, SIGINT);
	sigprocmask(SIG_UNBLOCK, &ss, NULL);

	const char *tr = getenv("CUPLAY_TRACE_WORKER");
	w_trace = tr && tr[0] && strcmp(tr, "0") != 0;
	ref_cache_init(&ws.refs, REF_CACHE_ENTRIES, REF_CACHE_BYTES);

	char *err = NULL;
	if (worker_init(&ws, &err) != 0) {
		const char *m = err ? err : "cannot start the GPU worker";
		wire_send(wfd, MSG_ERROR, m, strlen(m), NULL, 0);
		free(err);
		worker_fini(&ws);
		return 1;
	}
	if (wire_send(wfd, MSG_HELLO, &ws.info, sizeof ws.info, NULL, 0) != 0) {
		worker_fini(&ws);
		return 1;
	}
	/* NVML (clocks, throttling) is optional, and its start-up can take a
	 * while: after the HELLO, while the front end compiles */
	nvml_open(&ws.nvml, ws.ordinal, ws.info.pci_bus_id);
	int code = 0;
	for (;;) {
		uint32_t type = 0;
		void *payload = NULL;
		uint64_t len = 0;
		int rr = wire_recv(rfd, &type, &payload, &len);
		if (rr == 1)
			break;
		if (rr < 0) {
			code = 1;
			break;
		}
		if (type == MSG_QUIT) {
			free(payload);
			break;
		}
		if (type != MSG_RUN) { /* a late STOP, or noise */
			free(payload);
			continue;
		}
		result *res = xcalloc(1, sizeof *res);
		if (len < sizeof(plan)) {
			res->status = RES_ERROR;
			snprintf(res->error, sizeof res->error, "bad request to the GPU worker (%" PRIu64 " bytes)", len);
		} else {
			plan *p = xmalloc(sizeof *p);
			memcpy(p, payload, sizeof *p);
			if (p->cubin_len != len - sizeof *p) {
				res->status = RES_ERROR;
				snprintf(res->error, sizeof res->error, "bad request to the GPU worker: "
				         "%" PRIu64 " cubin bytes announced, %" PRIu64 " sent",
				         p->cubin_len, (uint64_t)(len - sizeof *p));
			} else {
				/* Own copy: aligned for the ELF reader, NUL-terminated for PTX. */
				char *image = xmalloc((size_t)p->cubin_len + 1);
				memcpy(image, (char *)payload + sizeof *p, (size_t)p->cubin_len);
				image[p->cubin_len] = 0;
				free(payload);
				payload = NULL;
				sanitize_plan(p);
				serve_run(&ws, p, image, res);
				free(image);
			}
			free(p);
		}
		free(payload);
		int fatal = res->status == RES_FATAL;
		int sent = wire_send(wfd, MSG_RESULT, res, sizeof *res, NULL, 0);
		free(res);
		if (sent != 0) {
			code = 1;
			break;
		}
		if (fatal) {
			code = 2;
			break;
		}
		if (ws.quit)
			break;
	}
	worker_fini(&ws);
	return code;
}

/* ----------------------------------------------------------- client side */

#define KEPT "(settings kept; the next run starts a new one)"

static const char *sig_name(int s)
{
	switch (s) {
	case SIGSEGV: return "SIGSEGV";
	case SIGABRT: return "SIGABRT";
	case SIGBUS: return "SIGBUS";
	case SIGILL: return "SIGILL";
	case SIGFPE: return "SIGFPE";
	case SIGKILL: return "SIGKILL";
	case SIGTERM: return "SIGTERM";
	case SIGINT: return "SIGINT";
	case SIGQUIT: return "SIGQUIT";
	case SIGPIPE: return "SIGPIPE";
	case SIGHUP: return "SIGHUP";
	case SIGTRAP: return "SIGTRAP";
	case SIGSYS: return "SIGSYS";
	case SIGXCPU: return "SIGXCPU";
	default: return NULL;
	}
}

/* "was killed by SIGSEGV (segmentation fault)" or "exited with status 3". */
static void describe_status(int have, int st, char *buf, size_t n)
{
	if (!have) {
		snprintf(buf, n, "ended (exit status unknown)");
	} else if (WIFEXITED(st)) {
		snprintf(buf, n, "exited with status %d", WEXITSTATUS(st));
	} else if (WIFSIGNALED(st)) {
		int s = WTERMSIG(st);
		const char *nm = sig_name(s);
		const char *desc = strsignal(s);
		char d[64] = "";
		if (desc) {
			snprintf(d, sizeof d, "%s", desc);
			if (d[0] >= 'A' && d[0] <= 'Z')
				d[0] = (char)(d[0] - 'A' + 'a');
		}
		if (nm)
			snprintf(buf, n, "was killed by %s%s%s%s", nm, d[0] ? " (" : "", d, d[0] ? ")" : "");
		else
			snprintf(buf, n, "was killed by signal %d%s%s%s", s, d[0] ? " (" : "", d, d[0] ? ")" : "");
	} else {
		snprintf(buf, n, "was stopped");
	}
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Waits up to grace_ms for the worker to exit, then kills it; closes the
 * pipes. Returns 1 with *status when the exit status is known. */
static int reap(wclient *w, int grace_ms, int *status)
{
	int st = 0, got = 0;
	if (w->wfd >= 0) {
		close(w->wfd); /* EOF: an idle worker leaves by itself */
		w->wfd = -1;
	}
	if (w->pid > 0) {
		uint64_t end = now_ns() + (uint64_t)(grace_ms > 0 ? grace_ms : 0) * 1000000ull;
		for (;;) {
			pid_t r = waitpid(w->pid, &st, WNOHANG);
			if (r == w->pid) {
				got = 1;
				break;
			}
			if (r < 0 && errno != EINTR)
				break; /* ECHILD: reaped elsewhere */
			if (now_ns() >= end) {
				kill(w->pid, SIGKILL);
				for (;;) {
					r = waitpid(w->pid, &st, 0);
					if (r == w->pid) {
						got = 1;
						break;
					}
					if (r < 0 && errno != EINTR)
						break;
				}
				break;
			}
			sleep_ms(5);
		}
	}
	if (w->rfd >= 0)
		close(w->rfd);
	w->rfd = -1;
	w->pid = 0;
	if (status)
		*status = st;
	return got;
}

/* Closes the descriptors lo..hi (inclusive) in a freshly forked child. */
static void close_span(int lo, int hi)
{
	if (lo < 3)
		lo = 3; /* never stdin, stdout, stderr */
	if (lo > hi)
		return;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)lo, (unsigned)hi, 0u) == 0)
		return;
#endif
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (long fd = lo; fd <= hi && fd < max; fd++)
		close((int)fd);
}

/* In the child: keeps 0-2 and the worker's two ends, closes the rest (the
 * front end's own files need not stay open in the worker). */
static void close_other_fds(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;
	close_span(3, lo - 1);
	if (hi != lo)
		close_span(lo + 1, hi - 1);
	close_span(hi + 1, INT32_MAX);
}

/* Starts `[PREFIX...] EXE --worker RFD WFD DEVICE`: prefix NULL runs the
 * worker itself, else prefix[0] (a path) wraps it, e.g. a sanitizer. */
static int spawn(wclient *w, const char *const *prefix, char **err)
{
	if (w->pid > 0)
		return 0;
	/* One socket pair a direction, used like pipes: sockets take
	 * MSG_NOSIGNAL, so a dead worker costs EPIPE, not the front end's
	 * SIGPIPE. Close-on-exec: only the worker's own ends survive exec. */
	int to[2] = { -1, -1 }, from[2] = { -1, -1 };
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, to) != 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, from) != 0) {
		int e = errno;
		for (int i = 0; i < 2; i++) {
			if (to[i] >= 0)
				close(to[i]);
			if (from[i] >= 0)
				close(from[i]);
		}
		return fail(err, "cannot start the GPU worker: socketpair: %s", strerror(e));
	}
	const char *exe = w->exe && strchr(w->exe, '/') ? w->exe : "/proc/self/exe";
	char self[4096];
	if (prefix && !(w->exe && strchr(w->exe, '/'))) {
		/* a wrapper would read /proc/self/exe as itself */
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n > 0) {
			self[n] = 0;
			exe = self;
		}
	}
	char a_r[24], a_w[24], a_d[24];
	snprintf(a_r, sizeof a_r, "%d", to[0]);
	snprintf(a_w, sizeof a_w, "%d", from[1]);
	snprintf(a_d, sizeof a_d, "%d", w->device);
	int np = 0;
	while (prefix && prefix[np])
		np++;
	char **argv = xcalloc((size_t)np + 6, sizeof *argv);
	for (int i = 0; i < np; i++)
		argv[i] = (char *)prefix[i];
	argv[np] = (char *)exe;
	argv[np + 1] = (char *)"--worker";
	argv[np + 2] = a_r;
	argv[np + 3] = a_w;
	argv[np + 4] = a_d;
	const char *run = argv[0];
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		free(argv);
		close(to[0]);
		close(to[1]);
		close(from[0]);
		close(from[1]);
		return fail(err, "cannot start the GPU worker: fork: %s", strerror(e));
	}
	if (pid == 0) {
#ifdef __linux__
		prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
		close_other_fds(to[0], from[1]);
		fcntl(to[0], F_SETFD, 0);
		fcntl(from[1], F_SETFD, 0);
		execv(run, argv);
		char msg[600];
		snprintf(msg, sizeof msg, "cannot run the GPU worker '%s': %s", run, strerror(errno));
		wire_send(from[1], MSG_ERROR, msg, strlen(msg), NULL, 0);
		_exit(127);
	}
	free(argv);
	close(to[0]);
	close(from[1]);
	w->pid = pid;
	w->rfd = from[0];
	w->wfd = to[1];
	w->hello_pending = 1;
	return 0;
}

int wc_spawn(wclient *w, char **err)
{
	return spawn(w, NULL, err);
}

/* Waits up to hello_s seconds for the HELLO of a spawned worker. */
static int await_hello(wclient *w, int hello_s, char **err)
{
	w->hello_pending = 0;
	uint64_t deadline = now_ns() + (uint64_t)hello_s * 1000000000ull;
	for (;;) {
		uint64_t now = now_ns();
		if (now >= deadline) {
			reap(w, 0, NULL);
			return fail(err, "the GPU worker did not start within %d s", hello_s);
		}
		int left = (int)((deadline - now) / 1000000ull) + 1;
		struct pollfd pf = { w->rfd, POLLIN, 0 };
		int n = poll(&pf, 1, left);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			reap(w, 0, NULL);
			return fail(err, "cannot start the GPU worker: poll: %s", strerror(e));
		}
		if (n == 0)
			continue;
		uint32_t type = 0;
		void *payload = NULL;
		uint64_t len = 0;
		int rr = wire_recv(w->rfd, &type, &payload, &len);
		if (rr != 0) {
			int st = 0, have = reap(w, 2000, &st);
			char how[128];
			describe_status(have, st, how, sizeof how);
			return fail(err, "the GPU worker %s before it started", how);
		}
		if (type == MSG_HELLO && len == sizeof(devinfo)) {
			memcpy(&w->dev, payload, sizeof(devinfo));
			w->dev.name[sizeof w->dev.name - 1] = 0;
			w->dev.pci_bus_id[sizeof w->dev.pci_bus_id - 1] = 0;
			free(payload);
			return 0;
		}
		if (type == MSG_ERROR) {
			char *m = xstrdup(payload ? (const char *)payload : "the GPU worker failed to start");
			free(payload);
			reap(w, 2000, NULL);
			fail(err, "%s", m);
			free(m);
			return -1;
		}
		free(payload);
		reap(w, 0, NULL);
		return fail(err, "the GPU worker sent an unexpected message (type %u) at start", type);
	}
}

int wc_start(wclient *w, char **err)
{
	if (w->pid > 0 && !w->hello_pending)
		return 0;
	if (w->pid <= 0 && wc_spawn(w, err) != 0)
		return -1;
	return await_hello(w, 30, err);
}

int wc_start_under(wclient *w, const char *const *prefix, int hello_s, char **err)
{
	if (w->pid > 0 && !w->hello_pending)
		return 0;
	if (w->pid <= 0 && spawn(w, prefix, err) != 0)
		return -1;
	return await_hello(w, hello_s > 0 ? hello_s : 30, err);
}

void wc_stop_wait(wclient *w, int grace_ms)
{
	if (w->pid <= 0)
		return;
	if (w->wfd >= 0)
		wire_send(w->wfd, MSG_QUIT, NULL, 0, NULL, 0);
	reap(w, grace_ms, NULL);
}

void wc_stop(wclient *w)
{
	wc_stop_wait(w, 2000);
}

/* A worker that died during a run: reap it and say how it ended. */
static int worker_died(wclient *w, const char *name, char **err)
{
	int st = 0, have = reap(w, 2000, &st);
	char how[128];
	describe_status(have, st, how, sizeof how);
	return fail(err, "the GPU worker %s while running '%s' " KEPT, how, name);
}

int wc_run(wclient *w, const plan *p, const void *cubin, size_t cubin_len,
           double timeout_s, volatile int *interrupt, wc_progress cb, void *ctx,
           result *res, char **err)
{
	memset(res, 0, sizeof *res);
	if (w->pid > 0) {
		/* a worker that died while idle (OOM killer, kill -9) is replaced
		 * quietly */
		int st;
		if (waitpid(w->pid, &st, WNOHANG) == w->pid) {
			w->pid = 0;
			reap(w, 0, NULL); /* closes the sockets */
		}
	}
	if (w->pid <= 0 && wc_start(w, err) != 0)
		return -1;
	if ((uint64_t)cubin_len > WIRE_MAX_PAYLOAD - sizeof(plan))
		return fail(err, "the compiled module of '%s' is too large (%zu bytes)", p->launch.name, cubin_len);
	char name[PLAN_NAME];
	snprintf(name, sizeof name, "%s", p->launch.name);
	plan *pp = xmalloc(sizeof *pp);
	memcpy(pp, p, sizeof *pp);
	pp->cubin_len = cubin_len;
	int sent = wire_send(w->wfd, MSG_RUN, pp, sizeof *pp, cubin, cubin_len);
	free(pp);
	if (sent != 0)
		return worker_died(w, name, err);

	const uint64_t host_limit_ns = 600ull * 1000000000ull;
	uint64_t gpu_limit_ns = timeout_s > 0 ? (uint64_t)(timeout_s * 1e9) : 0;
	uint64_t last = now_ns(), stop_at = 0;
	int host_phase = 0, stopped = 0;
	for (;;) {
		uint64_t now = now_ns();
		if (interrupt && *interrupt && !stopped) {
			stopped = 1;
			stop_at = now;
			wire_send(w->wfd, MSG_STOP, NULL, 0, NULL, 0);
			if (w->pid > 0)
				kill(w->pid, SIGINT);
		}
		/* The deadline: no progress for the limit of the current phase;
		 * host work cannot be interrupted, so after Ctrl-C it gets 2 s. */
		uint64_t limit = gpu_limit_ns;
		if (limit && host_phase && limit < host_limit_ns)
			limit = host_limit_ns;
		uint64_t deadline = limit ? last + limit : UINT64_MAX;
		if (stopped && host_phase && stop_at + 2000000000ull < deadline)
			deadline = stop_at + 2000000000ull;
		if (now >= deadline) {
			reap(w, 0, NULL);
			if (stopped && host_phase)
				return fail(err, "run of '%s' interrupted: worker stopped " KEPT, name);
			if (host_phase)
				return fail(err, "the GPU worker made no progress for %g s while preparing '%s': "
				            "worker stopped " KEPT, (double)limit / 1e9, name);
			return fail(err, "kernel '%s' made no progress for %g s: worker stopped " KEPT,
			            name, timeout_s);
		}
		uint64_t wait_ns = deadline - now;
		int wait_ms = wait_ns > 100000000ull ? 100 : (int)(wait_ns / 1000000ull) + 1;
		struct pollfd pf = { w->rfd, POLLIN, 0 };
		int n = poll(&pf, 1, wait_ms);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			reap(w, 0, NULL);
			return fail(err, "waiting for the GPU worker: poll: %s", strerror(e));
		}
		if (n == 0)
			continue;
		uint32_t type = 0;
		void *payload = NULL;
		uint64_t len = 0;
		int rr = wire_recv(w->rfd, &type, &payload, &len);
		if (rr == 1)
			return worker_died(w, name, err);
		if (rr < 0) {
			int e = errno;
			reap(w, 0, NULL);
			return fail(err, "reading from the GPU worker: %s: worker stopped " KEPT, strerror(e));
		}
		if (type == MSG_PROGRESS && len == sizeof(wire_progress)) {
			wire_progress pg;
			memcpy(&pg, payload, sizeof pg);
			free(payload);
			last = now_ns();
			host_phase = pg.phase == WIRE_PHASE_HOST;
			if (cb && pg.nsamples > 0)
				cb(ctx, pg.nsamples, pg.last_ms);
			continue;
		}
		if (type == MSG_RESULT && len == sizeof(result)) {
			memcpy(res, payload, sizeof *res);
			free(payload);
			res->error[sizeof res->error - 1] = 0;
			if (res->nsamples < 0)
				res->nsamples = 0;
			if (res->nsamples > RES_MAX_SAMPLES)
				res->nsamples = RES_MAX_SAMPLES;
			if (res->nchecks < 0)
				res->nchecks = 0;
			if (res->nchecks > PLAN_MAX_CHECKS)
				res->nchecks = PLAN_MAX_CHECKS;
			if (res->prof.n < 0 || res->prof.n > PROF_MAX_METRICS)
				res->prof.n = 0;
			res->prof.error[sizeof res->prof.error - 1] = 0;
			res->prof.chip[sizeof res->prof.chip - 1] = 0;
			res->cond.why[sizeof res->cond.why - 1] = 0;
			if (res->status == RES_FATAL) /* it exits by itself; the caller says so */
				reap(w, w->fatal_grace_ms > 0 ? w->fatal_grace_ms : 5000, NULL);
			return 0;
		}
		if (type == MSG_ERROR) {
			char *m = xstrdup(payload ? (const char *)payload : "unknown error");
			free(payload);
			reap(w, 0, NULL);
			fail(err, "the GPU worker failed: %s " KEPT, m);
			free(m);
			return -1;
		}
		free(payload); /* unknown: ignore */
	}
}
