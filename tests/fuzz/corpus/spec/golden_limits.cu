// limits.cu: launches over the device's limits (test fixture)
//@ define BLOCK = 256
//@ param  N = 4096
//@ param  SMEM = 0
//@ buffer out float[N] poison output
//@ grid   cdiv(N, BLOCK)
//@ block  BLOCK
//@ smem   SMEM
//@ check  none
__global__ void fill(float *out, int N)
{
	extern __shared__ float dyn[];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		out[i] = 1.0f;
}
