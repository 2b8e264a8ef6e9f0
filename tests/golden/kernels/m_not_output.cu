// m_not_output.cu: a check of a buffer not marked output (test fixture)
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  y = scale(x, 2)
__global__ void scale(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i];
}
