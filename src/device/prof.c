/* prof.c: hardware counters through CUPTI's Range Profiler, with dlopen. */
#include "prof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_abi.h"
#include "cuptilib.h"
#include "util.h"

typedef CUptiResult (*cupti_fn)(void *params);

static struct cupti_lib {
	void *lib;
	char *why;      /* why it could not load, once tried */
	int tried;
	int initialized;
	cupti_fn ProfilerInitialize, ProfilerDeInitialize, DeviceSupported, GetChipName,
	         GetCounterAvailability, HostInitialize, HostDeinitialize, HostConfigAddMetrics,
	         HostGetConfigImageSize, HostGetConfigImage, HostGetNumOfPasses, HostEvaluateToGpuValues,
	         HostGetMetricProperties, RangeEnable, RangeDisable, RangeSetConfig, RangeStart, RangeStop,
	         RangeDecodeData, RangeGetCounterDataSize, RangeCounterDataImageInitialize,
	         RangeGetCounterDataInfo;
} cp;

static const struct {
	size_t off;
	const char *name;
	int required;
} cp_syms[] = {
#define S(field, name) { offsetof(struct cupti_lib, field), name, 1 }
#define O(field, name) { offsetof(struct cupti_lib, field), name, 0 }
	S(ProfilerInitialize, "cuptiProfilerInitialize"),
	S(ProfilerDeInitialize, "cuptiProfilerDeInitialize"),
	O(DeviceSupported, "cuptiProfilerDeviceSupported"),
	S(GetChipName, "cuptiDeviceGetChipName"),
	S(GetCounterAvailability, "cuptiProfilerGetCounterAvailability"),
	S(HostInitialize, "cuptiProfilerHostInitialize"),
	S(HostDeinitialize, "cuptiProfilerHostDeinitialize"),
	S(HostConfigAddMetrics, "cuptiProfilerHostConfigAddMetrics"),
	S(HostGetConfigImageSize, "cuptiProfilerHostGetConfigImageSize"),
	S(HostGetConfigImage, "cuptiProfilerHostGetConfigImage"),
	S(HostGetNumOfPasses, "cuptiProfilerHostGetNumOfPasses"),
	S(HostEvaluateToGpuValues, "cuptiProfilerHostEvaluateToGpuValues"),
	O(HostGetMetricProperties, "cuptiProfilerHostGetMetricProperties"),
	S(RangeEnable, "cuptiRangeProfilerEnable"),
	S(RangeDisable, "cuptiRangeProfilerDisable"),
	S(RangeSetConfig, "cuptiRangeProfilerSetConfig"),
	S(RangeStart, "cuptiRangeProfilerStart"),
	S(RangeStop, "cuptiRangeProfilerStop"),
	S(RangeDecodeData, "cuptiRangeProfilerDecodeData"),
	S(RangeGetCounterDataSize, "cuptiRangeProfilerGetCounterDataSize"),
	S(RangeCounterDataImageInitialize, "cuptiRangeProfilerCounterDataImageInitialize"),
	S(RangeGetCounterDataInfo, "cuptiRangeProfilerGetCounterDataInfo"),
#undef S
#undef O
};

/* ------------------------------------------------------------ loading */

static int load(void)
{
	if (cp.tried)
		return cp.lib ? 0 : -1;
	cp.tried = 1;
	void *lib = cuptilib_open(&cp.why);
	if (!lib)
		return -1;
	cupti_fn fns[ARRAY_LEN(cp_syms)];
	for (size_t k = 0; k < ARRAY_LEN(cp_syms); k++) {
		if (cuptilib_sym(cp_syms[k].name, &fns[k]) != 0 && cp_syms[k].required) {
			cp.why = xasprintf("CUPTI too old: no '%s' in '%s' (the Range Profiler API needs a newer CUDA toolkit)",
			                   cp_syms[k].name, cuptilib_path());
			return -1;
		}
	}
	for (size_t k = 0; k < ARRAY_LEN(cp_syms); k++)
		memcpy((char *)&cp + cp_syms[k].off, &fns[k], sizeof fns[k]);
	cp.lib = lib;
	return 0;
}

