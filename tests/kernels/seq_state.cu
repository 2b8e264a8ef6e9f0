// seq_state.cu: a sequence whose middle step keeps state across launches:
// scale writes y = 2 * x (the checked output), count_once fills the
// intermediate `hist` on the first launch only (a __device__ flag) and
// returns at once afterwards, finish adds nothing to y. The checked
// output is right on every launch; only the step's own output shows that
// the timed launches skipped its work.
//@ param  N = 4194304
//@ buffer x    float[N] random
//@ buffer y    float[N] output
//@ buffer hist unsigned[256] zero scratch
//@ grid  cdiv(N, 256)
//@ block 256
//@ bytes 2 * N * 4
//@ check y = scale(x, 2)
//@ sequence three = scale, count_once, finish
//@ kernel scale check none
//@ kernel count_once check none
//@ kernel finish check none
__device__ unsigned int done;
__device__ unsigned int finished;

__global__ void scale(const float *x, float *y, unsigned *hist, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		y[i] = 2.0f * x[i];
}

__global__ void count_once(const float *x, float *y, unsigned *hist, int N)
{
	__shared__ unsigned int skip;
	if (threadIdx.x == 0)
		skip = *(volatile unsigned int *)&done;
	__syncthreads();
	if (skip)
		return;
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		atomicAdd(&hist[(unsigned)((x[i] + 1.0f) * 127.5f) & 255u], 1u);
	__syncthreads();
	if (threadIdx.x == 0) {
		__threadfence();
		if (atomicAdd(&finished, 1u) == gridDim.x - 1)
			done = 1;
	}
}

__global__ void finish(const float *x, float *y, unsigned *hist, int N)
{
}
