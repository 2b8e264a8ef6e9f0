// m_buftype.cu: a misspelt buffer type (test fixture)
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y flaot[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  y = scale(x, 2)
__global__ void scale(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i];
}
