// once_managed.cu: once.cu with its output in managed memory: y = 2 * x,
// done by the first launch only (a __device__ flag), every later launch
// returns at once; a managed output is compared after the timed launches
// as a device one is.
//@ param  N = 4194304
//@ buffer x float[N] random
//@ buffer y float[N] poison managed output
//@ grid  cdiv(N, 256)
//@ block 256
//@ bytes 2 * N * 4
//@ check y = scale(x, 2)
__device__ unsigned int done;
__device__ unsigned int finished;

__global__ void once_managed(const float *x, float *y, int N)
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
