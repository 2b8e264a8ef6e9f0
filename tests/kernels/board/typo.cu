// typo.cu: does not compile: the error is at its line of this file (line 7).
__global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out, int N)
{
	const int x = blockIdx.x * blockDim.x + threadIdx.x;
	if (x >= N)
		return;
	out[x] = in[x] * undeclared_scale;
}
