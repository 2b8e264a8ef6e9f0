/* sassprof_mock.c: a stand-in libcupti for test_lines_mock.c, built by
 * that test into a temp .so and loaded through CUPLAY_CUPTI. It checks
 * every struct size and the fields sassprof.c must set, and plays a small
 * cubin of two functions:
 *   k_main   pc 0x00 k.cu:10, 0x10 k.cu:11, 0x20 inc.h:3 (inlined), 0x30 k.cu:11
 *   k_step2  pc 0x00 k.cu:20, 0x10 k.cu:21
 * SASS metric m of instruction i of function f counts (f+1)*100 + i*10 + m
 * (so every figure is known); PC samples: 3 reasons (indices 7, 9, 11),
 * two instructions taken by GetData and one more left for Disable.
 * Fails on request:
 *   MOCK_PRIV       cuptiSassMetricsEnable: INSUFFICIENT_PRIVILEGES (35)
 *   MOCK_NOSAMPLE   cuptiPCSamplingEnable: NOT_SUPPORTED (27)
 *   MOCK_NOMETRIC   no smsp__sass_sectors_mem_local on this chip
 *   MOCK_NONUSER    GetData: 70 samples, all in code CUPTI does not know,
 *                   and no record for them
 *   MOCK_ODDREASON  the first record's reasons carry an index that is none
 *                   of GetStallReasons' (its samples still count)
 * SetConfig a second time for the device fails with OUT_OF_MEMORY, even
 * after UnsetConfig, as CUPTI does.
 * mock_state() tells what is still configured or enabled. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_sass_abi.h"

static int configured, ever_set, sass_on, pcs_on, inits;
static CUpti_PCSamplingData *conf_buf;

static int env(const char *n)
{
	const char *v = getenv(n);
	return v && *v;
}

#define SZ(p, T) do { if ((p)->structSize != T##_STRUCT_SIZE) return CUPTI_ERROR_INVALID_PARAMETER; } while (0)
#define PSZ(p, S) do { if ((p)->size != (S)) return CUPTI_ERROR_INVALID_PARAMETER; } while (0)

void mock_state(int *c, int *s, int *p, int *i)
{
	*c = configured, *s = sass_on, *p = pcs_on, *i = inits;
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
	if ((p->api != CUPTI_PROFILER_SASS_METRICS && p->api != CUPTI_PROFILER_PC_SAMPLING) || p->cuDevice != 3)
		return CUPTI_ERROR_INVALID_PARAMETER;
	p->isSupported = p->architecture = p->sli = p->vGpu = p->confidentialCompute = p->cmp = p->wsl = 3;
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

static const char *const metric_names[] = {
	"smsp__sass_inst_executed", "smsp__sass_thread_inst_executed", "smsp__sass_sectors_mem_global",
	"smsp__sass_sectors_mem_global_ideal", "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
	"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal", "smsp__sass_sectors_mem_local",
};

CUptiResult cuptiSassMetricsGetProperties(CUpti_SassMetrics_GetProperties_Params *p)
{
	SZ(p, CUpti_SassMetrics_GetProperties_Params);
	if (!p->pChipName || strcmp(p->pChipName, "GH100") != 0 || !p->pMetricName)
		return CUPTI_ERROR_INVALID_PARAMETER;
	for (int i = 0; i < 7; i++)
		if (strcmp(p->pMetricName, metric_names[i]) == 0 && !(i == 6 && env("MOCK_NOMETRIC"))) {
			p->metric.metricId = 1000 + (uint64_t)i * 7; /* ids that are not indices */
			p->metric.pMetricName = metric_names[i];
			return 0;
		}
	return CUPTI_ERROR_INVALID_METRIC_NAME;
}

CUptiResult cuptiSassMetricsSetConfig(CUpti_SassMetricsSetConfig_Params *p)
{
	SZ(p, CUpti_SassMetricsSetConfig_Params);
	if (p->deviceIndex != 3 || p->numOfMetricConfig != 7 || !p->pConfigs)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (configured || ever_set) /* as CUPTI: once a device a process, unset or not */
		return CUPTI_ERROR_OUT_OF_MEMORY;
	for (int i = 0; i < 7; i++)
		if (p->pConfigs[i].outputGranularity != CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU)
			return CUPTI_ERROR_INVALID_PARAMETER;
	configured = ever_set = 1;
	return 0;
}

CUptiResult cuptiSassMetricsUnsetConfig(CUpti_SassMetricsUnsetConfig_Params *p)
{
	SZ(p, CUpti_SassMetricsUnsetConfig_Params);
	if (!configured || p->deviceIndex != 3)
		return CUPTI_ERROR_INVALID_OPERATION;
	configured = 0;
	return 0;
}

