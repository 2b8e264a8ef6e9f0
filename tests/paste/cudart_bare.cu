// cudart_bare.cu: CUDART_INF_F without <math_constants.h>: nvcc refuses it too
// expect: error
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
__global__ void bare(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fminf(x[i], CUDART_INF_F);
}
