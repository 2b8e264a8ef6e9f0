/* cupti_sass_abi.h: the parts of CUPTI that sassprof.c calls (the SASS
 * metrics API, PC sampling and the SASS-to-source correlation), declared
 * here so that building needs no CUPTI headers; libcupti is loaded with
 * dlopen (cuptilib.c).
 *
 * Struct layouts, enum values and the size macros are copied from CUPTI
 * 13.0 (cupti_sass_metrics.h, cupti_pcsampling.h, cupti_profiler_target.h).
 * The SASS metrics Params start with {structSize, pPriv} as the profiler's
 * do; the PC sampling ones with {size, pPriv}; the PC sampling records are
 * packed and 8-byte aligned, as CUPTI's PACKED_ALIGNMENT makes them with
 * GCC. tests/unit/test_lines_mock.c pins the sizes. */
#ifndef CUPLAY_CUPTI_SASS_ABI_H
#define CUPLAY_CUPTI_SASS_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "cupti_abi.h"

/* CUpti_Profiler_API: cuptiProfilerDeviceSupported's question */
#define CUPTI_PROFILER_PC_SAMPLING 1
#define CUPTI_PROFILER_SASS_METRICS 2

/* ---- cupti_sass_metrics.h ---- */

#define CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU 0

typedef struct CUpti_SassMetrics_MetricDetails {
	uint64_t metricId;
	const char *pMetricName;
	const char *pMetricDescription;
} CUpti_SassMetrics_MetricDetails;

typedef struct CUpti_SassMetrics_GetProperties_Params {
	size_t structSize;
	void *pPriv;
	const char *pChipName;
	const char *pMetricName;
	CUpti_SassMetrics_MetricDetails metric;
} CUpti_SassMetrics_GetProperties_Params;
#define CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_SassMetrics_GetProperties_Params, metric)

typedef struct CUpti_SassMetrics_Config {
	uint64_t metricId;
	uint8_t outputGranularity;
} CUpti_SassMetrics_Config;

typedef struct CUpti_SassMetricsSetConfig_Params {
	size_t structSize;
	void *pPriv;
	size_t numOfMetricConfig;
	CUpti_SassMetrics_Config *pConfigs;
	uint32_t deviceIndex;
} CUpti_SassMetricsSetConfig_Params;
#define CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_SassMetricsSetConfig_Params, deviceIndex)

typedef struct CUpti_SassMetricsUnsetConfig_Params {
	size_t structSize;
	void *pPriv;
	uint32_t deviceIndex;
} CUpti_SassMetricsUnsetConfig_Params;
#define CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_SassMetricsUnsetConfig_Params, deviceIndex)

typedef struct CUpti_SassMetricsEnable_Params {
	size_t structSize;
	void *pPriv;
	CUcontext ctx;
	uint8_t enableLazyPatching;
} CUpti_SassMetricsEnable_Params;
#define CUpti_SassMetricsEnable_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_SassMetricsEnable_Params, enableLazyPatching)

typedef struct CUpti_SassMetricsDisable_Params {
	size_t structSize;
	void *pPriv;
	CUcontext ctx;
	size_t numOfDroppedRecords;
} CUpti_SassMetricsDisable_Params;
#define CUpti_SassMetricsDisable_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_SassMetricsDisable_Params, numOfDroppedRecords)

typedef struct CUpti_SassMetricsGetDataProperties_Params {
	size_t structSize;
	void *pPriv;
	CUcontext ctx;
	size_t numOfPatchedInstructionRecords;
	size_t numOfInstances;
} CUpti_SassMetricsGetDataProperties_Params;
#define CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_SassMetricsGetDataProperties_Params, numOfInstances)

typedef struct CUpti_SassMetrics_InstanceValue {
	uint64_t metricId;
	uint64_t value;
} CUpti_SassMetrics_InstanceValue;

/* One record: one instruction's value of one metric, an instance each
 * (one at GPU granularity); functionName is CUPTI's, the caller frees it. */
typedef struct CUpti_SassMetrics_Data {
	size_t structSize;
	void *pPriv;
	uint32_t cubinCrc;
	uint32_t functionIndex;
	const char *functionName;
	uint32_t pcOffset;
	CUpti_SassMetrics_InstanceValue *pInstanceValues;
} CUpti_SassMetrics_Data;

typedef struct CUpti_SassMetricsFlushData_Params {
	size_t structSize;
	void *pPriv;
	CUcontext ctx;
	size_t numOfPatchedInstructionRecords;
	size_t numOfInstances;
	CUpti_SassMetrics_Data *pMetricsData;
} CUpti_SassMetricsFlushData_Params;
/* (CUPTI 13.0's macro ends at numOfInstances, not at pMetricsData) */
#define CUpti_SassMetricsFlushData_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_SassMetricsFlushData_Params, numOfInstances)

/* ---- cupti_pcsampling.h ---- */

#define CUPTI_PCS_PACKED __attribute__((__packed__)) __attribute__((aligned(8)))

#define CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED 2
#define CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED 1
#define CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD 1
#define CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON 2
#define CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE 5
#define CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT 7
#define CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER 8
#define CUPTI_STALL_REASON_STRING_SIZE 128

typedef struct CUPTI_PCS_PACKED CUpti_PCSamplingStallReason {
	uint32_t pcSamplingStallReasonIndex;
	uint32_t samples;
} CUpti_PCSamplingStallReason;

