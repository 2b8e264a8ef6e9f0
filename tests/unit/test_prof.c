/* test_prof.c: CUPTI Range Profiler: our declarations against CUPTI 13's
 * layouts, how results are classified, loading libcupti, and, where a GPU
 * and permission exist, real counters of a copy kernel and of a kernel
 * with shared memory bank conflicts. Without them the test says why. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "cudrv.h"
#include "cupti_abi.h"
#include "metrics.h"
#include "nvrtc.h"
#include "prof.h"

/* The *_STRUCT_SIZE values of CUPTI 13.0's own headers (x86_64), measured
 * by compiling them; every field offset matched too. */
TEST(abi)
{
	CHECK(CUpti_Profiler_Initialize_Params_STRUCT_SIZE == 16);
	CHECK(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE == 16);
	CHECK(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE == 40);
	CHECK(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE == 52);
	CHECK(CUpti_Device_GetChipName_Params_STRUCT_SIZE == 32);
	CHECK(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE == 48);
	CHECK(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE == 24);
	CHECK(CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE == 60);
	CHECK(CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE == 72);
	CHECK(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE == 40);
	CHECK(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE == 32);
	CHECK(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE == 40);
	CHECK(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE == 40);
	CHECK(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE == 90);
	CHECK(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE == 32);
	CHECK(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE == 24);
	CHECK(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE == 24);
	CHECK(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE == 41);
	CHECK(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE == 32);
	CHECK(CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE == 64);
	CHECK(CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE == 40);
	CHECK(CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE == 40);
	/* a few offsets that matter: enums as ints, the uint16 nesting fields */
	CHECK(offsetof(CUpti_RangeProfiler_SetConfig_Params, range) == 56);
	CHECK(offsetof(CUpti_RangeProfiler_SetConfig_Params, maxRangesPerPass) == 64);
	CHECK(offsetof(CUpti_RangeProfiler_SetConfig_Params, minNestingLevel) == 74);
	CHECK(offsetof(CUpti_RangeProfiler_SetConfig_Params, passIndex) == 80);
	CHECK(offsetof(CUpti_RangeProfiler_GetCounterDataSize_Params, counterDataSize) == 56);
	CHECK(offsetof(CUpti_Profiler_DeviceSupported_Params, api) == 48);
	CHECK(sizeof(prof_reply) < 4096);
	CHECK(PROF_MAX_METRICS == METRICS_MAX_RAW);
}

TEST(classify)
{
	CHECK(prof_is_unavailable(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES));
	CHECK(prof_is_unavailable(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED));
	CHECK(prof_is_unavailable(CUPTI_ERROR_NOT_SUPPORTED));
	CHECK(prof_is_unavailable(CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED));
	CHECK(!prof_is_unavailable(CUPTI_SUCCESS));
	CHECK(!prof_is_unavailable(CUPTI_ERROR_INVALID_PARAMETER));
	CHECK(!prof_is_unavailable(CUPTI_ERROR_UNKNOWN));
	CHECK(strstr(prof_explain(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES), "NVreg_RestrictProfilingToAdminUsers=0"));
	CHECK(strstr(prof_explain(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED), "ncu, nsys or compute-sanitizer"));
	CHECK(prof_explain(CUPTI_ERROR_INVALID_PARAMETER) == NULL);
	int mismatched = 0;
	for (int r = 0; r < 1000; r++)
		mismatched += !!prof_is_unavailable(r) != !!prof_explain(r);
	CHECK(mismatched == 0);
}

TEST(loading)
{
	char *why = NULL;
	int ok = prof_available(&why);
	if (ok) {
		CHECK(why == NULL && prof_library() != NULL);
		printf("prof: CUPTI from %s\n", prof_library());
	} else {
		CHECK(why && (strncmp(why, "CUPTI not found", 15) == 0 || strncmp(why, "CUPTI too old", 13) == 0));
		CHECK(prof_library() == NULL);
		printf("prof: %s\n", why);
		free(why);
		why = NULL;
		/* a second call says the same */
		CHECK(prof_available(&why) == 0 && why);
		free(why);
	}
	/* bad arguments never reach CUPTI */
	double v[1];
	char *err = NULL;
	CHECK(prof_collect(NULL, 0, NULL, 0, NULL, NULL, v, NULL, &err) == PROF_ERROR);
	CHECK(err != NULL);
	free(err);
}

/* ---------------------------------------------------------- on a GPU */

static const char kernels[] =
	"extern \"C\" __global__ void copy(const float *in, float *out, int n)\n"
	"{\n"
	"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"    if (i < n) out[i] = in[i];\n"
	"}\n"
	"extern \"C\" __global__ void conflict(const float *in, float *out, int n)\n"
	"{\n"
	"    __shared__ float s[512];\n"
	"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"    float v = i < n ? in[i] : 0.0f;\n"
	"    s[threadIdx.x * 2] = v;                 /* 2-way store conflict */\n"
	"    __syncthreads();\n"
	"    float w = s[(threadIdx.x * 2) & 511];   /* 2-way load conflict */\n"
	"    if (i < n) out[i] = v + w;\n"
	"}\n";

