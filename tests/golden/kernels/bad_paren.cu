// bad_paren.cu: a grid expression without its closing parenthesis (test fixture)
//@ define BLOCK = 256
//@ param  N = 1024
//@ buffer out float[N] poison output
//@ grid   cdiv(N, BLOCK
//@ block  BLOCK
//@ check  none
__global__ void fill(float *out, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		out[i] = 1.0f;
}
