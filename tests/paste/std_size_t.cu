// std_size_t.cu: std::size_t for an index
// expect: compiles
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
__global__ void sized(int n, const float *x, float *y)
{
	std::size_t i = (std::size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < (std::size_t)n)
		y[i] = x[i];
}
