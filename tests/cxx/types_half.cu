// types_half.cu: buffers of half and half2: y = alpha * x in half precision
//@ param  n = 1000003
//@ param  alpha = 1.5
//@ buffer x half[n] random
//@ buffer y half[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ bytes  2 * n * 2
//@ check  y = scale(x, alpha)
#include <cuda_fp16.h>

__global__ void scale_h(int n, float alpha, const __half *x, __half *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = __hmul(x[i], __float2half(alpha));
}

// the same through half2 pairs: a half2 * binds to a half buffer
__global__ void scale_h2(int n, float alpha, const __half2 *x, __half2 *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (2 * i + 1 < n) {
		y[i] = __hmul2(x[i], __float2half2_rn(alpha));
	} else if (2 * i < n) {
		const __half *xs = (const __half *)x;
		__half *ys = (__half *)y;
		ys[2 * i] = __hmul(xs[2 * i], __float2half(alpha));
	}
}
//@ kernel scale_h2 grid cdiv(n, 512)
