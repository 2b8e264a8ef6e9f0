// stdint.cu: <stdint.h> types in a kernel's parameters and body: y = x with 64-bit indexing
//@ param  n = 1000003
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ bytes  2 * n * 4
//@ check  y = copy(x)
#include <stdint.h>

__global__ void copy64(int64_t n, const float *x, float *y)
{
	uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
	int8_t one = (int8_t)(INT8_MAX / 127);
	if (i < (uint64_t)n && UINT32_MAX > 0)
		y[i] = one * x[i];
}
