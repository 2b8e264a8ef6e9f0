// dot.cu: out[0] = a . b: shared-memory tree + atomicAdd (the guide's) vs float4 + warp shuffles
//
// Guide 001 ("Shared Memory Tiling": dot_product; "Warp-Level Primitives":
// warp_reduce_sum, block_reduce_sum) and lecture 002 (the dot product, whose
// per-block results the slides finish on the CPU; here atomicAdd finishes them).
//   dot_shared_atomic  the guide's dot_product: a grid-stride loop of scalar
//                      products into a register, a tree over BLOCK_SIZE values in
//                      shared memory, one atomicAdd per block
//   dot_warp           float4 loads, the same grid-stride loop, and the guide's
//                      block_reduce_sum: shuffles inside each warp, one shared
//                      slot per warp, one atomicAdd per block
// Both run one wave of blocks, 2048 threads per SM, all resident at once
// (__launch_bounds__ holds each thread to the 32 registers that allows). The
// differences: 4x fewer load instructions, and one barrier instead of
// log2(BLOCK_SIZE) + 1.
// Tolerance 1e-4 relative: a and b are uniform in [-1, 1], so the 64M products
// largely cancel (~sqrt(N)/3 ~ 2700; 3476.5 with cuplay's seed). Simulated
// float error with cuplay's data: 2e-7 or less at 64M, up to 3e-5 at N = 200,
// where the dot product happens to be 0.012.
// Try: `run all`, `set BLOCK_SIZE=1024`, `set N=1000` (a few partial blocks),
// `metrics` (both should sit near the DRAM roof).
//@ define BLOCK_SIZE = 256
//@ param  N = 67108864                 // 2^26 floats: 256 MB per vector
//@ buffer a   float[N] random
//@ buffer b   float[N] random
//@ buffer out float[1] zero output     // reset before every launch: atomics add to 0
//@ grid  min(SM_COUNT * (2048 / BLOCK_SIZE), cdiv(N, BLOCK_SIZE))
//@ block BLOCK_SIZE
//@ bytes 2 * N * 4                     // read a and b once
//@ flops 2 * N
//@ check out = dot(a, b) tol 1e-4
//@ kernel dot_warp grid min(SM_COUNT * (2048 / BLOCK_SIZE), cdiv(N, 4 * BLOCK_SIZE))

static_assert(BLOCK_SIZE >= 32 && BLOCK_SIZE <= 1024 && (BLOCK_SIZE & (BLOCK_SIZE - 1)) == 0,
              "BLOCK_SIZE must be a power of two from 32 to 1024");

// The guide's dot_product, with cache[] sized by BLOCK_SIZE.
__global__ void __launch_bounds__(BLOCK_SIZE, BLOCK_SIZE >= 64 ? 2048 / BLOCK_SIZE : 32)
dot_shared_atomic(const float *__restrict__ a, const float *__restrict__ b,
                  float *out, int N)
{
	__shared__ float cache[BLOCK_SIZE];
	const unsigned tid = threadIdx.x;
	const long stride = (long)gridDim.x * BLOCK_SIZE;
	float partial = 0.0f;
	for (long i = (long)blockIdx.x * BLOCK_SIZE + tid; i < N; i += stride)
		partial += a[i] * b[i];
	cache[tid] = partial;
	__syncthreads();
	for (unsigned s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
		if (tid < s)
			cache[tid] += cache[tid + s];
		__syncthreads();
	}
	if (tid == 0)
		atomicAdd(out, cache[0]);
}

// The guide's warp_reduce_sum: after it, lane 0 holds the warp's total.
__device__ __forceinline__ float warp_reduce_sum(float v)
{
#pragma unroll
	for (int offset = 16; offset > 0; offset >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, offset);
	return v;
}

__global__ void __launch_bounds__(BLOCK_SIZE, BLOCK_SIZE >= 64 ? 2048 / BLOCK_SIZE : 32)
dot_warp(const float *__restrict__ a, const float *__restrict__ b,
         float *out, int N)
{
	__shared__ float warp_sums[BLOCK_SIZE / 32];
	const long tid = (long)blockIdx.x * BLOCK_SIZE + threadIdx.x;
	const long stride = (long)gridDim.x * BLOCK_SIZE;
	const long n4 = N / 4;
	const float4 *a4 = reinterpret_cast<const float4 *>(a);
	const float4 *b4 = reinterpret_cast<const float4 *>(b);
	float sum = 0.0f;
#pragma unroll 4
	for (long i = tid; i < n4; i += stride) {
		const float4 x = a4[i], y = b4[i];
		sum += (x.x * y.x + x.y * y.y) + (x.z * y.z + x.w * y.w);
	}
	for (long t = n4 * 4 + tid; t < N; t += stride) // the last N % 4 elements
		sum += a[t] * b[t];

	// The guide's block_reduce_sum.
	sum = warp_reduce_sum(sum);
	const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0)
		warp_sums[warp] = sum;
	__syncthreads();
	if (warp == 0) {
		sum = lane < BLOCK_SIZE / 32 ? warp_sums[lane] : 0.0f;
		sum = warp_reduce_sum(sum);
		if (lane == 0)
			atomicAdd(out, sum);
	}
}
