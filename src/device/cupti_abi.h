/* cupti_abi.h: the parts of CUPTI that prof.c (the Range Profiler API) and
 * kclock.c (kernel records of the Activity API) call, declared here so that building needs no CUPTI headers (and no C++:
 * cupti_profiler_host.h includes <string>). libcupti is loaded with dlopen.
 *
 * Struct layouts, enum values and the *_STRUCT_SIZE macros are copied from
 * CUPTI 13.0 (cupti_result.h, cupti_target.h, cupti_profiler_target.h,
 * cupti_range_profiler.h, cupti_profiler_host.h, cupti_activity.h). Every
 * Params struct starts with {structSize, pPriv}; structSize tells CUPTI which fields the caller
 * knows, so older fields stay put and newer CUPTIs accept these sizes.
 * tests/unit/test_prof.c pins the sizes. Enums are ints in these structs
 * (4 bytes, as the compiler lays out a C enum). */
#ifndef CUPLAY_CUPTI_ABI_H
#define CUPLAY_CUPTI_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "cudrv.h"

typedef int CUptiResult;

/* CUptiResult values used here (cupti_result.h) */
#define CUPTI_SUCCESS 0
#define CUPTI_ERROR_INVALID_PARAMETER 1
#define CUPTI_ERROR_INVALID_DEVICE 2
#define CUPTI_ERROR_INVALID_CONTEXT 3
#define CUPTI_ERROR_INVALID_OPERATION 7
#define CUPTI_ERROR_OUT_OF_MEMORY 8
#define CUPTI_ERROR_NOT_INITIALIZED 15
#define CUPTI_ERROR_INVALID_METRIC_NAME 17
#define CUPTI_ERROR_HARDWARE_BUSY 26
#define CUPTI_ERROR_NOT_SUPPORTED 27
#define CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED 33
#define CUPTI_ERROR_INSUFFICIENT_PRIVILEGES 35
#define CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED 36
#define CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED 38
#define CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED 39
#define CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES 40
#define CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED 41
#define CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED 42
#define CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED 43
#define CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED 44
#define CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED 45
#define CUPTI_ERROR_INVALID_CHIP_NAME 46
#define CUPTI_ERROR_UNKNOWN 999

#define CUPTI_PROFILER_STRUCT_SIZE(type_, lastfield_) \
	(offsetof(type_, lastfield_) + sizeof(((type_ *)0)->lastfield_))

/* CUpti_ProfilerRange, CUpti_ProfilerReplayMode (cupti_profiler_target.h) */
#define CUPTI_AutoRange 1
#define CUPTI_UserRange 2
#define CUPTI_KernelReplay 2
#define CUPTI_UserReplay 3

/* CUpti_Profiler_Support_Level, CUpti_Profiler_API */
#define CUPTI_PROFILER_CONFIGURATION_UNKNOWN 0
#define CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED 1
#define CUPTI_PROFILER_CONFIGURATION_DISABLED 2
#define CUPTI_PROFILER_CONFIGURATION_SUPPORTED 3
#define CUPTI_PROFILER_RANGE_PROFILING 0

/* CUpti_ProfilerType (cupti_profiler_host.h) */
#define CUPTI_PROFILER_TYPE_RANGE_PROFILER 0

/* ---- cupti_profiler_target.h ---- */

typedef struct CUpti_Profiler_Initialize_Params {
	size_t structSize;
	void *pPriv;
} CUpti_Profiler_Initialize_Params;
#define CUpti_Profiler_Initialize_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_Initialize_Params, pPriv)

typedef struct CUpti_Profiler_DeInitialize_Params {
	size_t structSize;
	void *pPriv;
} CUpti_Profiler_DeInitialize_Params;
#define CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_DeInitialize_Params, pPriv)

typedef struct CUpti_Profiler_GetCounterAvailability_Params {
	size_t structSize;
	void *pPriv;
	CUcontext ctx;
	size_t counterAvailabilityImageSize;
	uint8_t *pCounterAvailabilityImage;
} CUpti_Profiler_GetCounterAvailability_Params;
#define CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_GetCounterAvailability_Params, pCounterAvailabilityImage)

