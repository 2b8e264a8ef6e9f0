// m_grid_define.cu: a misspelt define in grid (test fixture)
//@ define BLOCK = 256
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, BLOK)
//@ block  BLOCK
//@ check  y = scale(x, 2)
__global__ void scale(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i];
}
