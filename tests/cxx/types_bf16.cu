// types_bf16.cu: buffers of bfloat16: z = x + y, rounded once to bfloat16
//@ param  n = 1000003
//@ buffer x bfloat16[n] random
//@ buffer y bfloat16[n] random
//@ buffer z bfloat16[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ bytes  3 * n * 2
//@ check  z = add(x, y)
#include <cuda_bf16.h>

__global__ void add_bf16(int n, const __nv_bfloat16 *x, const __nv_bfloat16 *y, __nv_bfloat16 *z)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		z[i] = __float2bfloat16(__bfloat162float(x[i]) + __bfloat162float(y[i]));
}
