// user_include.cu: headers of the user's: a directory named in the header (//@ include inc), angle and quoted forms, nested
//@ include inc
//@ param  n = 1000003
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ bytes  2 * n * 4
//@ check  y = scale(x, 3)
#include <course/ops.cuh>
#include "inc/course/config.cuh"

__global__ void triple(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = course::times(x[i], FACTOR);
}