CUptiResult cuptiSassMetricsEnable(CUpti_SassMetricsEnable_Params *p)
{
	SZ(p, CUpti_SassMetricsEnable_Params);
	if (env("MOCK_PRIV"))
		return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES;
	if (!configured || !p->ctx || p->enableLazyPatching != 1)
		return CUPTI_ERROR_INVALID_PARAMETER;
	sass_on = 1;
	return 0;
}

CUptiResult cuptiSassMetricsDisable(CUpti_SassMetricsDisable_Params *p)
{
	SZ(p, CUpti_SassMetricsDisable_Params);
	if (!sass_on)
		return CUPTI_ERROR_INVALID_OPERATION;
	sass_on = 0;
	p->numOfDroppedRecords = 0;
	return 0;
}

/* the instructions: (function, pc) */
static const struct { const char *f; uint32_t pc; } insn[] = {
	{ "k_main", 0 }, { "k_main", 16 }, { "k_main", 32 }, { "k_main", 48 }, { "k_step2", 0 }, { "k_step2", 16 },
};
#define NINSN 6

CUptiResult cuptiSassMetricsGetDataProperties(CUpti_SassMetricsGetDataProperties_Params *p)
{
	SZ(p, CUpti_SassMetricsGetDataProperties_Params);
	if (!sass_on)
		return CUPTI_ERROR_INVALID_OPERATION;
	p->numOfPatchedInstructionRecords = NINSN * 7; /* a record a metric an instruction */
	p->numOfInstances = 1;
	return 0;
}

CUptiResult cuptiSassMetricsFlushData(CUpti_SassMetricsFlushData_Params *p)
{
	SZ(p, CUpti_SassMetricsFlushData_Params);
	if (!sass_on || p->numOfPatchedInstructionRecords != NINSN * 7 || p->numOfInstances != 1 || !p->pMetricsData)
		return CUPTI_ERROR_INVALID_PARAMETER;
	for (int i = 0; i < NINSN * 7; i++) {
		CUpti_SassMetrics_Data *d = &p->pMetricsData[i];
		int k = i / 7, m = i % 7, f = strcmp(insn[k].f, "k_main") != 0;
		if (!d->pInstanceValues)
			return CUPTI_ERROR_INVALID_PARAMETER;
		char *name = malloc(16);
		snprintf(name, 16, "%s", insn[k].f);
		d->functionName = name;
		d->pcOffset = insn[k].pc;
		d->pInstanceValues[0].metricId = 1000 + (uint64_t)m * 7;
		d->pInstanceValues[0].value = (uint64_t)((f + 1) * 100 + (int)(insn[k].pc / 16) * 10 + m);
	}
	return 0;
}

CUptiResult cuptiPCSamplingEnable(CUpti_PCSamplingEnableParams *p)
{
	PSZ(p, CUpti_PCSamplingEnableParamsSize);
	if (env("MOCK_NOSAMPLE"))
		return CUPTI_ERROR_NOT_SUPPORTED;
	if (!p->ctx || pcs_on)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pcs_on = 1;
	return 0;
}

CUptiResult cuptiPCSamplingGetNumStallReasons(CUpti_PCSamplingGetNumStallReasonsParams *p)
{
	PSZ(p, CUpti_PCSamplingGetNumStallReasonsParamsSize);
	if (!pcs_on || !p->numStallReasons)
		return CUPTI_ERROR_INVALID_OPERATION;
	*p->numStallReasons = 3;
	return 0;
}

CUptiResult cuptiPCSamplingGetStallReasons(CUpti_PCSamplingGetStallReasonsParams *p)
{
	static const char *const n[] = { "smsp__pcsamp_warps_issue_stalled_barrier",
		"smsp__pcsamp_warps_issue_stalled_long_scoreboard", "smsp__pcsamp_warps_issue_stalled_selected" };
	PSZ(p, CUpti_PCSamplingGetStallReasonsParamsSize);
	if (!pcs_on || p->numStallReasons != 3 || !p->stallReasonIndex || !p->stallReasons)
		return CUPTI_ERROR_INVALID_PARAMETER;
	for (int i = 0; i < 3; i++) {
		p->stallReasonIndex[i] = 7 + 2 * (uint32_t)i;
		snprintf(p->stallReasons[i], CUPTI_STALL_REASON_STRING_SIZE, "%s", n[i]);
	}
	return 0;
}

