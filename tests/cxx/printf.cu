// printf.cu: device printf: one launch's output is shown, the rest counted
//@ param  n = 4099
//@ buffer x float[n] iota
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  y = copy(x)
#include <cstdio>

__global__ void copy_print(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i];
	if (threadIdx.x == 0 && blockIdx.x < 2)
		printf("block %d starts at x[%d] = %g\n", blockIdx.x, i, x[i]);
}
