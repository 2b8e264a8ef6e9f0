// numeric_limits_bare.cu: std::numeric_limits without an include (host-only in nvcc too)
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
		y[i] = fminf(x[i], std::numeric_limits<float>::max());
}
