/* cudrv.c: the CUDA driver API through dlopen. */
#include "cudrv.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

cudrv cu;

static void *cu_lib;

/* dlsym's object-pointer result into a function pointer slot. */
#define SYM(field, name) { offsetof(cudrv, field), name, 1 }
#define OPT(field, name) { offsetof(cudrv, field), name, 0 }

static const struct {
	size_t off;
	const char *name;
	int required;
} cu_syms[] = {
	SYM(Init, "cuInit"),
	SYM(DriverGetVersion, "cuDriverGetVersion"),
	SYM(GetErrorName, "cuGetErrorName"),
	SYM(GetErrorString, "cuGetErrorString"),
	SYM(DeviceGetCount, "cuDeviceGetCount"),
	SYM(DeviceGet, "cuDeviceGet"),
	SYM(DeviceGetName, "cuDeviceGetName"),
	SYM(DeviceGetAttribute, "cuDeviceGetAttribute"),
	SYM(DeviceTotalMem, "cuDeviceTotalMem_v2"),
	SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
	SYM(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
	SYM(CtxSetCurrent, "cuCtxSetCurrent"),
	SYM(CtxSynchronize, "cuCtxSynchronize"),
	SYM(MemGetInfo, "cuMemGetInfo_v2"),
	SYM(MemAlloc, "cuMemAlloc_v2"),
	SYM(MemAllocManaged, "cuMemAllocManaged"),
	SYM(MemFree, "cuMemFree_v2"),
	SYM(MemcpyHtoD, "cuMemcpyHtoD_v2"),
	SYM(MemcpyDtoH, "cuMemcpyDtoH_v2"),
	SYM(MemcpyDtoD, "cuMemcpyDtoD_v2"),
	SYM(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2"),
	SYM(MemsetD8, "cuMemsetD8_v2"),
	SYM(MemsetD8Async, "cuMemsetD8Async"),
	SYM(MemsetD32, "cuMemsetD32_v2"),
	SYM(MemsetD32Async, "cuMemsetD32Async"),
	SYM(ModuleLoadData, "cuModuleLoadData"),
	SYM(ModuleUnload, "cuModuleUnload"),
	SYM(ModuleGetFunction, "cuModuleGetFunction"),
	SYM(ModuleGetGlobal, "cuModuleGetGlobal_v2"),
	SYM(FuncSetAttribute, "cuFuncSetAttribute"),
	OPT(FuncGetAttribute, "cuFuncGetAttribute"),
	SYM(LaunchKernel, "cuLaunchKernel"),
	SYM(EventCreate, "cuEventCreate"),
	SYM(EventDestroy, "cuEventDestroy_v2"),
	SYM(EventRecord, "cuEventRecord"),
	SYM(EventSynchronize, "cuEventSynchronize"),
	/* CUDA 12.8+ exports a _v2 (the one cuda.h 13 maps to); older drivers
	 * only the plain one. Same signature. */
	OPT(EventElapsedTime, "cuEventElapsedTime_v2"),
	SYM(StreamSynchronize, "cuStreamSynchronize"),
	SYM(MemHostAlloc, "cuMemHostAlloc"),
	SYM(MemFreeHost, "cuMemFreeHost"),
	SYM(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"),
	SYM(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"),
	SYM(StreamCreate, "cuStreamCreate"),
	SYM(StreamDestroy, "cuStreamDestroy_v2"),
	OPT(CtxSetLimit, "cuCtxSetLimit"),
	OPT(CtxGetLimit, "cuCtxGetLimit"),
	OPT(LaunchKernelEx, "cuLaunchKernelEx"),
	OPT(TensorMapEncodeTiled, "cuTensorMapEncodeTiled"),
	OPT(OccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor"),
	OPT(OccupancyMaxPotentialBlockSize, "cuOccupancyMaxPotentialBlockSize"),
	OPT(StreamBeginCapture, "cuStreamBeginCapture_v2"),
	OPT(StreamEndCapture, "cuStreamEndCapture"),
	OPT(GraphInstantiateWithFlags, "cuGraphInstantiateWithFlags"),
	OPT(GraphLaunch, "cuGraphLaunch"),
	OPT(GraphExecDestroy, "cuGraphExecDestroy"),
	OPT(GraphDestroy, "cuGraphDestroy"),
};

int cu_loaded(void)
{
	return cu_lib != NULL;
}

int cu_load(char **err)
{
	if (cu_lib)
		return 0;
	dlerror();
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *why = dlerror();
		return fail(err, "no CUDA driver found (%s)", why ? why : "libcuda.so.1 not found");
	}
	cudrv tmp;
	memset(&tmp, 0, sizeof tmp);
	for (size_t i = 0; i < ARRAY_LEN(cu_syms); i++) {
		void *p = dlsym(lib, cu_syms[i].name);
		if (!p && cu_syms[i].required) {
			dlclose(lib);
			return fail(err, "CUDA driver too old: no '%s' in libcuda.so.1", cu_syms[i].name);
		}
		/* A function pointer and void * have the same representation on
		 * every platform dlsym exists on; copy the bytes (ISO C forbids the
		 * cast). */
		memcpy((char *)&tmp + cu_syms[i].off, &p, sizeof p);
	}
	if (!tmp.EventElapsedTime) {
		void *p = dlsym(lib, "cuEventElapsedTime");
		if (!p) {
			dlclose(lib);
			return fail(err, "CUDA driver too old: no 'cuEventElapsedTime' in libcuda.so.1");
		}
		memcpy(&tmp.EventElapsedTime, &p, sizeof p);
	}
	cu = tmp;
	cu_lib = lib;
	return 0;
}

const char *cu_errstr(CUresult res)
{
	static char ring[4][256];
	static int next;
	char *buf = ring[next];
	next = (next + 1) % 4;
	const char *name = NULL, *desc = NULL;
	if (cu_lib) {
		if (cu.GetErrorName(res, &name) != CUDA_SUCCESS)
			name = NULL;
		if (cu.GetErrorString(res, &desc) != CUDA_SUCCESS)
			desc = NULL;
	}
	if (name && desc)
		snprintf(buf, 256, "%s (%s)", name, desc);
	else if (name)
		snprintf(buf, 256, "%s", name);
	else
		snprintf(buf, 256, "CUDA error %d", res);
	return buf;
}

int cu_is_sticky(CUresult res)
{
	switch (res) {
	case CUDA_ERROR_DEINITIALIZED:
	case CUDA_ERROR_ECC_UNCORRECTABLE:
	case CUDA_ERROR_NVLINK_UNCORRECTABLE:
	case CUDA_ERROR_CONTAINED:
	case CUDA_ERROR_ILLEGAL_ADDRESS:
	case CUDA_ERROR_LAUNCH_TIMEOUT:
	case CUDA_ERROR_CONTEXT_IS_DESTROYED:
	case CUDA_ERROR_ASSERT:
	case CUDA_ERROR_HARDWARE_STACK_ERROR:
	case CUDA_ERROR_ILLEGAL_INSTRUCTION:
	case CUDA_ERROR_MISALIGNED_ADDRESS:
	case CUDA_ERROR_INVALID_ADDRESS_SPACE:
	case CUDA_ERROR_INVALID_PC:
	case CUDA_ERROR_LAUNCH_FAILED:
	case CUDA_ERROR_TENSOR_MEMORY_LEAK:
	case CUDA_ERROR_UNKNOWN:
		return 1;
	default:
		return 0;
	}
}

_Static_assert(sizeof(CUlaunchAttribute) == 72, "CUlaunchAttribute as cuda.h lays it out");
_Static_assert(sizeof(CUlaunchConfig) == 56, "CUlaunchConfig as cuda.h lays it out");