typedef struct CUPTI_PCS_PACKED CUpti_PCSamplingPCData {
	size_t size;
	uint64_t cubinCrc;
	uint64_t pcOffset;
	uint32_t functionIndex;
	uint32_t pad;
	char *functionName;
	size_t stallReasonCount;
	CUpti_PCSamplingStallReason *stallReason;
	uint32_t correlationId;
} CUpti_PCSamplingPCData;

typedef struct CUPTI_PCS_PACKED CUpti_PCSamplingData {
	size_t size;
	size_t collectNumPcs;
	uint64_t totalSamples;
	uint64_t droppedSamples;
	size_t totalNumPcs;
	size_t remainingNumPcs;
	uint64_t rangeId;
	CUpti_PCSamplingPCData *pPcData;
	uint64_t nonUsrKernelsTotalSamples;
	uint8_t hardwareBufferFull;
} CUpti_PCSamplingData;

typedef struct CUpti_PCSamplingConfigurationInfo {
	int attributeType;     /* CUpti_PCSamplingConfigurationAttributeType */
	CUptiResult attributeStatus;
	union {
		struct { uint64_t data[3]; } invalidData;
		struct { uint32_t samplingPeriod; } samplingPeriodData;
		struct { size_t stallReasonCount; uint32_t *pStallReasonIndex; } stallReasonData;
		struct { int collectionMode; } collectionModeData;
		struct { int outputDataFormat; } outputDataFormatData;
		struct { void *samplingDataBuffer; } samplingDataBufferData;
	} attributeData;
} CUpti_PCSamplingConfigurationInfo;

typedef struct CUpti_PCSamplingConfigurationInfoParams {
	size_t size;
	void *pPriv;
	CUcontext ctx;
	size_t numAttributes;
	CUpti_PCSamplingConfigurationInfo *pPCSamplingConfigurationInfo;
} CUpti_PCSamplingConfigurationInfoParams;
#define CUpti_PCSamplingConfigurationInfoParamsSize \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_PCSamplingConfigurationInfoParams, pPCSamplingConfigurationInfo)

/* cuptiPCSamplingGetData, Enable, Disable: {size, pPriv, ctx[, data]} */
typedef struct CUpti_PCSamplingGetDataParams {
	size_t size;
	void *pPriv;
	CUcontext ctx;
	void *pcSamplingData;
} CUpti_PCSamplingGetDataParams;
#define CUpti_PCSamplingGetDataParamsSize CUPTI_PROFILER_STRUCT_SIZE(CUpti_PCSamplingGetDataParams, pcSamplingData)

typedef struct CUpti_PCSamplingEnableParams {
	size_t size;
	void *pPriv;
	CUcontext ctx;
} CUpti_PCSamplingEnableParams;
#define CUpti_PCSamplingEnableParamsSize CUPTI_PROFILER_STRUCT_SIZE(CUpti_PCSamplingEnableParams, ctx)
typedef CUpti_PCSamplingEnableParams CUpti_PCSamplingDisableParams;
#define CUpti_PCSamplingDisableParamsSize CUpti_PCSamplingEnableParamsSize

typedef struct CUpti_PCSamplingGetNumStallReasonsParams {
	size_t size;
	void *pPriv;
	CUcontext ctx;
	size_t *numStallReasons;
} CUpti_PCSamplingGetNumStallReasonsParams;
#define CUpti_PCSamplingGetNumStallReasonsParamsSize \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_PCSamplingGetNumStallReasonsParams, numStallReasons)

typedef struct CUpti_PCSamplingGetStallReasonsParams {
	size_t size;
	void *pPriv;
	CUcontext ctx;
	size_t numStallReasons;
	uint32_t *stallReasonIndex;
	char **stallReasons;   /* numStallReasons buffers of CUPTI_STALL_REASON_STRING_SIZE, the caller's */
} CUpti_PCSamplingGetStallReasonsParams;
#define CUpti_PCSamplingGetStallReasonsParamsSize \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_PCSamplingGetStallReasonsParams, stallReasons)

/* cuptiGetSassToSourceCorrelation: a pure function of the cubin (no GPU);
 * fileName and dirName are CUPTI's, the caller frees them. */
typedef struct CUpti_GetSassToSourceCorrelationParams {
	size_t size;
	const void *cubin;
	const char *functionName;
	size_t cubinSize;
	uint32_t lineNumber;
	uint64_t pcOffset;
	char *fileName;
	char *dirName;
} CUpti_GetSassToSourceCorrelationParams;
#define CUpti_GetSassToSourceCorrelationParamsSize \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_GetSassToSourceCorrelationParams, dirName)

_Static_assert(sizeof(CUpti_PCSamplingStallReason) == 8, "CUpti_PCSamplingStallReason");
_Static_assert(offsetof(CUpti_PCSamplingPCData, functionName) == 32, "CUpti_PCSamplingPCData.functionName");
_Static_assert(offsetof(CUpti_PCSamplingPCData, stallReason) == 48, "CUpti_PCSamplingPCData.stallReason");
_Static_assert(sizeof(CUpti_PCSamplingPCData) == 64, "CUpti_PCSamplingPCData");
_Static_assert(offsetof(CUpti_PCSamplingData, pPcData) == 56, "CUpti_PCSamplingData.pPcData");
_Static_assert(sizeof(CUpti_PCSamplingData) == 80, "CUpti_PCSamplingData");
_Static_assert(sizeof(CUpti_PCSamplingConfigurationInfo) == 32, "CUpti_PCSamplingConfigurationInfo");
_Static_assert(offsetof(CUpti_GetSassToSourceCorrelationParams, pcOffset) == 40, "correlation pcOffset");
_Static_assert(offsetof(CUpti_SassMetrics_Data, pInstanceValues) == 40, "CUpti_SassMetrics_Data");

#endif
