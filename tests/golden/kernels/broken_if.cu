// broken_if.cu: compiles unless BROKEN is set (test fixture)
//@ define BROKEN = 0
//@ define BLOCK = 128
//@ param  N = 1024
//@ buffer out float[N] poison output
//@ grid   cdiv(N, BLOCK)
//@ block  BLOCK
//@ check  none
__global__ void fill(float *out, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
#if BROKEN
	out[i] = not_declared;
#endif
	if (i < N)
		out[i] = 1.0f;
}
