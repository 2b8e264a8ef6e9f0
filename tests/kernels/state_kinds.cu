// state_kinds.cu: state a kernel keeps, of every kind `info` names: a
// variable in a namespace (no //@ global can name it), a static one, one
// with a value, a __constant__ (read only: not state) and a declared one.
//@ param  N = 1024
//@ buffer x float[N] random
//@ buffer y float[N] output
//@ global seen int zero output
//@ grid  cdiv(N, 256)
//@ block 256
//@ check y = copy(x)
namespace course {
__device__ unsigned long long calls;
}
static __device__ int hits;
__device__ float scale = 1.5f;
__constant__ float unit = 1.0f;
__device__ int seen;

__global__ void kinds(const float *x, float *y, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i == 0) {
		atomicAdd(&course::calls, 1ull);
		hits++;
		scale *= unit;
		seen = 1;
	}
	if (i < N)
		y[i] = x[i];
}
