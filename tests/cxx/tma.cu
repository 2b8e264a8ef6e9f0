// tma.cu: TMA (`//@ tensormap`, sm_90): a tile copied in by cp.async.bulk.tensor with an mbarrier, and out again
//@ param  M = 1000              // rows: not a multiple of the box
//@ param  K = 300               // columns: a row of 1200 bytes (TMA needs strides in 16-byte units)
//@ buffer A float[M*K] random
//@ buffer B float[M*K] poison output
//@ tensormap tmA = A[M, K] box 32, 32
//@ tensormap tmB = B[M, K] box 32, 32
//@ tensormap rowA = A[M, K] box 16, 32
//@ tensormap swA = A[M, K] box 16, 32 swizzle 128B
//@ tensormap swB = B[M, K] box 16, 32 swizzle 128B
//@ grid   cdiv(K, 32), cdiv(M, 32)
//@ block  128
//@ bytes  2 * M * K * 4
//@ check  B = copy(A)
//@ kernel tma_load grid cdiv(K, 32), cdiv(M, 16)
//@ kernel tma_swizzled grid cdiv(K, 32), cdiv(M, 16)
#include <cuda.h> // CUtensorMap

__device__ unsigned smem_addr(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}

// One thread starts the copy of the box at (x = column, y = row) into
// tile; every thread waits for its bytes on the mbarrier (phase 0).
__device__ void load_box(const CUtensorMap *map, void *tile, unsigned long long *bar, int x, int y, unsigned bytes)
{
	if (threadIdx.x == 0) {
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smem_addr(bar)));
		asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
		asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes)
		             : "memory");
		asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
		             " [%0], [%1, {%2, %3}], [%4];\n"
		             ::"r"(smem_addr(tile)), "l"(map), "r"(x), "r"(y), "r"(smem_addr(bar))
		             : "memory");
	}
	__syncthreads(); /* the barrier is initialised before anyone waits on it */
	asm volatile("{\n"
	             ".reg .pred done;\n"
	             "wait:\n"
	             "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
	             "@!done bra wait;\n"
	             "}\n" ::"r"(smem_addr(bar))
	             : "memory");
}

// The box goes back out from shared memory; TMA leaves out what falls
// outside B (the last rows and columns).
__device__ void store_box(const CUtensorMap *map, const void *tile, int x, int y)
{
	asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
	__syncthreads();
	if (threadIdx.x == 0) {
		asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];\n"
		             ::"l"(map), "r"(x), "r"(y), "r"(smem_addr(tile))
		             : "memory");
		asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
		asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
	}
}

// In and out by TMA: B = A, a 32x32 box a block.
__global__ void tma_copy(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB)
{
	__shared__ __align__(128) float tile[32 * 32];
	__shared__ __align__(8) unsigned long long bar;
	int x = blockIdx.x * 32, y = blockIdx.y * 32;
	load_box(&tmA, tile, &bar, x, y, sizeof tile);
	store_box(&tmB, tile, x, y);
}

// In by TMA (a 16-row box), out by the threads: what TMA wrote to shared
// memory is the tile, row-major, zeros past A's edge.
__global__ void tma_load(int M, int K, const __grid_constant__ CUtensorMap rowA, float *B)
{
	__shared__ __align__(128) float tile[16 * 32];
	__shared__ __align__(8) unsigned long long bar;
	int x = blockIdx.x * 32, y = blockIdx.y * 16;
	load_box(&rowA, tile, &bar, x, y, sizeof tile);
	for (int e = threadIdx.x; e < 16 * 32; e += blockDim.x) {
		int r = y + e / 32, c = x + e % 32;
		if (r < M && c < K)
			B[(size_t)r * K + c] = tile[e];
	}
}

// Swizzled in and out (128B: each 16-byte chunk of a 128-byte row moves by
// the row's index): the same map both ways gives the tile back unchanged.
__global__ void tma_swizzled(const __grid_constant__ CUtensorMap swA, const __grid_constant__ CUtensorMap swB)
{
	__shared__ __align__(1024) float tile[16 * 32];
	__shared__ __align__(8) unsigned long long bar;
	int x = blockIdx.x * 32, y = blockIdx.y * 16;
	load_box(&swA, tile, &bar, x, y, sizeof tile);
	store_box(&swB, tile, x, y);
}
