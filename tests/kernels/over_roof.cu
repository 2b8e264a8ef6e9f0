// over_roof.cu: a kernel whose //@ bytes counts ten times what it moves
//@ param  N = 16777216
//@ buffer in  float[N] random
//@ buffer out float[N] output
//@ grid  cdiv(N, 256)
//@ block 256
//@ bytes 10 * 2 * N * 4               // ten times the 2 * N * 4 it moves
//@ check out = copy(in)
__global__ void copy10(const float *in, float *out, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		out[i] = in[i];
}
