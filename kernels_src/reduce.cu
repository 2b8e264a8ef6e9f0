// reduce.cu: out[0] = sum(in), from global memory only to float4 + warp shuffles
//
// Lab 000, final project (a reduction in three versions, with a speedup graph),
// the steps of Mark Harris's "Optimizing Parallel Reduction in CUDA" that the
// lab cites, lecture 002 (the block tree) and guide 001 (warp shuffles).
//   reduce_global       version 1, global memory only: each block copies its
//                       BLOCK_SIZE elements to a scratch buffer and halves them
//                       in place there (__syncthreads between steps); thread 0
//                       adds the block's total to out with atomicAdd
//   reduce_interleaved  shared memory, interleaved addressing (Harris #1 and #2):
//                       with DIVERGENT=1, `tid % (2*s) == 0` leaves most lanes of
//                       every warp idle; with DIVERGENT=0, the strided index
//                       2*s*tid keeps warps full but lands many lanes on one bank
//   reduce_shared       version 2, sequential addressing (Harris #3): active
//                       threads are contiguous, no divergence inside a warp,
//                       no bank conflicts
//   reduce_first_add    Harris #4: each thread adds two elements while loading,
//                       half the blocks, no idle threads in the first step
//   reduce_warp         version 3: each thread sums float4 loads in registers
//                       over a grid-stride loop, warps reduce with __shfl_down_sync,
//                       one shared slot per warp, one atomicAdd per block
// One atomicAdd per block: with one element per thread that is N / BLOCK_SIZE
// (262144) additions to one address, which the L2 can only perform one after
// the other; at that count they may take about as long as reading the data.
// Kernels that give each block more elements issue fewer: try
// `set BLOCK_SIZE=1024` and see which kernels care.
// Tolerance 1e-4 relative, for float partial sums checked against a double
// sum. The inputs are uniform in [-1, 1], so the total is a random walk
// (~sqrt(N/3) ~ 4700 for 64M elements; with cuplay's seed it is -10170.6)
// and the relative error is a rounding error over that small |sum|.
// Simulated with cuplay's data: 6e-6 for the one-element-per-thread kernels
// (262144 float atomicAdds into a running sum in the thousands; 2e-5 in the
// worst of several random atomic orders), 1.4e-6 for reduce_warp. At small N
// the same holds: 2e-6 or better at N = 1000, 4097, 65537.
// Try: `run all` (the speedup graph), `set DIVERGENT=0`, `metrics reduce_interleaved`
// (shared bank conflicts), `set BLOCK_SIZE=128`.
//@ define BLOCK_SIZE = 256
//@ define DIVERGENT = 1
//@ param  N = 67108864                 // 2^26 floats: 256 MB
//@ buffer in   float[N] random
//@ buffer work float[N] zero           // scratch, used by reduce_global only
//@ buffer out  float[1] zero output    // reset before every launch: atomics add to 0
//@ grid  cdiv(N, BLOCK_SIZE)
//@ block BLOCK_SIZE
//@ bytes N * 4                         // the minimum: read every element once
//@ check out = sum(in) tol 1e-4
//@ kernel reduce_first_add grid cdiv(N, 2 * BLOCK_SIZE)
//@ kernel reduce_warp grid min(SM_COUNT * (2048 / BLOCK_SIZE), cdiv(N, 4 * BLOCK_SIZE))

static_assert(BLOCK_SIZE >= 32 && BLOCK_SIZE <= 1024 && (BLOCK_SIZE & (BLOCK_SIZE - 1)) == 0,
              "BLOCK_SIZE must be a power of two from 32 to 1024");

// Version 1: global memory only. Block b sums elements b*BLOCK_SIZE .. +BLOCK_SIZE-1
// as a tree in work[] (its own slice of it), so `in` is left untouched. Every
// step reads and writes global memory; __syncthreads makes each step's writes
// visible to the whole block. Elements past N are simply never added.
__global__ void reduce_global(const float *__restrict__ in, float *work, float *out, int N)
{
	const unsigned tid = threadIdx.x;
	const long base = (long)blockIdx.x * BLOCK_SIZE;
	const long i = base + tid;
	if (i < N)
		work[i] = in[i];
	__syncthreads();
	for (unsigned s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
		if (tid < s && i + s < N)
			work[i] += work[i + s];
		__syncthreads();
	}
	if (tid == 0)
		atomicAdd(out, work[base]);
}

