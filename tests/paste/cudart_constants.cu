// cudart_constants.cu: CUDART_INF_F and CUDART_PI_F from <math_constants.h>
// expect: compiles
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
#include <math_constants.h>
__global__ void with_constants(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fminf(x[i] * CUDART_PI_F, CUDART_INF_F) + (float)M_PI * 0.0f;
}
