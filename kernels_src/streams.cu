// streams.cu: data on the host: copies in and out, pageable vs pinned, and a run cut in chunks over streams
//
// Lecture 002 ("Opérations asynchrones": cudaMemcpyAsync, streams, pinned
// memory) and guide 001 ("PCIe bandwidth is the bottleneck; overlap transfers
// with computation using streams and pinned memory"). Every buffer marked
// `host` lives in host memory: a run copies it to the GPU, runs the kernel and
// copies the outputs back, and the time is the whole of it. `host pinned` is
// page-locked memory (cudaMallocHost), which the copy engines read and write
// directly; plain `host` is pageable (malloc): the driver copies it through a
// page-locked staging buffer of its own, and the copy cannot overlap a kernel.
// `//@ streams STREAMS split N` cuts each run in STREAMS chunks of N, each on
// its own stream: copy its slice in, run the kernel on it, copy it out. The
// kernels are ordinary: in a chunk, their pointers start at the chunk's slice
// and N is the chunk's size (the grid too is computed with it).
//   vadd           c = a + b on pinned memory: three copies, a kernel too short
//                  to hide anything behind; what streams buy here is copies in
//                  and out at once (the link carries both ways)
//   vadd_pageable  the same on pageable memory
//   saxpy_iter     y = alpha * x + y, in ITERS steps of alpha / ITERS: ITERS
//                  dependent FMAs per element. With ITERS = 6000, 1e11 FMAs:
//                  3 to 4 ms at an H100's or H200's FP32 rate (3.3e13 FMA/s),
//                  about as long as its copies over PCIe (x and y in, y out:
//                  192 MiB, 4 ms at 50 GB/s, 8 ms at 25); ITERS = 300 makes
//                  it a twentieth of that
//   dot_chunks     the lecture's dot product over the chunks: each chunk's
//                  blocks add their partial sums into one device result
// Tolerances: saxpy_iter adds the same step ITERS times, so its roundings
// add up rather than cancel: a relative L2 error of 6.6e-5 at ITERS = 6000
// (fmaf on the CPU, which the GPU's FMA matches); 1e-3 leaves a margin up to
// ITERS = 60000. dot: see dot.cu.
// Try: `run vadd vadd_pageable`; `sweep STREAMS=1,2,4,8 saxpy_iter` and
// `timeline` after each run; `set N=1000003` with `set STREAMS=3` (uneven
// chunks: still correct); `set ITERS=300` (the kernel hides almost nothing).
//@ define BLOCK_SIZE = 256
//@ param  N = 16777216                 // 2^24 floats: 64 MiB a buffer
//@ param  STREAMS = 1
//@ param  ITERS = 6000
//@ param  alpha = 2.0
//@ buffer a   float[N] random host pinned
//@ buffer b   float[N] random host pinned
//@ buffer c   float[N] poison output host pinned
//@ buffer pa  float[N] random host
//@ buffer pb  float[N] random host
//@ buffer pc  float[N] poison output host
//@ buffer x   float[N] random host pinned
//@ buffer y   float[N] random output host pinned
//@ buffer sum float[1] zero output       // on the device: every chunk adds to it
//@ grid  cdiv(N, BLOCK_SIZE)
//@ block BLOCK_SIZE
//@ streams STREAMS split N
//@ check c = add(a, b)
//@ kernel vadd_pageable check pc = add(pa, pb)
//@ kernel saxpy_iter check y = saxpy(alpha, x, y) tol 1e-3
//@ kernel dot_chunks grid min(SM_COUNT * (2048 / BLOCK_SIZE), cdiv(N, BLOCK_SIZE))
//@ kernel dot_chunks check sum = dot(a, b) tol 1e-4

__global__ void vadd(const float *a, const float *b, float *c, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		c[i] = a[i] + b[i];
}

__global__ void vadd_pageable(const float *pa, const float *pb, float *pc, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		pc[i] = pa[i] + pb[i];
}

__global__ void saxpy_iter(const float *x, float *y, float alpha, int ITERS, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= N)
		return;
	const float step = alpha / ITERS, xi = x[i];
	float v = y[i];
	for (int k = 0; k < ITERS; k++)
		v = fmaf(step, xi, v);
	y[i] = v;
}

// The guide's dot_product on the chunk's slices: a grid-stride loop into a
// register, a tree in shared memory, one atomicAdd per block.
__global__ void dot_chunks(const float *a, const float *b, float *sum, int N)
{
	__shared__ float cache[BLOCK_SIZE];
	const unsigned tid = threadIdx.x;
	float partial = 0.0f;
	for (long i = (long)blockIdx.x * BLOCK_SIZE + tid; i < N; i += (long)gridDim.x * BLOCK_SIZE)
		partial += a[i] * b[i];
	cache[tid] = partial;
	__syncthreads();
	for (unsigned s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
		if (tid < s)
			cache[tid] += cache[tid + s];
		__syncthreads();
	}
	if (tid == 0)
		atomicAdd(sum, cache[0]);
}