// Shared memory, interleaved addressing. At step s, element 2*s*k takes in
// element 2*s*k + s.
__global__ void reduce_interleaved(const float *__restrict__ in, float *out, int N)
{
	__shared__ float sdata[BLOCK_SIZE];
	const unsigned tid = threadIdx.x;
	const long i = (long)blockIdx.x * BLOCK_SIZE + tid;
	sdata[tid] = i < N ? in[i] : 0.0f;
	__syncthreads();
	for (unsigned s = 1; s < BLOCK_SIZE; s *= 2) {
#if DIVERGENT
		// Harris #1: thread tid works when tid is a multiple of 2*s. At s = 1
		// half the lanes of each warp idle, at s = 16 all but one.
		if (tid % (2 * s) == 0)
			sdata[tid] += sdata[tid + s];
#else
		// Harris #2: the first BLOCK_SIZE/(2*s) threads work, on elements 2*s
		// apart: lanes of a warp pile up on the same banks (2-way at s = 1,
		// up to 16-way).
		const unsigned index = 2 * s * tid;
		if (index < BLOCK_SIZE)
			sdata[index] += sdata[index + s];
#endif
		__syncthreads();
	}
	if (tid == 0)
		atomicAdd(out, sdata[0]);
}

// Version 2: shared memory, sequential addressing. At step s the first s
// threads add the upper half onto the lower half: contiguous, conflict-free.
__global__ void reduce_shared(const float *__restrict__ in, float *out, int N)
{
	__shared__ float sdata[BLOCK_SIZE];
	const unsigned tid = threadIdx.x;
	const long i = (long)blockIdx.x * BLOCK_SIZE + tid;
	sdata[tid] = i < N ? in[i] : 0.0f;
	__syncthreads();
	for (unsigned s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
		if (tid < s)
			sdata[tid] += sdata[tid + s];
		__syncthreads();
	}
	if (tid == 0)
		atomicAdd(out, sdata[0]);
}

// The first addition during the load: block b covers 2*BLOCK_SIZE elements.
__global__ void reduce_first_add(const float *__restrict__ in, float *out, int N)
{
	__shared__ float sdata[BLOCK_SIZE];
	const unsigned tid = threadIdx.x;
	const long i = (long)blockIdx.x * (2 * BLOCK_SIZE) + tid;
	float v = i < N ? in[i] : 0.0f;
	if (i + BLOCK_SIZE < N)
		v += in[i + BLOCK_SIZE];
	sdata[tid] = v;
	__syncthreads();
	for (unsigned s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
		if (tid < s)
			sdata[tid] += sdata[tid + s];
		__syncthreads();
	}
	if (tid == 0)
		atomicAdd(out, sdata[0]);
}

// Sum over the 32 lanes of a warp; lane 0 ends up with the total.
__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
	for (int offset = 16; offset > 0; offset >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, offset);
	return v;
}

// Version 3: registers first. The grid is one wave of blocks; each thread
// sums N / (4 * threads) float4 in a register, the warp folds 32 partial sums
// with shuffles, warp 0 folds the warps' sums, and the block issues a single
// atomicAdd. __launch_bounds__ keeps the thread at 32 registers, so that the
// whole wave (2048 threads per SM) is resident at once.
__global__ void __launch_bounds__(BLOCK_SIZE, BLOCK_SIZE >= 64 ? 2048 / BLOCK_SIZE : 32)
reduce_warp(const float *__restrict__ in, float *out, int N)
{
	__shared__ float warp_sums[BLOCK_SIZE / 32];
	const long tid = (long)blockIdx.x * BLOCK_SIZE + threadIdx.x;
	const long stride = (long)gridDim.x * BLOCK_SIZE;
	const long n4 = N / 4;
	const float4 *in4 = reinterpret_cast<const float4 *>(in);
	float sum = 0.0f;
#pragma unroll 4
	for (long i = tid; i < n4; i += stride) {
		const float4 v = in4[i];
		sum += (v.x + v.y) + (v.z + v.w);
	}
	for (long t = n4 * 4 + tid; t < N; t += stride) // the last N % 4 elements
		sum += in[t];

	sum = warp_sum(sum);
	const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	if (lane == 0)
		warp_sums[warp] = sum;
	__syncthreads();
	if (warp == 0) {
		sum = lane < BLOCK_SIZE / 32 ? warp_sums[lane] : 0.0f;
		sum = warp_sum(sum);
		if (lane == 0)
			atomicAdd(out, sum);
	}
}
