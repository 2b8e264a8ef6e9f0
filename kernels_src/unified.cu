// unified.cu: y = alpha * x with x in unified (managed) memory vs plain device memory
//
// Lecture 002, "Mémoire unifiée" (cudaMallocManaged, __managed__): one pointer
// valid on the host and on the GPU, no cudaMemcpy.
//   scale_managed  reads xm, allocated with cuMemAllocManaged and filled by the host
//   scale_device   the same kernel on xd, allocated with cuMemAlloc and uploaded
//   scale_prefetched  the same on xp, managed too, but moved to the GPU before
//                  each launch (`prefetch`: cudaMemPrefetchAsync to the device)
// Same code, same sizes: only where x lives differs. Pages of managed memory
// written by the CPU sit in host memory; the first kernel that reads them
// takes page faults and migrates them to the GPU, which costs far more than
// reading HBM. Once migrated they stay, so warmed-up timings of the two kernels
// converge: the difference is in the first launch after the host wrote xm
// (with no warm-up, `warmup 0`, and checking off, since the check launch runs
// first). Whether xm starts on the host depends on how cuplay fills it: through
// the pointer from the CPU, yes; with a copy engine (cuMemcpyHtoD), its pages
// may already be on the GPU and then only `metrics` differences remain.
// A program that knows where its data will be used says so with
// cudaMemPrefetchAsync: the pages then move in bulk before the kernel, and the
// kernel reads device memory (scale_prefetched).
// Try: `warmup 0`, `reps 1`, `run scale_managed`, then `run scale_device`;
// `set N=...` (fresh buffers).
//@ define BLOCK_SIZE = 256
//@ param  N = 67108864                 // 2^26 floats: 256 MB per buffer, 1 GB in all
//@ param  alpha = 2.0
//@ buffer xm float[N] random managed
//@ buffer xd float[N] random
//@ buffer xp float[N] random managed prefetch
//@ buffer y  float[N] poison output
//@ grid  cdiv(N, BLOCK_SIZE)
//@ block BLOCK_SIZE
//@ bytes 2 * N * 4                     // read x once, write y once
//@ kernel scale_managed check y = scale(xm, alpha)
//@ kernel scale_device check y = scale(xd, alpha)
//@ kernel scale_prefetched check y = scale(xp, alpha)

__global__ void scale_managed(const float *__restrict__ xm, float *__restrict__ y, float alpha, int N)
{
	const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		y[i] = alpha * xm[i];
}

__global__ void scale_device(const float *__restrict__ xd, float *__restrict__ y, float alpha, int N)
{
	const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		y[i] = alpha * xd[i];
}

__global__ void scale_prefetched(const float *__restrict__ xp, float *__restrict__ y, float alpha, int N)
{
	const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		y[i] = alpha * xp[i];
}