CUptiResult cuptiPCSamplingSetConfigurationAttribute(CUpti_PCSamplingConfigurationInfoParams *p)
{
	PSZ(p, CUpti_PCSamplingConfigurationInfoParamsSize);
	if (!pcs_on || !p->pPCSamplingConfigurationInfo)
		return CUPTI_ERROR_INVALID_PARAMETER;
	int seen = 0;
	for (size_t i = 0; i < p->numAttributes; i++) {
		CUpti_PCSamplingConfigurationInfo *a = &p->pPCSamplingConfigurationInfo[i];
		switch (a->attributeType) {
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD:
			if (a->attributeData.samplingPeriodData.samplingPeriod < 5) return CUPTI_ERROR_INVALID_PARAMETER;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON:
			if (a->attributeData.stallReasonData.stallReasonCount != 3) return CUPTI_ERROR_INVALID_PARAMETER;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE:
			if (a->attributeData.collectionModeData.collectionMode != 2) return CUPTI_ERROR_INVALID_PARAMETER;
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT:
			break;
		case CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER:
			conf_buf = a->attributeData.samplingDataBufferData.samplingDataBuffer;
			break;
		default:
			return CUPTI_ERROR_INVALID_PARAMETER;
		}
		seen |= 1 << a->attributeType;
	}
	return seen == (1 << 1 | 1 << 2 | 1 << 5 | 1 << 7 | 1 << 8) ? 0 : CUPTI_ERROR_INVALID_PARAMETER;
}

/* One PC record: samples[r] of reason index 7 + 2r. */
static void put_pc(CUpti_PCSamplingData *b, const char *f, uint32_t pc, const uint32_t *samples)
{
	CUpti_PCSamplingPCData *d = &b->pPcData[b->totalNumPcs++];
	static char names[2][16] = { "k_main", "k_step2" };
	d->functionName = strcmp(f, "k_main") == 0 ? names[0] : names[1];
	d->pcOffset = pc;
	d->stallReasonCount = 0;
	for (int r = 0; r < 3; r++)
		if (samples[r]) {
			d->stallReason[d->stallReasonCount].pcSamplingStallReasonIndex = 7 + 2 * (uint32_t)r;
			d->stallReason[d->stallReasonCount++].samples = samples[r];
			b->totalSamples += samples[r];
		}
}

CUptiResult cuptiPCSamplingGetData(CUpti_PCSamplingGetDataParams *p)
{
	PSZ(p, CUpti_PCSamplingGetDataParamsSize);
	CUpti_PCSamplingData *b = p->pcSamplingData;
	if (!pcs_on || !b || b->size != sizeof *b || b->collectNumPcs < 2 || b->pPcData[0].size != sizeof b->pPcData[0])
		return CUPTI_ERROR_INVALID_PARAMETER;
	static const uint32_t s0[3] = { 30, 10, 0 }, s1[3] = { 0, 50, 5 };
	if (env("MOCK_NONUSER")) {
		b->totalSamples = b->nonUsrKernelsTotalSamples = 70;
		return 0;
	}
	put_pc(b, "k_main", 16, s0);
	if (env("MOCK_ODDREASON"))
		b->pPcData[0].stallReason[0].pcSamplingStallReasonIndex = 99;
	put_pc(b, "k_main", 32, s1);
	return 0;
}

CUptiResult cuptiPCSamplingDisable(CUpti_PCSamplingDisableParams *p)
{
	PSZ(p, CUpti_PCSamplingDisableParamsSize);
	if (!pcs_on)
		return CUPTI_ERROR_INVALID_OPERATION;
	pcs_on = 0;
	static const uint32_t s2[3] = { 0, 0, 5 };
	if (conf_buf)
		put_pc(conf_buf, "k_step2", 0, s2);
	conf_buf = NULL;
	return 0;
}

CUptiResult cuptiGetSassToSourceCorrelation(CUpti_GetSassToSourceCorrelationParams *p)
{
	if (p->size != CUpti_GetSassToSourceCorrelationParamsSize || !p->cubin || !p->functionName || !p->cubinSize)
		return CUPTI_ERROR_INVALID_PARAMETER;
	static const struct { const char *f; uint32_t pc; const char *file; uint32_t line; } map[] = {
		{ "k_main", 0, "k.cu", 10 }, { "k_main", 16, "k.cu", 11 }, { "k_main", 32, "inc.h", 3 },
		{ "k_main", 48, "k.cu", 11 }, { "k_step2", 0, "k.cu", 20 }, { "k_step2", 16, "k.cu", 21 },
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(map[i].f, p->functionName) == 0 && map[i].pc == p->pcOffset) {
			p->fileName = strdup(map[i].file);
			p->dirName = strdup("/src");
			p->lineNumber = map[i].line;
			return 0;
		}
	return CUPTI_ERROR_INVALID_PARAMETER;
}
