// uint32_stdint.cu: <stdint.h> and <cstdint> after the implicit int64_t: one type each
// expect: compiles
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
#include <stdint.h>
#include <cstdint>
__global__ void with_stdint(int n, const float *x, float *y)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	int64_t wide = (int64_t)i * 2;
	if (i < (uint32_t)n)
		y[i] = x[i] + (wide < 0 ? 1.0f : 0.0f) + (float)(INT64_MAX > INT_MAX);
}
