/* clockprobe.c: where a short kernel's time goes, by several clocks at once,
 * for tests/bench/fidelity_probe.sh. Each launch of a probe kernel is timed
 * by CUPTI's kernel records (CUPTI_ACTIVITY_KIND_KERNEL, as cuplay times,
 * or CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), by a CUDA event pair, and from
 * inside: every block reads the GPU's %globaltimer as it starts and as it
 * ends, and the earliest start and latest end span the kernel's work as the
 * SMs saw it. Block 0 also counts SM cycles (clock64) over its own span, so
 * the SM clock during the kernel is known.
 *
 *   clockprobe [--device N] [--reps R] [--no-cupti] [--log FILE] [--busy S]
 *              [--only MODE-PREFIX] [--prof] [--link]
 *
 * Prints, per mode (a kernel, with or without an L2 flush before it, a
 * wait between the flush and the launch, the record kind), the medians in
 * ns: "mode kernel cupti events span cupti-span sm_mhz". --no-cupti (under
 * ncu, which owns CUPTI) leaves the CUPTI column out; --log writes each
 * timed launch's "mode kernel span_ns" so a script can pair them with
 * ncu's per-launch durations. --busy S keeps the device busy for S seconds
 * (the sibling GPU's load for another probe). --prof reads the profiler's
 * duration instead, three ways (run_prof); --link the latency of the path
 * to host memory (run_link). Exit 0, or 1 with a line on
 * stderr naming the failed call. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cudrv.h"
#include "cupti_abi.h"
#include "cuptilib.h"
#include "nvrtc.h"
#include "prof.h"
#include "util.h"

#define PROBE_MAX 512

static const char probe_src[] =
	"#define GT(t) asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t))\n"
	"__device__ void stamp(unsigned long long *st, unsigned long long t0, long long c0) {\n"
	"  __syncthreads();\n"
	"  if (threadIdx.x == 0) { unsigned long long t1; GT(t1); long long c1 = clock64();\n"
	"    atomicMin(&st[0], t0); atomicMax(&st[1], t1);\n"
	"    if (blockIdx.x == 0) { st[2] = (unsigned long long)(c1 - c0); st[3] = t1 - t0; } }\n"
	"}\n"
	"extern \"C\" __global__ void __launch_bounds__(256) pr_vadd4(const float4 *__restrict__ a, const float4 *__restrict__ b,\n"
	"    float4 *__restrict__ c, long n4, unsigned long long *st) {\n"
	"  unsigned long long t0; GT(t0); long long c0 = clock64();\n"
	"  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (long)gridDim.x * blockDim.x) {\n"
	"    float4 x = a[i], y = b[i]; c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w); }\n"
	"  if (st) stamp(st, t0, c0);\n"
	"}\n"
	"extern \"C\" __global__ void pr_spin(unsigned long long ns, unsigned long long *st) {\n"
	"  unsigned long long t0, t; GT(t0); long long c0 = clock64();\n"
	"  do { GT(t); } while (t - t0 < ns);\n"
	"  stamp(st, t0, c0);\n"
	"}\n"
	"extern \"C\" __global__ void pr_empty(unsigned long long *st) {\n"
	"  unsigned long long t0; GT(t0); long long c0 = clock64();\n"
	"  if (st) stamp(st, t0, c0);\n"
	"}\n"
	"extern \"C\" __global__ void pr_link(volatile unsigned *h, volatile unsigned *d, unsigned long long *out, int n) {\n"
	"  unsigned long long t0, t1; unsigned s = 0;\n"
	"  GT(t0); for (int i = 0; i < n; i++) s = h[i * 1024 + s]; GT(t1); out[0] = t1 - t0;\n"
	"  GT(t0); for (int i = 0; i < n; i++) { h[i * 1024 + 1 + s] = i; __threadfence_system(); } GT(t1); out[1] = t1 - t0;\n"
	"  GT(t0); for (int i = 0; i < n; i++) { d[i * 1024 + 1 + s] = i; __threadfence_system(); } GT(t1); out[2] = t1 - t0;\n"
	"  GT(t0); for (int i = 0; i < n; i++) { d[i * 1024 + 2 + s] = i; __threadfence(); } GT(t1); out[3] = t1 - t0;\n"
	"  GT(t0); for (int i = 0; i < n; i++) s = d[i * 1024 + 3 + s]; GT(t1); out[4] = t1 - t0;\n"
	"}\n"
	"extern \"C\" __global__ void pr_flush(const uint4 *buf, long nvec, unsigned *sink) {\n"
	"  unsigned x = 0;\n"
	"  for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += (long)gridDim.x * blockDim.x) {\n"
	"    uint4 v = buf[i]; x ^= v.x ^ v.y ^ v.z ^ v.w; }\n"
	"  if (x == 0x7fc0ffeeu) *sink = x;\n"
	"}\n";

static struct {
	CUfunction vadd, spin, empty, flush, link;
	CUdeviceptr a, b, c, st, fbuf, sink;
	size_t fbytes;
	int sms;
	CUevent e0, e1;
	/* CUPTI */
	int cupti, kind;
	CUptiResult (*Enable)(int);
	CUptiResult (*Disable)(int);
	CUptiResult (*Register)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
	CUptiResult (*FlushAll)(uint32_t);
	CUptiResult (*Next)(uint8_t *, size_t, void **);
	double rec_ns[PROBE_MAX];
	int nrec;
	FILE *log;
	CUcontext ctx;
	CUdevice dev;
} P;

