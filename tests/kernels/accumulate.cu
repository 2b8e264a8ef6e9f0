// accumulate.cu: y = x, through a __device__ array that each launch adds x
// into and nothing clears: the first launch is right, the n-th gives n * x.
// A __managed__ counter of launches is state kept too.
//@ define N = 4194304
//@ buffer x float[N] random
//@ buffer y float[N] output
//@ grid  cdiv(N, 256)
//@ block 256
//@ bytes 2 * N * 4
//@ check y = copy(x)
__device__ float acc[N];
__managed__ unsigned int launches;

__global__ void accumulate(const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i == 0)
		atomicAdd(&launches, 1u);
	if (i < N) {
		acc[i] += x[i];
		y[i] = acc[i];
	}
}