typedef struct CUpti_Profiler_DeviceSupported_Params {
	size_t structSize;
	void *pPriv;
	CUdevice cuDevice;
	int isSupported;          /* CUpti_Profiler_Support_Level, each of these */
	int architecture;
	int sli;
	int vGpu;
	int confidentialCompute;
	int cmp;
	int wsl;
	int api;                  /* CUpti_Profiler_API */
} CUpti_Profiler_DeviceSupported_Params;
#define CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_DeviceSupported_Params, api)

/* ---- cupti_target.h ---- */

typedef struct CUpti_Device_GetChipName_Params {
	size_t structSize;
	void *pPriv;
	size_t deviceIndex;
	const char *pChipName;
} CUpti_Device_GetChipName_Params;
#define CUpti_Device_GetChipName_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_Device_GetChipName_Params, pChipName)

/* ---- cupti_profiler_host.h ---- */

typedef struct CUpti_Profiler_Host_Object CUpti_Profiler_Host_Object;

typedef struct CUpti_Profiler_Host_Initialize_Params {
	size_t structSize;
	void *pPriv;
	int profilerType;         /* CUpti_ProfilerType */
	const char *pChipName;
	const uint8_t *pCounterAvailabilityImage;
	CUpti_Profiler_Host_Object *pHostObject;
} CUpti_Profiler_Host_Initialize_Params;
#define CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_Host_Initialize_Params, pHostObject)

typedef struct CUpti_Profiler_Host_Deinitialize_Params {
	size_t structSize;
	void *pPriv;
	CUpti_Profiler_Host_Object *pHostObject;
} CUpti_Profiler_Host_Deinitialize_Params;
#define CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_Host_Deinitialize_Params, pHostObject)

typedef struct CUpti_Profiler_Host_GetMetricProperties_Params {
	size_t structSize;
	void *pPriv;
	CUpti_Profiler_Host_Object *pHostObject;
	const char *pMetricName;
	const char *pDescription;
	const char *pHwUnit;
	const char *pDimUnit;
	int metricType;           /* CUpti_MetricType */
} CUpti_Profiler_Host_GetMetricProperties_Params;
#define CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_Host_GetMetricProperties_Params, metricType)

typedef struct CUpti_Profiler_Host_EvaluateToGpuValues_Params {
	size_t structSize;
	void *pPriv;
	CUpti_Profiler_Host_Object *pHostObject;
	const uint8_t *pCounterDataImage;
	size_t counterDataImageSize;
	size_t rangeIndex;
	const char **ppMetricNames;
	size_t numMetrics;
	double *pMetricValues;
} CUpti_Profiler_Host_EvaluateToGpuValues_Params;
#define CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_Host_EvaluateToGpuValues_Params, pMetricValues)

typedef struct CUpti_Profiler_Host_ConfigAddMetrics_Params {
	size_t structSize;
	void *pPriv;
	CUpti_Profiler_Host_Object *pHostObject;
	const char **ppMetricNames;
	size_t numMetrics;
} CUpti_Profiler_Host_ConfigAddMetrics_Params;
#define CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics)

typedef struct CUpti_Profiler_Host_GetConfigImageSize_Params {
	size_t structSize;
	void *pPriv;
	CUpti_Profiler_Host_Object *pHostObject;
	size_t configImageSize;
} CUpti_Profiler_Host_GetConfigImageSize_Params;
#define CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_Host_GetConfigImageSize_Params, configImageSize)

typedef struct CUpti_Profiler_Host_GetConfigImage_Params {
	size_t structSize;
	void *pPriv;
	CUpti_Profiler_Host_Object *pHostObject;
	size_t configImageSize;
	uint8_t *pConfigImage;
} CUpti_Profiler_Host_GetConfigImage_Params;
#define CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage)