static void ck(CUresult e, const char *call)
{
	if (e != CUDA_SUCCESS) {
		fprintf(stderr, "clockprobe: %s failed: %s\n", call, cu_errstr(e));
		exit(1);
	}
}

static void ckp(CUptiResult r, const char *call)
{
	if (r != CUPTI_SUCCESS) {
		char t[200];
		cuptilib_result_text(r, t, sizeof t);
		fprintf(stderr, "clockprobe: %s failed: %s\n", call, t);
		exit(1);
	}
}

static void on_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = aligned_alloc(8, 1 << 20);
	*size = 1 << 20;
	*max_records = 0;
}

static void on_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
	(void)ctx, (void)stream, (void)size;
	void *rec = NULL;
	while (P.Next(buffer, valid, &rec) == CUPTI_SUCCESS && rec) {
		const cupti_kernel_record *k = rec;
		if ((k->kind == CUPTI_ACTIVITY_KIND_KERNEL || k->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) &&
		    k->name && strncmp(k->name, "pr_", 3) == 0 && strcmp(k->name, "pr_flush") != 0 && P.nrec < PROBE_MAX)
			P.rec_ns[P.nrec++] = (double)(k->end - k->start);
	}
	free(buffer);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	if (n <= 0)
		return -1;
	qsort(v, (size_t)n, sizeof *v, cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

typedef struct mode {
	const char *name;
	int kernel;   /* 0 vadd4 N=2M, 1 vadd4 N=256K, 2 empty, 3 spin 4 us, 4 spin 20 us;
	                 5 and 6: 0 and 1 without the stamps (no span) */
	int flush;    /* an L2 flush before each launch */
	int gap_us;   /* >0: synchronize after the flush and sleep this long before the launch */
	int kind;     /* CUPTI_ACTIVITY_KIND_KERNEL or _CONCURRENT_KERNEL */
	int b2b;      /* launches queued back to back, one synchronize at the end */
	int cflush;   /* CUPTI's buffers flushed after each launch, as cuplay's takes do */
} mode;

static const char *kname[] = { "vadd4_2M", "vadd4_256K", "empty", "spin_4us", "spin_20us", "vadd4_2M_ns", "vadd4_256K_ns" };

static void launch(int kernel)
{
	CUdeviceptr st = kernel >= 5 ? 0 : P.st;
	if (kernel >= 5)
		kernel -= 5;
	if (kernel <= 1) {
		long n4 = (kernel == 0 ? 2097152 : 262144) / 4;
		unsigned grid = (unsigned)(n4 / 256 < P.sms * 8 ? n4 / 256 : P.sms * 8);
		void *args[] = { &P.a, &P.b, &P.c, &n4, &st };
		ck(cu.LaunchKernel(P.vadd, grid, 1, 1, 256, 1, 1, 0, NULL, args, NULL), "cuLaunchKernel (vadd4)");
	} else if (kernel == 2) {
		void *args[] = { &st };
		ck(cu.LaunchKernel(P.empty, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL), "cuLaunchKernel (empty)");
	} else {
		unsigned long long ns = kernel == 3 ? 4000 : 20000;
		void *args[] = { &ns, &st };
		ck(cu.LaunchKernel(P.spin, (unsigned)P.sms, 1, 1, 128, 1, 1, 0, NULL, args, NULL), "cuLaunchKernel (spin)");
	}
}

static void flush_l2(void)
{
	long nvec = (long)(P.fbytes / 16);
	void *args[] = { &P.fbuf, &nvec, &P.sink };
	ck(cu.LaunchKernel(P.flush, (unsigned)P.sms * 8, 1, 1, 256, 1, 1, 0, NULL, args, NULL), "cuLaunchKernel (flush)");
}

static void reset_stamps(void)
{
	ck(cu.MemsetD32Async(P.st, 0xffffffffu, 2, NULL), "cuMemsetD32Async");
	ck(cu.MemsetD32Async(P.st + 8, 0, 6, NULL), "cuMemsetD32Async");
}

static void run_mode(const mode *m, int reps)
{
	static double cupti[PROBE_MAX], ev[PROBE_MAX], span[PROBE_MAX], diff[PROBE_MAX], mhz[PROBE_MAX];
	int warm = 5, n = 0;
	if (P.cupti) {
		ckp(P.Enable(m->kind), "cuptiActivityEnable");
		P.nrec = 0;
	}
	for (int i = 0; i < warm + reps; i++) {
		unsigned long long st[4];
		float ms = 0;
		reset_stamps();
		if (m->flush)
			flush_l2();
		if (m->gap_us > 0) {
			ck(cu.CtxSynchronize(), "cuCtxSynchronize");
			usleep((useconds_t)m->gap_us);
		}
		ck(cu.EventRecord(P.e0, NULL), "cuEventRecord");
		launch(m->kernel);
		ck(cu.EventRecord(P.e1, NULL), "cuEventRecord");
		ck(cu.CtxSynchronize(), "cuCtxSynchronize");
		ck(cu.EventElapsedTime(&ms, P.e0, P.e1), "cuEventElapsedTime");
		ck(cu.MemcpyDtoH(st, P.st, sizeof st), "cuMemcpyDtoH");
		if (P.cupti && m->cflush)
			ckp(P.FlushAll(0), "cuptiActivityFlushAll");
		if (P.log) /* every launch, in order, as ncu lists them */
			fprintf(P.log, "%s %s %.0f %d\n", m->name, kname[m->kernel], st[0] > st[1] ? -1.0 : (double)(st[1] - st[0]), i < warm);
		if (i < warm)
			continue;
		ev[n] = ms * 1e6;
		span[n] = st[0] > st[1] ? -1 : (double)(st[1] - st[0]); /* -1: no stamps */
		mhz[n] = st[3] ? (double)st[2] * 1e3 / (double)st[3] : 0;
		n++;
	}
	double c = -1, d = -1;
	if (P.cupti) {
		ckp(P.FlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
		ckp(P.Disable(m->kind), "cuptiActivityDisable");
		ckp(P.FlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
		if (P.nrec == warm + n) {
			for (int i = 0; i < n; i++) {
				cupti[i] = P.rec_ns[warm + i];
				diff[i] = span[i] < 0 ? -1 : cupti[i] - span[i];
			}
			c = median(cupti, n);
			d = median(diff, n);
		} else
			fprintf(stderr, "clockprobe: %s: %d CUPTI records for %d launches\n", m->name, P.nrec, warm + n);
	}
	printf("%-22s %-10s %9.0f %9.0f %9.0f %9.0f %7.0f\n", m->name, kname[m->kernel], c, median(ev, n),
	       median(span, n), d, median(mhz, n));
	fflush(stdout);
}

/* The back-to-back variant: launches queued behind each other, one
 * synchronize; CUPTI's durations only (the stamps are not reset between). */
static void run_b2b(const mode *m, int reps)
{
	static double cupti[PROBE_MAX];
	if (!P.cupti)
		return;
	ckp(P.Enable(m->kind), "cuptiActivityEnable");
	P.nrec = 0;
	for (int i = 0; i < reps + 5; i++)
		launch(m->kernel);
	ck(cu.CtxSynchronize(), "cuCtxSynchronize");
	ckp(P.FlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
	ckp(P.Disable(m->kind), "cuptiActivityDisable");
	ckp(P.FlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
	int n = P.nrec > 5 ? P.nrec - 5 : 0;
	memcpy(cupti, P.rec_ns + 5, (size_t)n * sizeof *cupti);
	printf("%-22s %-10s %9.0f %9s %9s %9s %7s\n", m->name, kname[m->kernel], median(cupti, n), "-", "-", "-", "-");
}

/* --prof: the profiler's own duration (gpu__time_duration.sum, what ncu
 * reports), read in this process three ways, each sample an L2 flush then
 * the kernel: all samples in one collection (every kernel a range, the
 * flushes the even ones); a collection a sample (its setup, about 250 ms
 * with the GPU idle, before each, as ncu and `metrics` do), also with a 1
 * ms spin before the flush, so the GPU is warm; one session with a pass a
 * sample, the flush outside the range (prof_collect_each).
 * Prints each way's median; the activity API stays off. */
static int prof_kernel, prof_reps, prof_warm;

/* a sample's prologue: the L2 flush, waited for */
static int each_prologue(void *arg)
{
	(void)arg;
	flush_l2();
	ck(cu.CtxSynchronize(), "cuCtxSynchronize");
	return 0;
}

/* a sample's launch, waited for */
static int each_launch(void *arg)
{
	(void)arg;
	launch(prof_kernel);
	ck(cu.CtxSynchronize(), "cuCtxSynchronize");
	return 0;
}

/* prof_reps samples in one launch call, each (with prof_warm after a 1 ms
 * spin, a range of its own) a flush then the kernel */
static int prof_launch(void *arg)
{
	for (int i = 0; i < prof_reps; i++) {
		if (prof_warm) {
			unsigned long long ns = 1000000;
			void *args[] = { &ns, &P.st };
			ck(cu.LaunchKernel(P.spin, (unsigned)P.sms, 1, 1, 128, 1, 1, 0, NULL, args, NULL), "cuLaunchKernel (warm)");
		}
		each_prologue(arg);
		each_launch(arg);
	}
	return 0;
}

/* n collections of one sample each (prof_warm: after a 1 ms spin), the
 * kernel's reading in one[i], each collection's ms in cost[i] (cost may be
 * NULL); 0, or -1 with a line printed */
static int per_collection(int kernel, int warm, int n, double *one, double *cost)
{
	static double v[3];
	const char *m[] = { "gpu__time_duration.sum" };
	prof_info info;
	char *err = NULL;
	prof_reps = 1;
	prof_warm = warm;
	for (int i = 0; i < n; i++) {
		uint64_t a = now_ns();
		if (prof_collect_ranges(P.ctx, P.dev, m, 1, warm ? 3 : 2, NULL, prof_launch, NULL, v, &info, &err) != PROF_OK) {
			printf("prof %-10s a collection a sample%s failed: %s\n", kname[kernel], warm ? ", warmed," : "",
			       err ? err : "?");
			free(err);
			prof_warm = 0;
			return -1;
		}
		if (cost)
			cost[i] = ms_since(a);
		one[i] = v[warm ? 2 : 1];
	}
	prof_warm = 0;
	return 0;
}

static void run_prof(int kernel, int reps)
{
	static double v[2 * PROBE_MAX], k[PROBE_MAX], one[PROBE_MAX], cost[PROBE_MAX];
	const char *m[] = { "gpu__time_duration.sum" };
	prof_info info;
	char *err = NULL;
	prof_kernel = kernel;
	prof_reps = reps;
	uint64_t t0 = now_ns();
	prof_status st = prof_collect_ranges(P.ctx, P.dev, m, 1, 2 * reps, NULL, prof_launch, NULL, v, &info, &err);
	double batched_ms = ms_since(t0);
	if (st != PROF_OK) {
		printf("prof %-10s failed: %s\n", kname[kernel], err ? err : "?");
		free(err);
		return;
	}
	for (int i = 0; i < reps; i++)
		k[i] = v[2 * i + 1];
	double fl = v[0];
	double mk = median(k, reps);
	int n1 = reps < 7 ? reps : 7;
	if (per_collection(kernel, 0, n1, one, cost) != 0)
		return;
	printf("prof %-10s batched: kernel median %.0f ns (flush %.0f ns), %d samples in %.1f ms; "
	       "a collection a sample: median %.0f ns, %.1f ms each (first %.1f)\n",
	       kname[kernel], mk, fl, reps, batched_ms, median(one, n1), median(cost + 1, n1 - 1), cost[0]);
	/* the same, each collection's sample after a 1 ms spin: the GPU warm
	 * whatever the setup's idle time was */
	if (per_collection(kernel, 1, n1, one, NULL) != 0)
		return;
	printf("prof %-10s a collection a sample, warmed by a 1 ms spin: median %.0f ns\n", kname[kernel],
	       median(one, n1));
	/* one session, a pass a sample, the flush outside the range */
	t0 = now_ns();
	st = prof_collect_each(P.ctx, P.dev, m, 1, reps, each_prologue, each_launch, NULL, v, &info, &err);
	double each_ms = ms_since(t0);
	if (st != PROF_OK) {
		printf("prof_each %-10s failed: %s\n", kname[kernel], err ? err : "?");
		free(err);
	} else
		printf("prof %-10s each: kernel median %.0f ns (first %.0f, last %.0f), %d samples in %.1f ms "
		       "(%.1f ms in the samples), ranges in the image at the end %d\n",
		       kname[kernel], median(memcpy(k, v, (size_t)reps * sizeof *v), reps), v[0], v[reps - 1], reps,
		       each_ms, info.ms, info.ranges);
	fflush(stdout);
}

static void setup(int dev_ord, int want_cupti)
{
	char *err = NULL;
	if (cu_load(&err) != 0 || nvrtc_load(&err) != 0) {
		fprintf(stderr, "clockprobe: %s\n", err);
		exit(1);
	}
	ck(cu.Init(0), "cuInit");
	CUdevice dev;
	CUcontext ctx;
	ck(cu.DeviceGet(&dev, dev_ord), "cuDeviceGet");
	ck(cu.DevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
	ck(cu.CtxSetCurrent(ctx), "cuCtxSetCurrent");
	P.ctx = ctx;
	P.dev = dev;
	int maj = 0, min = 0, l2 = 0;
	ck(cu.DeviceGetAttribute(&maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "cuDeviceGetAttribute");
	ck(cu.DeviceGetAttribute(&min, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "cuDeviceGetAttribute");
	ck(cu.DeviceGetAttribute(&P.sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev), "cuDeviceGetAttribute");
	ck(cu.DeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev), "cuDeviceGetAttribute");
	char arch[40];
	snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", maj, min);
	const char *opts[] = { arch, "-default-device" };
	const char *names[] = { "pr_vadd4", "pr_spin", "pr_empty", "pr_flush", "pr_link" };
	nvrtc_out out;
	memset(&out, 0, sizeof out);
	if (nvrtc_compile("clockprobe.cu", probe_src, opts, 2, names, 5, &out, &err) != 0) {
		fprintf(stderr, "clockprobe: compile failed: %s\n", err);
		exit(1);
	}
	CUmodule mod;
	ck(cu.ModuleLoadData(&mod, out.cubin), "cuModuleLoadData");
	ck(cu.ModuleGetFunction(&P.vadd, mod, "pr_vadd4"), "cuModuleGetFunction");
	ck(cu.ModuleGetFunction(&P.spin, mod, "pr_spin"), "cuModuleGetFunction");
	ck(cu.ModuleGetFunction(&P.empty, mod, "pr_empty"), "cuModuleGetFunction");
	ck(cu.ModuleGetFunction(&P.flush, mod, "pr_flush"), "cuModuleGetFunction");
	ck(cu.ModuleGetFunction(&P.link, mod, "pr_link"), "cuModuleGetFunction");
	size_t vb = 2097152 * 4;
	ck(cu.MemAlloc(&P.a, vb), "cuMemAlloc");
	ck(cu.MemAlloc(&P.b, vb), "cuMemAlloc");
	ck(cu.MemAlloc(&P.c, vb), "cuMemAlloc");
	ck(cu.MemsetD32(P.a, 0x3f800000u, vb / 4), "cuMemsetD32");
	ck(cu.MemsetD32(P.b, 0x40000000u, vb / 4), "cuMemsetD32");
	ck(cu.MemAlloc(&P.st, 64), "cuMemAlloc");
	ck(cu.MemAlloc(&P.sink, 64), "cuMemAlloc");
	P.fbytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
	ck(cu.MemAlloc(&P.fbuf, P.fbytes), "cuMemAlloc");
	ck(cu.MemsetD8(P.fbuf, 0, P.fbytes), "cuMemsetD8");
	ck(cu.EventCreate(&P.e0, CU_EVENT_DEFAULT), "cuEventCreate");
	ck(cu.EventCreate(&P.e1, CU_EVENT_DEFAULT), "cuEventCreate");
	if (!want_cupti)
		return;
	if (!cuptilib_open(&err)) {
		fprintf(stderr, "clockprobe: %s\n", err);
		exit(1);
	}
	if (cuptilib_sym("cuptiActivityEnable", &P.Enable) || cuptilib_sym("cuptiActivityDisable", &P.Disable) ||
	    cuptilib_sym("cuptiActivityRegisterCallbacks", &P.Register) ||
	    cuptilib_sym("cuptiActivityFlushAll", &P.FlushAll) || cuptilib_sym("cuptiActivityGetNextRecord", &P.Next)) {
		fprintf(stderr, "clockprobe: CUPTI lacks an activity entry point\n");
		exit(1);
	}
	ckp(P.Register(on_request, on_complete), "cuptiActivityRegisterCallbacks");
	P.cupti = 1;
}

/* --link: the latency of the GPU's path to host memory, from one thread:
 * a read of mapped pinned host memory (each from a page of its own, each
 * waiting for the one before), a host write followed by a system-scope
 * fence, and the same fence and read on device memory for comparison. A
 * kernel's end is reported to the host across this path, so a host where
 * it is slower shows it in the kernel record's window (docs/timing.md). */
static void run_link(int reps)
{
	enum { N = 32, SLOT = N * 1024 + 8 };
	static double v[5][PROBE_MAX];
	void *h = NULL;
	CUdeviceptr d, o;
	size_t bytes = (size_t)reps * SLOT * 4;
	ck(cu.MemHostAlloc(&h, bytes, 0x02 /* CU_MEMHOSTALLOC_DEVICEMAP */), "cuMemHostAlloc");
	memset(h, 0, bytes);
	ck(cu.MemAlloc(&d, bytes), "cuMemAlloc");
	ck(cu.MemsetD8(d, 0, bytes), "cuMemsetD8");
	ck(cu.MemAlloc(&o, 64), "cuMemAlloc");
	for (int r = 0; r < reps; r++) {
		unsigned long long t[5];
		CUdeviceptr hp = (CUdeviceptr)(uintptr_t)h + (size_t)r * SLOT * 4, dp = d + (size_t)r * SLOT * 4;
		int n = N;
		void *args[] = { &hp, &dp, &o, &n };
		ck(cu.LaunchKernel(P.link, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL), "cuLaunchKernel (link)");
		ck(cu.CtxSynchronize(), "cuCtxSynchronize");
		ck(cu.MemcpyDtoH(t, o, sizeof t), "cuMemcpyDtoH");
		for (int k = 0; k < 5; k++)
			v[k][r] = (double)t[k] / N;
	}
	static const char *what[] = { "read of host memory", "host write + system fence", "device write + system fence",
		                      "device write + GPU fence", "read of device memory" };
	for (int k = 0; k < 5; k++)
		printf("link %-28s %6.0f ns (median of %d launches of %d each)\n", what[k], median(v[k], reps), reps, N);
	ck(cu.MemFreeHost(h), "cuMemFreeHost");
	ck(cu.MemFree(d), "cuMemFree");
	ck(cu.MemFree(o), "cuMemFree");
}

static void busy(double seconds)
{
	uint64_t t0 = now_ns();
	do {
		for (int i = 0; i < 20; i++)
			launch(4);
		ck(cu.CtxSynchronize(), "cuCtxSynchronize");
	} while (ms_since(t0) < seconds * 1e3);
}

int main(int argc, char **argv)
{
	int dev = 0, reps = 41, cupti = 1;
	double busy_s = 0;
	const char *only = NULL;
	int prof = 0, link = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--device") && i + 1 < argc)
			dev = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--no-cupti"))
			cupti = 0;
		else if (!strcmp(argv[i], "--log") && i + 1 < argc)
			P.log = fopen(argv[++i], "w");
		else if (!strcmp(argv[i], "--busy") && i + 1 < argc)
			busy_s = atof(argv[++i]);
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--prof"))
			prof = 1;
		else if (!strcmp(argv[i], "--link"))
			link = 1;
		else {
			fprintf(stderr, "usage: clockprobe [--device N] [--reps R] [--no-cupti] [--log FILE] [--busy S] [--only MODE-PREFIX] [--prof] [--link]\n");
			return 2;
		}
	}
	if (reps < 1 || reps > PROBE_MAX - 10)
		reps = 41;
	setup(dev, cupti && busy_s <= 0);
	if (busy_s > 0) {
		busy(busy_s);
		return 0;
	}
	if (link) {
		run_link(reps);
		return 0;
	}
	if (prof) { /* the profiler's duration only (CUPTI's activity API stays off) */
		static const int pk[] = { 5, 6, 2, 3, 4 };
		for (size_t i = 0; i < sizeof pk / sizeof pk[0]; i++)
			run_prof(pk[i], reps);
		return 0;
	}
	enum { K = CUPTI_ACTIVITY_KIND_KERNEL, CK = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL };
	static const mode modes[] = {
		{ "flush", 0, 1, 0, K, 0, 0 },        { "noflush", 0, 0, 0, K, 0, 0 },
		{ "flush+sync+50us", 0, 1, 50, K, 0, 0 }, { "flush/concurrent", 0, 1, 0, CK, 0, 0 },
		{ "noflush/concurrent", 0, 0, 0, CK, 0, 0 }, { "b2b", 0, 0, 0, K, 1, 0 },
		{ "flush+cuptiflush", 0, 1, 0, K, 0, 1 },
		{ "flush", 1, 1, 0, K, 0, 0 },        { "noflush", 1, 0, 0, K, 0, 0 },
		{ "flush/concurrent", 1, 1, 0, CK, 0, 0 },
		{ "flush", 2, 1, 0, K, 0, 0 },        { "noflush", 2, 0, 0, K, 0, 0 },
		{ "flush/concurrent", 2, 1, 0, CK, 0, 0 }, { "b2b", 2, 0, 0, K, 1, 0 },
		{ "flush", 3, 1, 0, K, 0, 0 },        { "noflush", 3, 0, 0, K, 0, 0 },
		{ "flush/concurrent", 3, 1, 0, CK, 0, 0 }, { "flush+sync+50us", 3, 1, 50, K, 0, 0 },
		{ "flush", 4, 1, 0, K, 0, 0 },        { "noflush", 4, 0, 0, K, 0, 0 },
		{ "flush", 5, 1, 0, K, 0, 0 },        { "flush", 6, 1, 0, K, 0, 0 },
	};
	printf("%-22s %-10s %9s %9s %9s %9s %7s\n", "mode", "kernel", "cupti_ns", "events_ns", "span_ns", "cupti-span", "sm_mhz");
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		if (only && strncmp(modes[i].name, only, strlen(only)) != 0)
			continue;
		if (!cupti && (modes[i].kind == CK || modes[i].b2b || modes[i].gap_us))
			continue;
		if (modes[i].b2b)
			run_b2b(&modes[i], reps);
		else
			run_mode(&modes[i], reps);
	}
	if (P.log)
		fclose(P.log);
	return 0;
}
