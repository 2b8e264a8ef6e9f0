// uint32_bare.cu: uint32_t without <cstdint>: nvcc refuses it too (glibc declares only the signed ones)
// expect: error
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
__global__ void bare(int n, const float *x, float *y)
{
	uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < (uint32_t)n)
		y[i] = x[i];
}
