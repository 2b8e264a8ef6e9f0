/* cupti_mock.c: a stand-in libcupti for test_prof_mock.c, built by that
 * test into a temp .so and loaded through CUPLAY_CUPTI. It checks every
 * structSize and the fields prof.c must set, and fails on request:
 *   MOCK_SUBS      cuptiProfilerInitialize: MULTIPLE_SUBSCRIBERS (39)
 *   MOCK_UNSUP     cuptiProfilerDeviceSupported: vGPU disabled, WSL unsupported
 *   MOCK_PRIV      cuptiRangeProfilerEnable: INSUFFICIENT_PRIVILEGES (35)
 *   MOCK_DECODE    cuptiRangeProfilerDecodeData: UNKNOWN (999)
 *   MOCK_NORANGE   no range in the counter data
 *   MOCK_DISABLE   cuptiRangeProfilerDisable: UNKNOWN (999)
 *   MOCK_NO_USER   cuptiRangeProfilerSetConfig refuses user replay
 * User replay: each of the 3 passes is one Start, launch, Stop; the third
 * Stop says all passes are submitted (MOCK_ONE_PASS: one pass, each Stop). mock_passes() counts the Stops.
 * Metric names containing "no_such" do not exist. mock_state() tells the
 * test what is still enabled, started or allocated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_abi.h"

static int enabled, hostobjs, started, inits, launches_seen, user_replay, stops;
static char obj;

static int env(const char *n)
{
	const char *v = getenv(n);
	return v && *v;
}

#define SZ(p, T) do { if ((p)->structSize != T##_STRUCT_SIZE) return CUPTI_ERROR_INVALID_PARAMETER; } while (0)

void mock_state(int *e, int *h, int *s, int *i)
{
	*e = enabled, *h = hostobjs, *s = started, *i = inits;
}

CUptiResult cuptiGetResultString(CUptiResult r, const char **s)
{
	static char b[64];
	snprintf(b, sizeof b, "CUPTI_ERROR_%d", r);
	*s = b;
	return 0;
}

CUptiResult cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params *p)
{
	SZ(p, CUpti_Profiler_Initialize_Params);
	if (env("MOCK_SUBS"))
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	inits++;
	return 0;
}

CUptiResult cuptiProfilerDeInitialize(CUpti_Profiler_DeInitialize_Params *p)
{
	SZ(p, CUpti_Profiler_DeInitialize_Params);
	inits--;
	return 0;
}

CUptiResult cuptiProfilerDeviceSupported(CUpti_Profiler_DeviceSupported_Params *p)
{
	SZ(p, CUpti_Profiler_DeviceSupported_Params);
	if (p->api != CUPTI_PROFILER_RANGE_PROFILING || p->cuDevice != 3)
		return CUPTI_ERROR_INVALID_PARAMETER;
	int bad = env("MOCK_UNSUP");
	p->isSupported = bad ? 1 : 3;
	p->architecture = p->sli = p->confidentialCompute = p->cmp = 3;
	p->vGpu = bad ? 2 : 3;
	p->wsl = bad ? 1 : 3;
	return 0;
}

CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params *p)
{
	SZ(p, CUpti_Device_GetChipName_Params);
	if (p->deviceIndex != 3)
		return CUPTI_ERROR_INVALID_DEVICE;
	p->pChipName = "GH100";
	return 0;
}

CUptiResult cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params *p)
{
	SZ(p, CUpti_Profiler_GetCounterAvailability_Params);
	if (!p->ctx)
		return CUPTI_ERROR_INVALID_CONTEXT;
	if (!p->pCounterAvailabilityImage)
		p->counterAvailabilityImageSize = 64;
	else if (p->counterAvailabilityImageSize != 64)
		return CUPTI_ERROR_INVALID_PARAMETER;
	else
		memset(p->pCounterAvailabilityImage, 7, 64);
	return 0;
}

CUptiResult cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params *p)
{
	SZ(p, CUpti_Profiler_Host_Initialize_Params);
	if (p->profilerType != CUPTI_PROFILER_TYPE_RANGE_PROFILER || strcmp(p->pChipName, "GH100") != 0 ||
	    p->pCounterAvailabilityImage[63] != 7)
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->pHostObject = (CUpti_Profiler_Host_Object *)(void *)&obj;
	hostobjs++;
	return 0;
}

CUptiResult cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params *p)
{
	SZ(p, CUpti_Profiler_Host_Deinitialize_Params);
	hostobjs--;
	return 0;
}

CUptiResult cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params *p)
{
	SZ(p, CUpti_Profiler_Host_ConfigAddMetrics_Params);
	for (size_t i = 0; i < p->numMetrics; i++)
		if (strstr(p->ppMetricNames[i], "no_such"))
			return CUPTI_ERROR_INVALID_PARAMETER;
	return 0;
}

CUptiResult cuptiProfilerHostGetMetricProperties(CUpti_Profiler_Host_GetMetricProperties_Params *p)
{
	SZ(p, CUpti_Profiler_Host_GetMetricProperties_Params);
	return strstr(p->pMetricName, "no_such") ? CUPTI_ERROR_INVALID_PARAMETER : 0;
}

CUptiResult cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params *p)
{
	SZ(p, CUpti_Profiler_Host_GetConfigImageSize_Params);
	p->configImageSize = 128;
	return 0;
}

CUptiResult cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params *p)
{
	SZ(p, CUpti_Profiler_Host_GetConfigImage_Params);
	if (p->configImageSize != 128)
		return CUPTI_ERROR_INVALID_PARAMETER;
	memset(p->pConfigImage, 9, 128);
	return 0;
}

CUptiResult cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params *p)
{
	SZ(p, CUpti_Profiler_Host_GetNumOfPasses_Params);
	if (p->configImageSize != 128 || p->pConfigImage[127] != 9)
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->numOfPasses = env("MOCK_ONE_PASS") ? 1 : 3;
	return 0;
}

CUptiResult cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params *p)
{
	SZ(p, CUpti_Profiler_Host_EvaluateToGpuValues_Params);
	if (p->rangeIndex != 0 || p->counterDataImageSize != 256 || p->pCounterDataImage[0] != 5)
		return CUPTI_ERROR_INVALID_PARAMETER;
	for (size_t i = 0; i < p->numMetrics; i++)
		p->pMetricValues[i] = (double)(i + 1) * 10;
	return 0;
}

CUptiResult cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params *p)
{
	SZ(p, CUpti_RangeProfiler_Enable_Params);
	if (env("MOCK_PRIV"))
		return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
	if (!p->ctx)
		return CUPTI_ERROR_INVALID_CONTEXT;
	p->pRangeProfilerObject = (CUpti_RangeProfiler_Object *)(void *)&obj;
	enabled++;
	return 0;
}

CUptiResult cuptiRangeProfilerDisable(CUpti_RangeProfiler_Disable_Params *p)
{
	SZ(p, CUpti_RangeProfiler_Disable_Params);
	enabled--;
	return env("MOCK_DISABLE") ? CUPTI_ERROR_UNKNOWN : 0;
}

CUptiResult cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params *p)
{
	SZ(p, CUpti_RangeProfiler_SetConfig_Params);
	if (p->replayMode == CUPTI_UserReplay && env("MOCK_NO_USER"))
		return CUPTI_ERROR_NOT_SUPPORTED;
	if (p->range != CUPTI_AutoRange || (p->replayMode != CUPTI_KernelReplay && p->replayMode != CUPTI_UserReplay) ||
	    p->maxRangesPerPass != 1 ||
	    p->numNestingLevels != 1 || p->minNestingLevel != 1 || p->targetNestingLevel != 1 || p->passIndex != 0 ||
	    p->configSize != 128 || p->counterDataImageSize != 256 || !p->pConfig || !p->pCounterDataImage)
		return CUPTI_ERROR_INVALID_PARAMETER;
	user_replay = p->replayMode == CUPTI_UserReplay;
	stops = 0;
	return 0;
}

int mock_passes(void)
{
	return stops;
}

CUptiResult cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params *p)
{
	SZ(p, CUpti_RangeProfiler_Start_Params);
	started++;
	return 0;
}

CUptiResult cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params *p)
{
	SZ(p, CUpti_RangeProfiler_Stop_Params);
	started--;
	stops++;
	p->isAllPassSubmitted = !user_replay || stops >= (env("MOCK_ONE_PASS") ? 1 : 3);
	return 0;
}

CUptiResult cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params *p)
{
	SZ(p, CUpti_RangeProfiler_DecodeData_Params);
	if (env("MOCK_DECODE"))
		return CUPTI_ERROR_UNKNOWN;
	p->numOfRangeDropped = 0;
	return 0;
}

CUptiResult cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params *p)
{
	SZ(p, CUpti_RangeProfiler_GetCounterDataSize_Params);
	if (p->maxNumOfRanges != 1 || p->maxNumRangeTreeNodes != 1 || p->numMetrics < 1)
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->counterDataSize = 256;
	return 0;
}

CUptiResult cuptiRangeProfilerCounterDataImageInitialize(CUpti_RangeProfiler_CounterDataImage_Initialize_Params *p)
{
	SZ(p, CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
	if (p->counterDataSize != 256)
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->pCounterData[0] = 5;
	return 0;
}

CUptiResult cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params *p)
{
	SZ(p, CUpti_RangeProfiler_GetCounterDataInfo_Params);
	p->numTotalRanges = env("MOCK_NORANGE") ? 0 : 1;
	return 0;
}

/* ---- the Activity API's kernel and copy records, for kclock.c ----
 *   MOCK_ACT_SUBS   cuptiActivityEnable: MULTIPLE_SUBSCRIBERS (39)
 *   MOCK_ACT_LATE   a plain flush delivers nothing; a forced one does
 *   MOCK_ACT_SPLIT  a plain flush delivers one record; a forced one the rest
 *   MOCK_ACT_NOCOPY cuptiActivityEnable of copies: NOT_SUPPORTED
 * mock_kernel() stands for a kernel that ran while kernel recording was on;
 * mock_span() for a copy or a concurrent kernel while those were on. Every
 * record takes a slot of the kernel record's size (CUPTI's own records vary;
 * GetNextRecord steps over them). */
