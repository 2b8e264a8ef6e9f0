// arch_comma.cu: a list that ends in a comma (test fixture)
//@ arch sm_90a,
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 128)
//@ block  128
//@ check  y = copy(x)
__global__ void copy(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i];
}