int prof_available(char **why)
{
	if (load() == 0)
		return 1;
	if (why)
		*why = xstrdup(cp.why ? cp.why : "CUPTI not loaded");
	return 0;
}

const char *prof_library(void)
{
	return cp.lib ? cuptilib_path() : NULL;
}

/* ------------------------------------------------------------ errors */

int prof_is_unavailable(int r)
{
	switch (r) {
	case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
	case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
	case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
	case CUPTI_ERROR_HARDWARE_BUSY:
	case CUPTI_ERROR_NOT_SUPPORTED:
	case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
	case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
	case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
	case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
	case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
	case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
	case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
	case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
	case CUPTI_ERROR_INVALID_CHIP_NAME:
		return 1;
	default:
		return 0;
	}
}

const char *prof_explain(int r)
{
	switch (r) {
	case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
		return "hardware counters not permitted for this user: run as root or set the driver option "
		       "NVreg_RestrictProfilingToAdminUsers=0";
	case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
		return "hardware counters not permitted on this virtual GPU: the host must enable profiling for it";
	case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
		return "hardware counters taken by another profiler: is cuplay running under ncu, nsys or compute-sanitizer?";
	case CUPTI_ERROR_HARDWARE_BUSY:
		return "hardware counters busy: another process (ncu, nsys or a cuplay) is profiling this GPU";
	case CUPTI_ERROR_NOT_SUPPORTED:
		return "hardware counters not supported on this device";
	case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
		return "hardware counters not supported on this virtual GPU";
	case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
		return "hardware counters held by CUPTI's legacy event API in this process";
	case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
		return "hardware counters not supported by this CUPTI on this device";
	case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
		return "hardware counters not available in confidential computing mode";
	case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
		return "hardware counters not supported on a CMP (crypto mining) device";
	case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
		return "hardware counters not supported on this MIG instance";
	case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
		return "hardware counters not supported with SLI";
	case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
		return "hardware counters not supported under WSL with this driver";
	case CUPTI_ERROR_INVALID_CHIP_NAME:
		return "this CUPTI does not know the GPU: use the CUPTI of a newer CUDA toolkit";
	default:
		return NULL;
	}
}

/* Checks one CUPTI call: 0, or the status with *err set. */
static prof_status check(CUptiResult r, const char *call, char **err)
{
	if (r == CUPTI_SUCCESS)
		return PROF_OK;
	char text[300];
	cuptilib_result_text(r, text, sizeof text);
	const char *why = prof_explain(r);
	if (why) {
		/* the name alone: the explanation already says what it means */
		char name[80];
		cuptilib_result_name(r, name, sizeof name);
		fail(err, "%s (%s: %s)", why, call, name);
		return PROF_UNAVAILABLE;
	}
	fail(err, "%s failed: %s", call, text);
	return PROF_ERROR;
}

/* ------------------------------------------------------------ collecting */

