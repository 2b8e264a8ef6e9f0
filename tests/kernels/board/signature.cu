// signature.cu: the exercise's kernel with another signature: refused.
__global__ void transpose_tiled(const float *__restrict__ in, double *__restrict__ out, int N)
{
	out[0] = in[0];
}
