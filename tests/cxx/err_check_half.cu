// err_check_half.cu: a half kernel with an off-by-one: its check must fail
//@ param  n = 4099
//@ buffer x half[n] random
//@ buffer y half[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  y = copy(x)
#include <cuda_fp16.h>

__global__ void copy_wrong(int n, const __half *x, __half *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i + 1 < n ? i + 1 : i];
}
