/* cudrv.h: the few CUDA driver API entry points cuplay uses, loaded with
 * dlopen("libcuda.so.1") at run time; never linked, <cuda.h> not included.
 *
 * Types, enums and constants below are copied by value from cuda.h. Every
 * pointer in `cu` is set by cu_load(); call it first (it is idempotent). */
#ifndef CUPLAY_CUDRV_H
#define CUPLAY_CUDRV_H

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_DEINITIALIZED 4
#define CUDA_ERROR_STUB_LIBRARY 34
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_INVALID_DEVICE 101
#define CUDA_ERROR_ECC_UNCORRECTABLE 214
#define CUDA_ERROR_NVLINK_UNCORRECTABLE 220
#define CUDA_ERROR_CONTAINED 226
#define CUDA_ERROR_NOT_FOUND 500
#define CUDA_ERROR_NOT_READY 600
#define CUDA_ERROR_ILLEGAL_ADDRESS 700
#define CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES 701
#define CUDA_ERROR_LAUNCH_TIMEOUT 702
#define CUDA_ERROR_CONTEXT_IS_DESTROYED 709
#define CUDA_ERROR_ASSERT 710
#define CUDA_ERROR_HARDWARE_STACK_ERROR 714
#define CUDA_ERROR_ILLEGAL_INSTRUCTION 715
#define CUDA_ERROR_MISALIGNED_ADDRESS 716
#define CUDA_ERROR_INVALID_ADDRESS_SPACE 717
#define CUDA_ERROR_INVALID_PC 718
#define CUDA_ERROR_LAUNCH_FAILED 719
#define CUDA_ERROR_TENSOR_MEMORY_LEAK 721
#define CUDA_ERROR_UNKNOWN 999

/* CUdevice_attribute */
enum {
	CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
	CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
	CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
	CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
	CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
	CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
	CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
	CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
	CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,
	CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
	CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
	CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
	CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
	CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = 83,
	CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
	CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106
};

/* CUfunction_attribute */
enum {
	CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
	CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
	CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
	CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
	CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
	CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
};

/* CUlimit */
enum { CU_LIMIT_PRINTF_FIFO_SIZE = 0x01 };

/* cuLaunchKernelEx's configuration, with one kind of attribute: the
 * thread block cluster's shape (CUDA 12+) */
enum { CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4 };
typedef struct CUlaunchAttribute {
	int id;
	char pad_[4];
	union {
		char pad[64];
		struct { unsigned int x, y, z; } clusterDim;
	} value;
} CUlaunchAttribute;
/* A TMA tensor map (cuda.h's CUtensorMap: 128 opaque bytes, 64-byte
 * aligned), made by cuTensorMapEncodeTiled (sm_90). */
typedef struct CUtensorMap {
	_Alignas(64) unsigned long long opaque[16];
} CUtensorMap;

typedef struct CUlaunchConfig {
	unsigned int gridDimX, gridDimY, gridDimZ;
	unsigned int blockDimX, blockDimY, blockDimZ;
	unsigned int sharedMemBytes;
	CUstream hStream;
	CUlaunchAttribute *attrs;
	unsigned int numAttrs;
} CUlaunchConfig;

#define CU_MEM_ATTACH_GLOBAL 0x1
#define CU_EVENT_DEFAULT 0x0
#define CU_EVENT_DISABLE_TIMING 0x2
#define CU_STREAM_DEFAULT 0x0
#define CU_STREAM_CAPTURE_MODE_RELAXED 2

/* The entry points, by the names libcuda exports (the _v2 ones where cuda.h
 * maps the plain name to a versioned symbol). */