static CUpti_BuffersCallbackRequestFunc act_req;
static CUpti_BuffersCallbackCompleteFunc act_done;
static int act_on, act_npending;
static unsigned act_kinds; /* bit k: kind k enabled */
static cupti_kernel_record act_pending[64];

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req, CUpti_BuffersCallbackCompleteFunc done)
{
	if (!req || !done)
		return CUPTI_ERROR_INVALID_PARAMETER;
	act_req = req, act_done = done;
	return 0;
}

static int known_kind(int kind)
{
	return kind == CUPTI_ACTIVITY_KIND_KERNEL || kind == CUPTI_ACTIVITY_KIND_MEMCPY ||
	       kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
}

CUptiResult cuptiActivityEnable(int kind)
{
	if (!known_kind(kind) || (kind == CUPTI_ACTIVITY_KIND_MEMCPY && env("MOCK_ACT_NOCOPY")))
		return CUPTI_ERROR_NOT_SUPPORTED;
	if (env("MOCK_ACT_SUBS"))
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	if (!act_req)
		return CUPTI_ERROR_INVALID_OPERATION;
	act_kinds |= 1u << kind;
	act_on = act_kinds != 0;
	return 0;
}

CUptiResult cuptiActivityDisable(int kind)
{
	if (!known_kind(kind))
		return CUPTI_ERROR_NOT_SUPPORTED;
	act_kinds &= ~(1u << kind);
	act_on = act_kinds != 0;
	return 0;
}

