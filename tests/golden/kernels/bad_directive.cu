// bad_directive.cu: a misspelt //@ directive on line 4 (test fixture)
//@ param  N = 1024
//@ buffer out float[N] poison output
//@ gird   cdiv(N, 256)
//@ block  256
__global__ void fill(float *out, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		out[i] = 1.0f;
}
