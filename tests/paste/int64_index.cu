// int64_index.cu: a 64-bit index with int64_t, never included (nvcc has it from <sys/types.h>)
// expect: compiles
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
__global__ void copy64(int n, const float *x, float *y)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	int32_t small = 1;
	if (i < n)
		y[i] = x[i] * small;
}