typedef struct cudrv {
	CUresult (*Init)(unsigned int flags);
	CUresult (*DriverGetVersion)(int *version);
	CUresult (*GetErrorName)(CUresult res, const char **s);
	CUresult (*GetErrorString)(CUresult res, const char **s);
	CUresult (*DeviceGetCount)(int *count);
	CUresult (*DeviceGet)(CUdevice *dev, int ordinal);
	CUresult (*DeviceGetName)(char *name, int len, CUdevice dev);
	CUresult (*DeviceGetAttribute)(int *value, int attrib, CUdevice dev);
	CUresult (*DeviceTotalMem)(size_t *bytes, CUdevice dev);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
	CUresult (*DevicePrimaryCtxRelease)(CUdevice dev);
	CUresult (*CtxSetCurrent)(CUcontext ctx);
	CUresult (*CtxSynchronize)(void);
	CUresult (*MemGetInfo)(size_t *free_bytes, size_t *total_bytes);
	CUresult (*MemAlloc)(CUdeviceptr *p, size_t bytes);
	CUresult (*MemAllocManaged)(CUdeviceptr *p, size_t bytes, unsigned int flags);
	CUresult (*MemFree)(CUdeviceptr p);
	CUresult (*MemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
	CUresult (*MemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
	CUresult (*MemcpyDtoD)(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
	CUresult (*MemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s);
	CUresult (*MemsetD8)(CUdeviceptr dst, unsigned char v, size_t n);
	CUresult (*MemsetD8Async)(CUdeviceptr dst, unsigned char v, size_t n, CUstream s);
	CUresult (*MemsetD32)(CUdeviceptr dst, unsigned int v, size_t n);
	CUresult (*MemsetD32Async)(CUdeviceptr dst, unsigned int v, size_t n, CUstream s);
	CUresult (*ModuleLoadData)(CUmodule *mod, const void *image);
	CUresult (*ModuleUnload)(CUmodule mod);
	CUresult (*ModuleGetFunction)(CUfunction *fn, CUmodule mod, const char *name);
	CUresult (*ModuleGetGlobal)(CUdeviceptr *p, size_t *bytes, CUmodule mod, const char *name);
	CUresult (*FuncSetAttribute)(CUfunction fn, int attrib, int value);
	CUresult (*FuncGetAttribute)(int *value, int attrib, CUfunction fn);
	CUresult (*LaunchKernel)(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
	                         unsigned int bx, unsigned int by, unsigned int bz,
	                         unsigned int smem, CUstream s, void **params, void **extra);
	CUresult (*EventCreate)(CUevent *ev, unsigned int flags);
	CUresult (*EventDestroy)(CUevent ev);
	CUresult (*EventRecord)(CUevent ev, CUstream s);
	CUresult (*EventSynchronize)(CUevent ev);
	CUresult (*EventElapsedTime)(float *ms, CUevent start, CUevent end);
	CUresult (*StreamSynchronize)(CUstream s);
	/* host memory, copies on a stream and streams: runs on host data */
	CUresult (*MemHostAlloc)(void **p, size_t bytes, unsigned int flags);
	CUresult (*MemFreeHost)(void *p);
	CUresult (*MemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t bytes, CUstream s);
	CUresult (*MemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes, CUstream s);
	CUresult (*StreamCreate)(CUstream *s, unsigned int flags);
	CUresult (*StreamDestroy)(CUstream s);
	/* optional (NULL when the driver lacks them): limits, launches with
	 * attributes (clusters), the occupancy API */
	CUresult (*CtxSetLimit)(int limit, size_t value);
	CUresult (*CtxGetLimit)(size_t *value, int limit);
	CUresult (*LaunchKernelEx)(const CUlaunchConfig *config, CUfunction f, void **params, void **extra);
	/* CUDA 12+: a tensor map for TMA; the enums are int-sized, as in cuda.h */
	CUresult (*TensorMapEncodeTiled)(CUtensorMap *map, int dtype, unsigned int rank, void *addr,
	                                 const unsigned long long *dims, const unsigned long long *strides,
	                                 const unsigned int *box, const unsigned int *estrides, int interleave,
	                                 int swizzle, int l2promo, int oobfill);
	CUresult (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, CUfunction fn, int block_size,
	                                                      size_t dyn_smem);
	CUresult (*OccupancyMaxPotentialBlockSize)(int *min_grid, int *block_size, CUfunction fn,
	                                           size_t (*smem_of_block)(int block_size), size_t dyn_smem,
	                                           int block_limit);
	/* CUDA graphs: a stream's launches captured, instantiated and launched whole */
	CUresult (*StreamBeginCapture)(CUstream s, int mode);
	CUresult (*StreamEndCapture)(CUstream s, CUgraph *g);
	CUresult (*GraphInstantiateWithFlags)(CUgraphExec *e, CUgraph g, unsigned long long flags);
	CUresult (*GraphLaunch)(CUgraphExec e, CUstream s);
	CUresult (*GraphExecDestroy)(CUgraphExec e);
	CUresult (*GraphDestroy)(CUgraph g);
} cudrv;

extern cudrv cu;

/* Loads libcuda.so.1 and resolves every entry point. 0, or -1 with *err:
 * "no CUDA driver found (DLERROR)" or "CUDA driver too old: no 'cuX'". */
int cu_load(char **err);
/* 1 once cu_load succeeded. */
int cu_loaded(void);

/* "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)".
 * Points to a static buffer, valid until the next call. */
const char *cu_errstr(CUresult res);

/* 1 for errors that leave the context unusable (the process must end). */
int cu_is_sticky(CUresult res);

#endif
