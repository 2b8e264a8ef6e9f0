// flt_max_cfloat.cu: FLT_MAX with <cfloat> included, beside INFINITY
// expect: compiles
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
#include <cfloat>
__global__ void with_cfloat(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fminf(x[i], FLT_MAX) + (DBL_EPSILON > 0 ? 0.0f : INFINITY);
}
