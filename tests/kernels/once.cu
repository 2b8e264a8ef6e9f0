// once.cu: y = 2 * x, done by the first launch only. Blocks count
// themselves done in a __device__ counter, the last block of the first
// launch sets a __device__ flag, and every later launch reads the flag and
// returns: a kernel that passes its check and is timed at nothing.
//@ param  N = 16777216
//@ buffer x float[N] random
//@ buffer y float[N] output
//@ grid  cdiv(N, 256)
//@ block 256
//@ bytes 2 * N * 4
//@ check y = scale(x, 2)
__device__ unsigned int done;
__device__ unsigned int finished;

__global__ void once(const float *x, float *y, int N)
{
	__shared__ unsigned int skip;
	if (threadIdx.x == 0)
		skip = *(volatile unsigned int *)&done;
	__syncthreads();
	if (skip)
		return;
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		y[i] = 2.0f * x[i];
	__syncthreads();
	if (threadIdx.x == 0) {
		__threadfence();
		if (atomicAdd(&finished, 1u) == gridDim.x - 1)
			done = 1;
	}
}
