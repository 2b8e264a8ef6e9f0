// uint_short_names.cu: uint and ushort, the short names glibc declares
// expect: compiles
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
__global__ void shorts(int n, const float *x, float *y)
{
	uint i = blockIdx.x * blockDim.x + threadIdx.x;
	ushort lane = threadIdx.x & 31;
	if (i < (uint)n)
		y[i] = x[i] + lane * 0.0f;
}