typedef struct launch_arg {
	CUfunction f;
	CUdeviceptr in, out;
	int n;
	CUresult res;
	int calls, prologues;
} launch_arg;

static int launch_it(void *p)
{
	launch_arg *a = p;
	void *args[] = { &a->in, &a->out, &a->n };
	a->calls++;
	a->res = cu.LaunchKernel(a->f, (unsigned)((a->n + 255) / 256), 1, 1, 256, 1, 1, 0, NULL, args, NULL);
	return a->res != CUDA_SUCCESS;
}

/* before each pass of a user replay: the output poisoned again, the GPU idle */
static int prologue_it(void *p)
{
	launch_arg *a = p;
	a->prologues++;
	return cu.MemsetD32(a->out, 0xffffffffu, (size_t)a->n) != CUDA_SUCCESS || cu.CtxSynchronize() != CUDA_SUCCESS;
}

static double value_of(const metric_sel *s, const double *raw, const char *name)
{
	for (int i = 0; i < s->nraw; i++)
		if (strcmp(s->raw[i], name) == 0)
			return raw[i];
	return -1;
}

TEST(gpu)
{
	char *err = NULL;
	if (cu_load(&err) != 0) {
		printf("prof: skipped collecting: %s\n", err);
		free(err);
		return;
	}
	int count = 0;
	if (cu.Init(0) != CUDA_SUCCESS || cu.DeviceGetCount(&count) != CUDA_SUCCESS || count < 1) {
		printf("prof: skipped collecting: no GPU\n");
		return;
	}
	if (!prof_available(&err)) {
		printf("prof: skipped collecting: %s\n", err);
		free(err);
		return;
	}
	if (nvrtc_load(&err) != 0) {
		printf("prof: skipped collecting: %s\n", err);
		free(err);
		return;
	}
	CUdevice dev;
	CUcontext ctx;
	int major = 0, minor = 0;
	CHECK(cu.DeviceGet(&dev, 0) == CUDA_SUCCESS);
	cu.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
	cu.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
	CHECK(cu.DevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS);
	CHECK(cu.CtxSetCurrent(ctx) == CUDA_SUCCESS);

	char arch[32];
	snprintf(arch, sizeof arch, "-arch=sm_%d%d", major, minor);
	const char *opts[] = { arch, "-lineinfo" };
	const char *names[] = { "copy", "conflict" };
	nvrtc_out o;
	if (nvrtc_compile("prof_test.cu", kernels, opts, 2, names, 2, &o, &err) != 0) {
		printf("prof: skipped collecting: %s\n", err);
		free(err);
		cu.DevicePrimaryCtxRelease(dev);
		return;
	}
	CUmodule mod;
	CHECK(cu.ModuleLoadData(&mod, o.cubin) == CUDA_SUCCESS);
	launch_arg a;
	memset(&a, 0, sizeof a);
	a.n = 1 << 24; /* 64 MiB each way */
	CHECK(cu.ModuleGetFunction(&a.f, mod, "copy") == CUDA_SUCCESS);
	CHECK(cu.MemAlloc(&a.in, (size_t)a.n * 4) == CUDA_SUCCESS);
	CHECK(cu.MemAlloc(&a.out, (size_t)a.n * 4) == CUDA_SUCCESS);
	CHECK(cu.MemsetD32(a.in, 0x3f800000u, (size_t)a.n) == CUDA_SUCCESS);
	CHECK(cu.CtxSynchronize() == CUDA_SUCCESS);

	metric_sel sel;
	CHECK(metrics_parse("default", &sel, &err) == 0);
	const char *raw_names[METRICS_MAX_RAW];
	metrics_raw_names(&sel, raw_names);
	double raw[METRICS_MAX_RAW];
	prof_info info;
	prof_status st = prof_collect(ctx, dev, raw_names, sel.nraw, launch_it, &a, raw, &info, &err);
	if (st == PROF_UNAVAILABLE) {
		printf("prof: counters unavailable here: %s\n", err);
		CHECK(err && !strchr(err, '\n'));
		free(err);
		err = NULL;
	} else {
		CHECK(st == PROF_OK);
		if (st != PROF_OK) {
			fprintf(stderr, "prof: %s\n", err);
			free(err);
			err = NULL;
		} else {
			CHECK(a.calls == 1 && a.res == CUDA_SUCCESS);
			CHECK(info.passes >= 1 && info.ranges == 1 && info.chip[0]);
			double fig[METRICS_MAX_FIGS];
			metrics_compute(&sel, raw, fig);
			double mib64 = 64.0 * 1024 * 1024;
			double rd = value_of(&sel, raw, "dram__bytes_read.sum");
			double lds = value_of(&sel, raw, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
			double ldr = value_of(&sel, raw, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
			double bc = value_of(&sel, raw, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum");
			double t = value_of(&sel, raw, "gpu__time_duration.sum");
			printf("prof: %s, %d passes in %.0f ms: copy of 64 MiB: %.0f ns, DRAM read %.1f MiB, "
			       "%.2f sectors per load request\n", info.chip, info.passes, info.ms, t, rd / (1024 * 1024),
			       ldr > 0 ? lds / ldr : -1);
			CHECK(t > 0);
			CHECK(rd > 0.25 * mib64 && rd < 2.0 * mib64);
			CHECK(ldr > 0 && lds / ldr > 3.9 && lds / ldr < 4.1);
			CHECK(bc == 0);
		}
	}

	if (st == PROF_OK) {
		/* shared memory bank conflicts where the kernel makes them */
		CHECK(cu.ModuleGetFunction(&a.f, mod, "conflict") == CUDA_SUCCESS);
		metric_sel sh;
		CHECK(metrics_parse("shared", &sh, &err) == 0);
		metrics_raw_names(&sh, raw_names);
		st = prof_collect(ctx, dev, raw_names, sh.nraw, launch_it, &a, raw, &info, &err);
		CHECK(st == PROF_OK);
		if (st == PROF_OK) {
			double st_bc = value_of(&sh, raw, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum");
			double ld_bc = value_of(&sh, raw, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
			printf("prof: conflict kernel: %.0f store and %.0f load bank conflicts\n", st_bc, ld_bc);
			CHECK(st_bc > 0 && ld_bc > 0);
		} else {
			fprintf(stderr, "prof: %s\n", err);
			free(err);
			err = NULL;
		}

		/* user replay: the caller launches once a pass, after its prologue;
		 * the copy's 64 MiB read in the pass that counts DRAM reads */
		a.calls = a.prologues = 0;
		const char *def_names[METRICS_MAX_RAW];
		metrics_raw_names(&sel, def_names);
		st = prof_collect_replay(ctx, dev, def_names, sel.nraw, prologue_it, launch_it, &a, raw, &info, &err);
		CHECK(st == PROF_OK);
		if (st == PROF_OK) {
			double rd = value_of(&sel, raw, "dram__bytes_read.sum");
			double wr = value_of(&sel, raw, "dram__bytes_write.sum");
			printf("prof: user replay %s: %d passes, %d launches; copy of 64 MiB: DRAM read %.1f MiB, "
			       "written %.1f MiB\n", info.user_replay ? "taken" : "refused (kernel replay)", info.passes,
			       info.launches, rd / (1024 * 1024), wr / (1024 * 1024));
			CHECK(a.calls == info.launches && a.prologues == (info.user_replay ? info.passes : 1));
			CHECK(!info.user_replay || info.launches == info.passes);
			CHECK(rd > 0.9 * 64 * 1024 * 1024 && rd < 1.5 * 64 * 1024 * 1024);
		} else {
			fprintf(stderr, "prof: %s\n", err);
			free(err);
			err = NULL;
		}

		/* a metric this GPU does not have: named */
		const char *bad[] = { "gpu__time_duration.sum", "dram__no_such_counter.sum" };
		st = prof_collect(ctx, dev, bad, 2, launch_it, &a, raw, &info, &err);
		CHECK(st == PROF_ERROR);
		CHECK(err && strstr(err, "dram__no_such_counter.sum") != NULL);
		printf("prof: %s\n", err ? err : "(no message)");
		free(err);
		err = NULL;

		/* a launch that fails: PROF_LAUNCH, and the profiler is usable after */
		launch_arg b = a;
		b.f = NULL; /* cuLaunchKernel: CUDA_ERROR_INVALID_HANDLE, not sticky */
		st = prof_collect(ctx, dev, raw_names, sh.nraw, launch_it, &b, raw, &info, &err);
		CHECK(st == PROF_LAUNCH && b.res != CUDA_SUCCESS);
		free(err);
		err = NULL;
		CHECK(cu.CtxSynchronize() == CUDA_SUCCESS);
		st = prof_collect(ctx, dev, raw_names, sh.nraw, launch_it, &a, raw, &info, &err);
		CHECK(st == PROF_OK);
		free(err);
		err = NULL;
	}
	prof_shutdown();
	cu.MemFree(a.in);
	cu.MemFree(a.out);
	cu.ModuleUnload(mod);
	nvrtc_out_free(&o);
	cu.DevicePrimaryCtxRelease(dev);
}

int main(void)
{
	RUN(abi);
	RUN(classify);
	RUN(loading);
	RUN(gpu);
	return test_report("prof");
}