typedef struct CUpti_Profiler_Host_GetNumOfPasses_Params {
	size_t structSize;
	void *pPriv;
	size_t configImageSize;
	uint8_t *pConfigImage;
	size_t numOfPasses;
} CUpti_Profiler_Host_GetNumOfPasses_Params;
#define CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses)

/* ---- cupti_range_profiler.h ---- */

typedef struct CUpti_RangeProfiler_Object CUpti_RangeProfiler_Object;

typedef struct CUpti_RangeProfiler_SetConfig_Params {
	size_t structSize;
	void *pPriv;
	CUpti_RangeProfiler_Object *pRangeProfilerObject;
	size_t configSize;
	const uint8_t *pConfig;
	size_t counterDataImageSize;
	uint8_t *pCounterDataImage;
	int range;                /* CUpti_ProfilerRange */
	int replayMode;           /* CUpti_ProfilerReplayMode */
	size_t maxRangesPerPass;
	uint16_t numNestingLevels;
	uint16_t minNestingLevel;
	size_t passIndex;
	uint16_t targetNestingLevel;
} CUpti_RangeProfiler_SetConfig_Params;
#define CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_RangeProfiler_SetConfig_Params, targetNestingLevel)

typedef struct CUpti_RangeProfiler_Enable_Params {
	size_t structSize;
	void *pPriv;
	CUcontext ctx;
	CUpti_RangeProfiler_Object *pRangeProfilerObject;
} CUpti_RangeProfiler_Enable_Params;
#define CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_RangeProfiler_Enable_Params, pRangeProfilerObject)

typedef struct CUpti_RangeProfiler_Disable_Params {
	size_t structSize;
	void *pPriv;
	CUpti_RangeProfiler_Object *pRangeProfilerObject;
} CUpti_RangeProfiler_Disable_Params;
#define CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_RangeProfiler_Disable_Params, pRangeProfilerObject)

typedef struct CUpti_RangeProfiler_Start_Params {
	size_t structSize;
	void *pPriv;
	CUpti_RangeProfiler_Object *pRangeProfilerObject;
} CUpti_RangeProfiler_Start_Params;
#define CUpti_RangeProfiler_Start_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_RangeProfiler_Start_Params, pRangeProfilerObject)

typedef struct CUpti_RangeProfiler_Stop_Params {
	size_t structSize;
	void *pPriv;
	CUpti_RangeProfiler_Object *pRangeProfilerObject;
	size_t passIndex;
	size_t targetNestingLevel;
	uint8_t isAllPassSubmitted;
} CUpti_RangeProfiler_Stop_Params;
#define CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_RangeProfiler_Stop_Params, isAllPassSubmitted)

typedef struct CUpti_RangeProfiler_DecodeData_Params {
	size_t structSize;
	void *pPriv;
	CUpti_RangeProfiler_Object *pRangeProfilerObject;
	size_t numOfRangeDropped;
} CUpti_RangeProfiler_DecodeData_Params;
#define CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_RangeProfiler_DecodeData_Params, numOfRangeDropped)

typedef struct CUpti_RangeProfiler_GetCounterDataSize_Params {
	size_t structSize;
	void *pPriv;
	CUpti_RangeProfiler_Object *pRangeProfilerObject;
	const char **pMetricNames;
	size_t numMetrics;
	size_t maxNumOfRanges;
	uint32_t maxNumRangeTreeNodes;
	size_t counterDataSize;
} CUpti_RangeProfiler_GetCounterDataSize_Params;
#define CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_RangeProfiler_GetCounterDataSize_Params, counterDataSize)

typedef struct CUpti_RangeProfiler_CounterDataImage_Initialize_Params {
	size_t structSize;
	void *pPriv;
	CUpti_RangeProfiler_Object *pRangeProfilerObject;
	size_t counterDataSize;
	uint8_t *pCounterData;
} CUpti_RangeProfiler_CounterDataImage_Initialize_Params;
#define CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, pCounterData)

