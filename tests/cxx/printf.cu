// printf.cu: device printf: one launch's output is shown, the rest counted
//@ param  n = 4099
//@ param  every = 0              // 1: every thread prints a line
//@ buffer x float[n] iota
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  y = copy(x)
#include <cstdio>

__global__ void copy_print(int n, int every, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i];
	if (every && i < n)
		printf("thread %d\n", i);
	else if (!every && threadIdx.x == 0 && blockIdx.x < 2)
		printf("block %d starts at x[%d] = %g\n", blockIdx.x, i, x[i]);
}
