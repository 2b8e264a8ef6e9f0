// over_flops.cu: a kernel whose //@ flops counts a thousand times what it computes (one
// multiply an element)
//@ param  N = 16777216
//@ buffer in  float[N] random
//@ buffer out float[N] output
//@ grid  cdiv(N, 256)
//@ block 256
//@ flops 1000 * N                     // a thousand times its one multiply an element
//@ check out = scale(in, 2)
__global__ void scale1000(const float *in, float *out, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		out[i] = in[i] * 2.0f;
}
