// err_types.cu: a half * kernel parameter bound to a float buffer, a buffer
// type cuplay does not know, and a float4 * over a float buffer (allowed)
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  y = copy(x)
#include <cuda_fp16.h>

__global__ void wrong_type(int n, const __half *x, float *y) {}
__global__ void as_float4(int n, const float4 *x, float4 *y) {}
