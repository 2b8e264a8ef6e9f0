// fp16.cu: <cuda_fp16.h>: y = alpha * x computed in half precision (__hmul), stored as float
//@ param  n = 1000003
//@ param  alpha = 2.5
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ bytes  2 * n * 4
//@ check  y = scale(x, alpha) tol 2e-3     // half has an 11-bit significand
#include <cuda_fp16.h>

__global__ void scale_half(int n, float alpha, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		__half h = __hmul(__float2half(x[i]), __float2half(alpha));
		y[i] = __half2float(h);
	}
}

// two at a time: __half2 arithmetic
__global__ void scale_half2(int n, float alpha, const float *x, float *y)
{
	int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
	if (i + 1 < n) {
		__half2 h = __hmul2(__floats2half2_rn(x[i], x[i + 1]), __float2half2_rn(alpha));
		y[i] = __low2float(h);
		y[i + 1] = __high2float(h);
	} else if (i < n) {
		y[i] = __half2float(__hmul(__float2half(x[i]), __float2half(alpha)));
	}
}
//@ kernel scale_half2 grid cdiv(n, 512)
