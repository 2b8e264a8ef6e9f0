// assert.cu: <assert.h> in a kernel: y = x, asserting the index is in range
//@ param  n = 1000003
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ bytes  2 * n * 4
//@ check  y = copy(x)
#include <assert.h>

__global__ void copy_checked(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	assert(i >= 0 && i < n);
	y[i] = x[i];
}