/* A copy (copy_kind: CUPTI_ACTIVITY_MEMCPY_KIND_*) or, with copy_kind < 0, a
 * concurrent kernel, on a stream. */
void mock_span(int copy_kind, unsigned stream, unsigned long long start, unsigned long long end,
               unsigned long long bytes)
{
	int kind = copy_kind < 0 ? CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL : CUPTI_ACTIVITY_KIND_MEMCPY;
	if (!(act_kinds >> kind & 1) || act_npending == 64)
		return;
	cupti_kernel_record *slot = &act_pending[act_npending++];
	memset(slot, 0, sizeof *slot);
	if (copy_kind < 0) {
		slot->kind = kind;
		slot->stream_id = stream;
		slot->start = start, slot->end = end;
		slot->name = "k";
		return;
	}
	cupti_memcpy_record m;
	memset(&m, 0, sizeof m);
	m.kind = kind;
	m.copy_kind = (uint8_t)copy_kind;
	m.stream_id = stream;
	m.start = start, m.end = end;
	m.bytes = bytes;
	memcpy(slot, &m, sizeof m);
}

int mock_activity_on(void)
{
	return act_on;
}

void mock_kernel(const char *name, unsigned long long start, unsigned long long end)
{
	if (!(act_kinds >> CUPTI_ACTIVITY_KIND_KERNEL & 1) || act_npending == 64)
		return;
	cupti_kernel_record *k = &act_pending[act_npending++];
	memset(k, 0, sizeof *k);
	k->kind = CUPTI_ACTIVITY_KIND_KERNEL;
	k->start = start, k->end = end;
	k->name = name;
}

CUptiResult cuptiActivityFlushAll(unsigned flag)
{
	int forced = flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED;
	if (!act_npending || (env("MOCK_ACT_LATE") && !forced))
		return 0;
	int n = env("MOCK_ACT_SPLIT") && !forced ? 1 : act_npending;
	uint8_t *buf = NULL;
	size_t size = 0, max = 0;
	act_req(&buf, &size, &max);
	size_t need = (size_t)n * sizeof(cupti_kernel_record);
	if (!buf || size < need || ((uintptr_t)buf & 7))
		return CUPTI_ERROR_INVALID_PARAMETER;
	memcpy(buf, act_pending, need);
	act_npending -= n;
	memmove(act_pending, act_pending + n, (size_t)act_npending * sizeof act_pending[0]);
	act_done(NULL, 0, buf, size, need);
	return 0;
}

CUptiResult cuptiActivityGetNextRecord(uint8_t *buf, size_t valid, void **rec)
{
	uint8_t *next = *rec ? (uint8_t *)*rec + sizeof(cupti_kernel_record) : buf;
	if (next + sizeof(cupti_kernel_record) > buf + valid)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	*rec = next;
	return 0;
}
