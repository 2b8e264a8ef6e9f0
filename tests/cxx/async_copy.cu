// async_copy.cu: copies to shared memory that run beside the threads: cp.async (PTX), the __pipeline primitives, cuda::pipeline, cuda::barrier, cooperative groups; y = alpha * x a tile at a time
//@ param  n = 1000003           // not a whole number of tiles
//@ param  alpha = 2.5
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   264                   // fewer blocks than tiles: each block takes several, so the stages are reused
//@ block  256
//@ bytes  2 * n * 4
//@ check  y = scale(x, alpha)
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline.h>
namespace cg = cooperative_groups;
/* a __shared__ pipeline state or barrier is set up by init and the
 * pipeline's own code, not by a constructor: nvcc's samples say the same */
#pragma nv_diag_suppress static_var_with_dynamic_init

#define T 256 /* a tile: one element a thread */

// Each thread writes the element its mirror thread copied: what one thread
// reads, another fetched, so the copy must be complete for the whole block.
__device__ void scale_tile(int n, float alpha, const float *tile, int t, float *y)
{
	int j = T - 1 - threadIdx.x, i = t * T + j;
	if (i < n)
		y[i] = alpha * tile[j];
}

__device__ void cp_async4(float *s, const float *g)
{
	asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"((unsigned)__cvta_generic_to_shared(s)), "l"(g)
	             : "memory");
}

// cp.async in PTX, two stages: the next tile is on its way while this one
// is used; wait_group 1 leaves the newest group in flight.
__global__ void cp_async_ptx(int n, float alpha, const float *x, float *y)
{
	__shared__ float buf[2][T];
	int ntiles = (n + T - 1) / T, s = 0;
	int i = blockIdx.x * T + threadIdx.x;
	if (blockIdx.x < ntiles && i < n)
		cp_async4(&buf[0][threadIdx.x], x + i);
	asm volatile("cp.async.commit_group;\n" ::: "memory");
	for (int t = blockIdx.x; t < ntiles; t += gridDim.x, s ^= 1) {
		int next = t + gridDim.x, k = next * T + threadIdx.x;
		if (next < ntiles && k < n)
			cp_async4(&buf[s ^ 1][threadIdx.x], x + k);
		asm volatile("cp.async.commit_group;\n" ::: "memory");
		asm volatile("cp.async.wait_group 1;\n" ::: "memory");
		__syncthreads();
		scale_tile(n, alpha, buf[s], t, y);
		__syncthreads(); /* buf[s] is read before the copy after next overwrites it */
	}
}

// The same through <cuda_pipeline.h>'s primitives.
__global__ void pipeline_primitives(int n, float alpha, const float *x, float *y)
{
	__shared__ float buf[2][T];
	int ntiles = (n + T - 1) / T, s = 0;
	int i = blockIdx.x * T + threadIdx.x;
	if (blockIdx.x < ntiles && i < n)
		__pipeline_memcpy_async(&buf[0][threadIdx.x], x + i, sizeof(float));
	__pipeline_commit();
	for (int t = blockIdx.x; t < ntiles; t += gridDim.x, s ^= 1) {
		int next = t + gridDim.x, k = next * T + threadIdx.x;
		if (next < ntiles && k < n)
			__pipeline_memcpy_async(&buf[s ^ 1][threadIdx.x], x + k, sizeof(float));
		__pipeline_commit();
		__pipeline_wait_prior(1);
		__syncthreads();
		scale_tile(n, alpha, buf[s], t, y);
		__syncthreads();
	}
}

// The bytes of tile t (the last is short).
__device__ size_t tile_bytes(int n, int t)
{
	int left = n - t * T;
	return (size_t)(left < T ? left : T) * sizeof(float);
}

// cuda::memcpy_async into a two-stage cuda::pipeline the whole block
// shares: the block fetches up to two tiles ahead, then waits for the
// oldest.
__global__ void cuda_pipeline(int n, float alpha, const float *x, float *y)
{
	__shared__ float buf[2][T];
	__shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
	cg::thread_block block = cg::this_thread_block();
	cuda::pipeline<cuda::thread_scope_block> pipe = cuda::make_pipeline(block, &state);
	int ntiles = (n + T - 1) / T;
	int mine = blockIdx.x < ntiles ? (ntiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
	int fetched = 0;
	for (int used = 0; used < mine; used++) {
		for (; fetched < mine && fetched < used + 2; fetched++) {
			int t = blockIdx.x + fetched * gridDim.x;
			pipe.producer_acquire();
			cuda::memcpy_async(block, buf[fetched % 2], x + (size_t)t * T, tile_bytes(n, t), pipe);
			pipe.producer_commit();
		}
		pipe.consumer_wait();
		scale_tile(n, alpha, buf[used % 2], blockIdx.x + used * gridDim.x, y);
		pipe.consumer_release();
	}
}

// cuda::memcpy_async completing on a cuda::barrier: arrive_and_wait
// returns once every thread arrived and the copy's bytes landed.
__global__ void cuda_barrier(int n, float alpha, const float *x, float *y)
{
	__shared__ float buf[T];
	__shared__ cuda::barrier<cuda::thread_scope_block> bar;
	cg::thread_block block = cg::this_thread_block();
	if (block.thread_rank() == 0)
		init(&bar, block.size());
	block.sync();
	int ntiles = (n + T - 1) / T;
	for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
		cuda::memcpy_async(block, buf, x + (size_t)t * T, tile_bytes(n, t), bar);
		bar.arrive_and_wait();
		scale_tile(n, alpha, buf, t, y);
		bar.arrive_and_wait(); /* every thread read buf before the next copy */
	}
}

// cooperative_groups::memcpy_async and cg::wait.
__global__ void cg_memcpy_async(int n, float alpha, const float *x, float *y)
{
	__shared__ float buf[T];
	cg::thread_block block = cg::this_thread_block();
	int ntiles = (n + T - 1) / T;
	for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
		cg::memcpy_async(block, buf, x + (size_t)t * T, tile_bytes(n, t));
		cg::wait(block);
		scale_tile(n, alpha, buf, t, y);
		block.sync();
	}
}
