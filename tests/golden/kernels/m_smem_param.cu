// m_smem_param.cu: a param misspelt in a kernel's smem line, near a define (test fixture)
//@ define BLOCK = 256
//@ param  n = 1000
//@ param  tile = 32
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, BLOCK)
//@ block  BLOCK
//@ check  y = scale(x, 2)
//@ kernel scale smem tiel * 4
__global__ void scale(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i];
}
