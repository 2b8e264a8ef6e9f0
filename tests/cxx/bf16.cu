// bf16.cu: <cuda_bf16.h>: y = alpha * x computed in bfloat16 (__hmul), stored as float
//@ param  n = 1000003
//@ param  alpha = 2.5
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ bytes  2 * n * 4
//@ check  y = scale(x, alpha) tol 1e-2     // bfloat16 has an 8-bit significand
#include <cuda_bf16.h>

__global__ void scale_bf16(int n, float alpha, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		__nv_bfloat16 h = __hmul(__float2bfloat16(x[i]), __float2bfloat16(alpha));
		y[i] = __bfloat162float(h);
	}
}
