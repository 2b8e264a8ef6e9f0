// math_h_include.cu: <math.h> and <cmath> included after the implicit names: no clash
// expect: compiles
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
#include <math.h>
#include <cmath>
__global__ void with_math(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fmaxf(x[i], -INFINITY) * (float)M_PI + std::sqrt(fabsf(x[i])) + (HUGE_VALF > 0 ? 0.0f : 1.0f);
}
