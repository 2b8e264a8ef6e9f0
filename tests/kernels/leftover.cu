// leftover.cu: pass1 writes its intermediate into `zero`, a buffer declared
// as an input of zeros; pass2 copies `zero` out. pass2's check (out = in)
// holds only on what pass1 left: on the file's own inputs pass2 writes
// zeros and its check fails, as it must.
//@ param N = 4096
//@ buffer in float[N] random
//@ buffer zero float[N] zero
//@ buffer out float[N] poison output
//@ grid cdiv(N, 256)
//@ block 256
//@ check out = copy(in)

__global__ void pass1(const float *in, float *zero, float *out, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N) {
		zero[i] = in[i];
		out[i] = in[i];
	}
}

__global__ void pass2(const float *in, const float *zero, float *out, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		out[i] = zero[i] + 0.0f * in[i];
}