typedef struct CUpti_RangeProfiler_GetCounterDataInfo_Params {
	size_t structSize;
	void *pPriv;
	const uint8_t *pCounterDataImage;
	size_t counterDataImageSize;
	size_t numTotalRanges;
} CUpti_RangeProfiler_GetCounterDataInfo_Params;
#define CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE \
	CUPTI_PROFILER_STRUCT_SIZE(CUpti_RangeProfiler_GetCounterDataInfo_Params, numTotalRanges)


/* ---- cupti_activity.h: kernel records (kclock.c) ---- */

/* CUpti_ActivityKind, CUpti_ActivityFlag */
#define CUPTI_ACTIVITY_KIND_KERNEL 3
#define CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL 10
#define CUPTI_ACTIVITY_FLAG_FLUSH_FORCED 1
#define CUPTI_ERROR_MAX_LIMIT_REACHED 12

/* The leading fields of CUpti_ActivityKernel4 through CUpti_ActivityKernel10
 * (the record for both kernel kinds): every version keeps them at these
 * offsets and adds its new fields after name. Records are 8-byte aligned. */
typedef struct cupti_kernel_record {
	int32_t kind;                   /* CUPTI_ACTIVITY_KIND_KERNEL, ... */
	uint8_t cache_config, shared_memory_config;
	uint16_t registers_per_thread;
	int32_t partitioned_requested, partitioned_executed;
	uint64_t start, end, completed; /* ns, the GPU's timestamps */
	uint32_t device_id, context_id, stream_id;
	int32_t grid[3], block[3];
	int32_t static_shared, dynamic_shared;
	uint32_t local_per_thread, local_total;
	uint32_t correlation_id;
	int64_t grid_id;
	const char *name;               /* the kernel's symbol (mangled) */
} cupti_kernel_record;
_Static_assert(offsetof(cupti_kernel_record, start) == 16, "CUpti_ActivityKernel: start");
_Static_assert(offsetof(cupti_kernel_record, end) == 24, "CUpti_ActivityKernel: end");
_Static_assert(offsetof(cupti_kernel_record, correlation_id) == 92, "CUpti_ActivityKernel: correlationId");
_Static_assert(offsetof(cupti_kernel_record, name) == 104, "CUpti_ActivityKernel: name");

/* Copies: CUPTI_ACTIVITY_KIND_MEMCPY. The leading fields of
 * CUpti_ActivityMemcpy through CUpti_ActivityMemcpy6, at the same offsets in
 * every version. */
#define CUPTI_ACTIVITY_KIND_MEMCPY 1
#define CUPTI_ACTIVITY_MEMCPY_KIND_HTOD 1
#define CUPTI_ACTIVITY_MEMCPY_KIND_DTOH 2
typedef struct cupti_memcpy_record {
	int32_t kind;                   /* CUPTI_ACTIVITY_KIND_MEMCPY */
	uint8_t copy_kind;              /* CUPTI_ACTIVITY_MEMCPY_KIND_* */
	uint8_t src_kind, dst_kind, flags;
	uint64_t bytes;
	uint64_t start, end;            /* ns, the GPU's timestamps */
	uint32_t device_id, context_id, stream_id;
} cupti_memcpy_record;
_Static_assert(offsetof(cupti_memcpy_record, bytes) == 8, "CUpti_ActivityMemcpy: bytes");
_Static_assert(offsetof(cupti_memcpy_record, start) == 16, "CUpti_ActivityMemcpy: start");
_Static_assert(offsetof(cupti_memcpy_record, stream_id) == 40, "CUpti_ActivityMemcpy: streamId");
_Static_assert(offsetof(cupti_kernel_record, stream_id) == 48, "CUpti_ActivityKernel: streamId");

typedef void (*CUpti_BuffersCallbackRequestFunc)(uint8_t **buffer, size_t *size, size_t *maxNumRecords);
typedef void (*CUpti_BuffersCallbackCompleteFunc)(CUcontext context, uint32_t streamId, uint8_t *buffer,
                                                  size_t size, size_t validSize);

#endif