static prof_status unsupported(const CUpti_Profiler_DeviceSupported_Params *s, char **err)
{
	sbuf b = {0};
	struct {
		int level;
		const char *what;
	} parts[] = {
		{ s->architecture, "the architecture (compute capability 7.0 or later needed)" },
		{ s->sli, "SLI" },
		{ s->vGpu, "this virtual GPU" },
		{ s->confidentialCompute, "confidential computing" },
		{ s->cmp, "a CMP device" },
		{ s->wsl, "WSL" },
	};
	for (size_t i = 0; i < ARRAY_LEN(parts); i++) {
		if (parts[i].level == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
			sb_printf(&b, "%s%s", b.len ? ", " : "", parts[i].what);
		else if (parts[i].level == CUPTI_PROFILER_CONFIGURATION_DISABLED)
			sb_printf(&b, "%s%s (profiling disabled)", b.len ? ", " : "", parts[i].what);
	}
	fail(err, "hardware counters not supported on this device%s%s", b.len ? ": " : "", b.len ? b.s : "");
	sb_free(&b);
	return PROF_UNAVAILABLE;
}

/* After ConfigAddMetrics refused the list: which name this chip lacks. */
static prof_status bad_metric(CUpti_Profiler_Host_Object *host, const char *const *metrics, int n,
                              const char *chip, CUptiResult r, char **err)
{
	if (cp.HostGetMetricProperties) {
		for (int i = 0; i < n; i++) {
			CUpti_Profiler_Host_GetMetricProperties_Params mp;
			memset(&mp, 0, sizeof mp);
			mp.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE;
			mp.pHostObject = host;
			mp.pMetricName = metrics[i];
			if (cp.HostGetMetricProperties(&mp) != CUPTI_SUCCESS) {
				fail(err, "metric '%s' does not exist on this GPU (%s)", metrics[i], chip);
				return PROF_ERROR;
			}
		}
	}
	return check(r, "cuptiProfilerHostConfigAddMetrics", err);
}

typedef struct session {
	uint8_t *avail, *config, *data;
	size_t data_size, config_size;
	CUpti_Profiler_Host_Object *host;
	CUpti_RangeProfiler_Object *rp;
	int started;
	const char **names;    /* the metrics, in CUPTI's const-less array */
	size_t n;
	const char *chip;
	uint64_t t0;           /* the collection's start */
	int nranges;           /* kernels a launch call makes: a range each */
} session;

/* A teardown call's status: it becomes the collection's on one that went
 * well so far (report set); after a failure that error stands. */
static void teardown_check(prof_status *st, int report, CUptiResult r, const char *call, char **err)
{
	if (report && *st == PROF_OK)
		*st = check(r, call, err);
}

/* Stops, disables and frees what a collection set up. On a collection
 * that went well (report set) a failing teardown call is reported; after a
 * failure its own error stands and teardown results are not looked at. */
static prof_status session_end(session *s, int report, char **err)
{
	prof_status st = PROF_OK;
	if (s->started) {
		CUpti_RangeProfiler_Stop_Params sp;
		memset(&sp, 0, sizeof sp);
		sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
		sp.pRangeProfilerObject = s->rp;
		teardown_check(&st, report, cp.RangeStop(&sp), "cuptiRangeProfilerStop", err);
	}
	if (s->rp) {
		CUpti_RangeProfiler_Disable_Params dp;
		memset(&dp, 0, sizeof dp);
		dp.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
		dp.pRangeProfilerObject = s->rp;
		teardown_check(&st, report, cp.RangeDisable(&dp), "cuptiRangeProfilerDisable", err);
	}
	if (s->host) {
		CUpti_Profiler_Host_Deinitialize_Params hp;
		memset(&hp, 0, sizeof hp);
		hp.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
		hp.pHostObject = s->host;
		teardown_check(&st, report, cp.HostDeinitialize(&hp), "cuptiProfilerHostDeinitialize", err);
	}
	free(s->avail);
	free(s->config);
	free(s->data);
	memset(s, 0, sizeof *s);
	return st;
}

/* The end of a collection whose status so far is st: the session torn
 * down (a teardown failure becomes the status only where st was
 * PROF_OK), the metric names freed. The collection's status. */
static prof_status session_close(session *s, prof_status st, const char **names, char **err)
{
	prof_status end = session_end(s, st == PROF_OK, st == PROF_OK ? err : NULL);
	free(names);
	return st == PROF_OK ? end : st;
}

prof_status prof_collect(CUcontext ctx, CUdevice dev, const char *const *metrics, int n,
                         int (*launch)(void *arg), void *arg, double *values, prof_info *info,
                         char **err)
{
	return prof_collect_replay(ctx, dev, metrics, n, NULL, launch, arg, values, info, err);
}

/* The range profiler's configuration: one range a kernel launch, replayed
 * by CUPTI (kernel replay) or by the caller (user replay). */
static CUptiResult set_config(session *s, int mode)
{
	CUpti_RangeProfiler_SetConfig_Params sc;
	memset(&sc, 0, sizeof sc);
	sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
	sc.pRangeProfilerObject = s->rp;
	sc.configSize = s->config_size;
	sc.pConfig = s->config;
	sc.counterDataImageSize = s->data_size;
	sc.pCounterDataImage = s->data;
	sc.range = CUPTI_AutoRange; /* a range around each kernel launch */
	sc.replayMode = mode;
	sc.maxRangesPerPass = (size_t)s->nranges;
	sc.numNestingLevels = 1;
	sc.minNestingLevel = 1;
	sc.passIndex = 0;
	sc.targetNestingLevel = 1;
	return cp.RangeSetConfig(&sc);
}

/* 1-2. The profiler, once a process; whether this device can be profiled. */
static prof_status prof_begin(CUdevice dev, char **err)
{
	prof_status st;
	if (!cp.initialized) {
		CUpti_Profiler_Initialize_Params ip;
		memset(&ip, 0, sizeof ip);
		ip.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
		if ((st = check(cp.ProfilerInitialize(&ip), "cuptiProfilerInitialize", err)) != PROF_OK)
			return st;
		cp.initialized = 1;
	}
	if (!cp.DeviceSupported)
		return PROF_OK;
	CUpti_Profiler_DeviceSupported_Params ds;
	memset(&ds, 0, sizeof ds);
	ds.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE;
	ds.cuDevice = dev;
	ds.api = CUPTI_PROFILER_RANGE_PROFILING;
	if ((st = check(cp.DeviceSupported(&ds), "cuptiProfilerDeviceSupported", err)) != PROF_OK)
		return st;
	if (ds.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
		return unsupported(&ds, err);
	return PROF_OK;
}

/* 3. The chip (s->chip, info->chip) and which counters it has free
 * (s->avail). */
static prof_status chip_counters(session *s, CUcontext ctx, CUdevice dev, prof_info *info, char **err)
{
	prof_status st;
	CUpti_Device_GetChipName_Params cn;
	memset(&cn, 0, sizeof cn);
	cn.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
	cn.deviceIndex = (size_t)dev;
	if ((st = check(cp.GetChipName(&cn), "cuptiDeviceGetChipName", err)) != PROF_OK)
		return st;
	s->chip = cn.pChipName;
	snprintf(info->chip, sizeof info->chip, "%s", cn.pChipName ? cn.pChipName : "?");
	CUpti_Profiler_GetCounterAvailability_Params ca;
	memset(&ca, 0, sizeof ca);
	ca.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
	ca.ctx = ctx;
	if ((st = check(cp.GetCounterAvailability(&ca), "cuptiProfilerGetCounterAvailability", err)) != PROF_OK)
		return st;
	if (ca.counterAvailabilityImageSize == 0) {
		fail(err, "cuptiProfilerGetCounterAvailability failed: an empty availability image");
		return PROF_ERROR;
	}
	s->avail = xcalloc(1, ca.counterAvailabilityImageSize);
	ca.pCounterAvailabilityImage = s->avail;
	return check(cp.GetCounterAvailability(&ca), "cuptiProfilerGetCounterAvailability", err);
}

/* 4. Host side: the metric names into a configuration (which counters,
 * how many passes: info->passes). */
static prof_status host_config(session *s, const char *const *metrics, prof_info *info, char **err)
{
	prof_status st;
	CUpti_Profiler_Host_Initialize_Params hi;
	memset(&hi, 0, sizeof hi);
	hi.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
	hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
	hi.pChipName = s->chip;
	hi.pCounterAvailabilityImage = s->avail;
	if ((st = check(cp.HostInitialize(&hi), "cuptiProfilerHostInitialize", err)) != PROF_OK)
		return st;
	s->host = hi.pHostObject;
	CUpti_Profiler_Host_ConfigAddMetrics_Params am;
	memset(&am, 0, sizeof am);
	am.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
	am.pHostObject = s->host;
	am.ppMetricNames = s->names;
	am.numMetrics = s->n;
	CUptiResult r = cp.HostConfigAddMetrics(&am);
	if (r != CUPTI_SUCCESS)
		return bad_metric(s->host, metrics, (int)s->n, info->chip, r, err);
	CUpti_Profiler_Host_GetConfigImageSize_Params cs;
	memset(&cs, 0, sizeof cs);
	cs.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
	cs.pHostObject = s->host;
	if ((st = check(cp.HostGetConfigImageSize(&cs), "cuptiProfilerHostGetConfigImageSize", err)) != PROF_OK)
		return st;
	s->config_size = cs.configImageSize;
	s->config = xcalloc(1, s->config_size ? s->config_size : 1);
	CUpti_Profiler_Host_GetConfigImage_Params ci;
	memset(&ci, 0, sizeof ci);
	ci.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
	ci.pHostObject = s->host;
	ci.configImageSize = s->config_size;
	ci.pConfigImage = s->config;
	if ((st = check(cp.HostGetConfigImage(&ci), "cuptiProfilerHostGetConfigImage", err)) != PROF_OK)
		return st;
	CUpti_Profiler_Host_GetNumOfPasses_Params np;
	memset(&np, 0, sizeof np);
	np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
	np.configImageSize = s->config_size;
	np.pConfigImage = s->config;
	if ((st = check(cp.HostGetNumOfPasses(&np), "cuptiProfilerHostGetNumOfPasses", err)) != PROF_OK)
		return st;
	info->passes = (int)np.numOfPasses;
	return PROF_OK;
}

/* The counter data image made ready for ranges (again). */
static prof_status image_init(session *s, char **err)
{
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params di;
	memset(&di, 0, sizeof di);
	di.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
	di.pRangeProfilerObject = s->rp;
	di.counterDataSize = s->data_size;
	di.pCounterData = s->data;
	return check(cp.RangeCounterDataImageInitialize(&di), "cuptiRangeProfilerCounterDataImageInitialize", err);
}

/* 5. Target side: the range profiler on the context (permission shows
 * here), its counter data image, its configuration. User replay where the
 * caller can restore and flush between passes (user): CUPTI's own replay
 * restores the memory the kernel touches before each pass, and those
 * restored lines, dirty in the L2, are written back during the profiled
 * kernel (DRAM writes read high by about the dirty part of the L2). A
 * CUPTI that refuses it: kernel replay. */
static prof_status target_setup(session *s, CUcontext ctx, int user, prof_info *info, char **err)
{
	prof_status st;
	CUpti_RangeProfiler_Enable_Params en;
	memset(&en, 0, sizeof en);
	en.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
	en.ctx = ctx;
	if ((st = check(cp.RangeEnable(&en), "cuptiRangeProfilerEnable", err)) != PROF_OK)
		return st;
	s->rp = en.pRangeProfilerObject;
	CUpti_RangeProfiler_GetCounterDataSize_Params ds2;
	memset(&ds2, 0, sizeof ds2);
	ds2.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
	ds2.pRangeProfilerObject = s->rp;
	ds2.pMetricNames = s->names;
	ds2.numMetrics = s->n;
	ds2.maxNumOfRanges = (size_t)s->nranges; /* a kernel a range */
	ds2.maxNumRangeTreeNodes = (size_t)s->nranges;
	if ((st = check(cp.RangeGetCounterDataSize(&ds2), "cuptiRangeProfilerGetCounterDataSize", err)) != PROF_OK)
		return st;
	s->data_size = ds2.counterDataSize;
	s->data = xcalloc(1, s->data_size ? s->data_size : 1);
	if ((st = image_init(s, err)) != PROF_OK)
		return st;
	info->user_replay = 0;
	if (user && set_config(s, CUPTI_UserReplay) == CUPTI_SUCCESS)
		info->user_replay = 1;
	else if ((st = check(set_config(s, CUPTI_KernelReplay), "cuptiRangeProfilerSetConfig", err)) != PROF_OK)
		return st;
	return PROF_OK;
}

/* One pass: the range profiler started around launch(arg); *all: whether
 * every pass the metrics need has now been submitted. A failing launch
 * leaves it started (session_end stops it). */
static prof_status one_pass(session *s, int (*launch)(void *arg), void *arg, int *all, prof_info *info, char **err)
{
	prof_status st;
	CUpti_RangeProfiler_Start_Params sa;
	memset(&sa, 0, sizeof sa);
	sa.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
	sa.pRangeProfilerObject = s->rp;
	if ((st = check(cp.RangeStart(&sa), "cuptiRangeProfilerStart", err)) != PROF_OK)
		return st;
	s->started = 1;
	int lr = launch(arg);
	if (lr != 0) {
		fail(err, "the kernel launch failed while profiling (%d)", lr);
		return PROF_LAUNCH;
	}
	info->launches++;
	CUpti_RangeProfiler_Stop_Params sp;
	memset(&sp, 0, sizeof sp);
	sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
	sp.pRangeProfilerObject = s->rp;
	s->started = 0;
	if ((st = check(cp.RangeStop(&sp), "cuptiRangeProfilerStop", err)) != PROF_OK)
		return st;
	*all = sp.isAllPassSubmitted != 0;
	return PROF_OK;
}

/* 6. Collect: one launch per pass (user replay), or one launch that CUPTI
 * replays inside. */
static prof_status collect(session *s, int (*prologue)(void *arg), int (*launch)(void *arg), void *arg,
                           prof_info *info, char **err)
{
	prof_status st;
	s->t0 = now_ns();
	for (int pass = 0;; pass++) {
		if (pass > info->passes + 1) {
			fail(err, "cuptiRangeProfilerStop: not all %d passes were submitted after %d launches", info->passes,
			     pass);
			return PROF_ERROR;
		}
		if (prologue && (pass == 0 || info->user_replay) && prologue(arg) != 0) {
			fail(err, "the launch failed while profiling (before pass %d)", pass + 1);
			return PROF_LAUNCH;
		}
		int all = 0;
		if ((st = one_pass(s, launch, arg, &all, info, err)) != PROF_OK)
			return st;
		if (all)
			return PROF_OK;
		if (!info->user_replay) {
			fail(err, "cuptiRangeProfilerStop: not all %d passes were submitted", info->passes);
			return PROF_ERROR;
		}
	}
}

/* 7-8. Decode (synchronises the context: a faulting kernel shows here),
 * then evaluate the values on the host. */
static prof_status evaluate(session *s, double *values, prof_info *info, char **err)
{
	prof_status st;
	CUpti_RangeProfiler_DecodeData_Params dd;
	memset(&dd, 0, sizeof dd);
	dd.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
	dd.pRangeProfilerObject = s->rp;
	if ((st = check(cp.RangeDecodeData(&dd), "cuptiRangeProfilerDecodeData", err)) != PROF_OK)
		return st;
	info->dropped = (int)dd.numOfRangeDropped;
	info->ms = ms_since(s->t0);
	CUpti_RangeProfiler_GetCounterDataInfo_Params gi;
	memset(&gi, 0, sizeof gi);
	gi.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
	gi.pCounterDataImage = s->data;
	gi.counterDataImageSize = s->data_size;
	if ((st = check(cp.RangeGetCounterDataInfo(&gi), "cuptiRangeProfilerGetCounterDataInfo", err)) != PROF_OK)
		return st;
	info->ranges = (int)gi.numTotalRanges;
	if (gi.numTotalRanges < 1) {
		fail(err, "no kernel launch was profiled (the launch callback launched nothing?)");
		return PROF_ERROR;
	}
	if (gi.numTotalRanges < (size_t)s->nranges) {
		fail(err, "%d of %d kernel launches were profiled", (int)gi.numTotalRanges, s->nranges);
		return PROF_ERROR;
	}
	CUpti_Profiler_Host_EvaluateToGpuValues_Params ev;
	memset(&ev, 0, sizeof ev);
	ev.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
	ev.pHostObject = s->host;
	ev.pCounterDataImage = s->data;
	ev.counterDataImageSize = s->data_size;
	ev.ppMetricNames = s->names;
	ev.numMetrics = s->n;
	for (int rg = 0; rg < s->nranges; rg++) {
		ev.rangeIndex = (size_t)rg;
		ev.pMetricValues = values + (size_t)rg * s->n;
		if ((st = check(cp.HostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues", err)) != PROF_OK)
			return st;
	}
	return PROF_OK;
}

/* 1-5 for a collection: the metric names kept in *names (the caller
 * frees them after session_end, which clears the session), the profiler
 * set up for nranges kernels a launch, user replay where user and CUPTI
 * allow it. */
static prof_status session_open(session *s, const char ***names, CUcontext ctx, CUdevice dev,
                                const char *const *metrics, int n, int nranges, int user, prof_info *info,
                                char **err)
{
	memset(s, 0, sizeof *s);
	*names = xcalloc((size_t)n, sizeof **names);
	for (int i = 0; i < n; i++)
		(*names)[i] = metrics[i];
	s->names = *names;
	s->n = (size_t)n;
	s->nranges = nranges;
	if (load() != 0) {
		fail(err, "%s", cp.why);
		return PROF_UNAVAILABLE;
	}
	prof_status st = prof_begin(dev, err);
	if (st == PROF_OK)
		st = chip_counters(s, ctx, dev, info, err);
	if (st == PROF_OK)
		st = host_config(s, metrics, info, err);
	if (st == PROF_OK)
		st = target_setup(s, ctx, user, info, err);
	return st;
}

prof_status prof_collect_replay(CUcontext ctx, CUdevice dev, const char *const *metrics, int n,
                                int (*prologue)(void *arg), int (*launch)(void *arg), void *arg,
                                double *values, prof_info *info, char **err)
{
	return prof_collect_ranges(ctx, dev, metrics, n, 1, prologue, launch, arg, values, info, err);
}

prof_status prof_collect_ranges(CUcontext ctx, CUdevice dev, const char *const *metrics, int n, int nranges,
                                int (*prologue)(void *arg), int (*launch)(void *arg), void *arg,
                                double *values, prof_info *info, char **err)
{
	prof_info dummy;
	if (!info)
		info = &dummy;
	memset(info, 0, sizeof *info);
	if (!metrics || n <= 0 || !launch || !values || nranges < 1) {
		fail(err, "prof_collect: no metrics or no launch");
		return PROF_ERROR;
	}
	session s;
	const char **names;
	prof_status st = session_open(&s, &names, ctx, dev, metrics, n, nranges, prologue != NULL, info, err);
	if (st == PROF_OK)
		st = collect(&s, prologue, launch, arg, info, err);
	if (st == PROF_OK)
		st = evaluate(&s, values, info, err);
	return session_close(&s, st, names, err);
}

prof_status prof_collect_each(CUcontext ctx, CUdevice dev, const char *const *metrics, int n, int nsamples,
                              int (*prologue)(void *arg), int (*launch)(void *arg), void *arg, double *values,
                              prof_info *info, char **err)
{
	prof_info dummy;
	if (!info)
		info = &dummy;
	memset(info, 0, sizeof *info);
	if (!metrics || n <= 0 || !launch || !prologue || !values || nsamples < 1) {
		fail(err, "prof_collect_each: no metrics, prologue or launch");
		return PROF_ERROR;
	}
	session s;
	const char **names;
	prof_status st = session_open(&s, &names, ctx, dev, metrics, n, 1, 1, info, err);
	if (st == PROF_OK && (!info->user_replay || info->passes != 1)) {
		fail(err, "the profiler needs %d passes%s for these metrics: not one launch each", info->passes,
		     info->user_replay ? "" : " and its own replay");
		st = PROF_ERROR;
	}
	s.t0 = now_ns();
	/* each sample: its prologue outside the range, one pass, its range
	 * evaluated, the image made ready for the next */
	for (int i = 0; st == PROF_OK && i < nsamples; i++) {
		int all = 0;
		if (prologue(arg) != 0) {
			fail(err, "the launch failed while profiling (before sample %d)", i + 1);
			st = PROF_LAUNCH;
		} else if ((st = one_pass(&s, launch, arg, &all, info, err)) != PROF_OK) {
			break;
		} else if (!all) {
			fail(err, "cuptiRangeProfilerStop: sample %d's one pass was not all that was needed", i + 1);
			st = PROF_ERROR;
		} else if ((st = evaluate(&s, values + (size_t)i * n, info, err)) == PROF_OK &&
		           (st = image_init(&s, err)) == PROF_OK) {
			st = check(set_config(&s, CUPTI_UserReplay), "cuptiRangeProfilerSetConfig", err);
		}
	}
	info->ms = ms_since(s.t0);
	return session_close(&s, st, names, err);
}

void prof_shutdown(void)
{
	if (!cp.lib || !cp.initialized)
		return;
	CUpti_Profiler_DeInitialize_Params dp;
	memset(&dp, 0, sizeof dp);
	dp.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE;
	cp.ProfilerDeInitialize(&dp);
	cp.initialized = 0;
}
