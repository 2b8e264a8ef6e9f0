// missing.cu: defines another kernel than the exercise's: refused.
__global__ void my_transpose(const float *__restrict__ in, float *__restrict__ out, int N)
{
	out[0] = in[0];
}
