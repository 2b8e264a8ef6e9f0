// clash.cu: a define that shares a kernel parameter's name (test fixture)
//@ define N = 1024
//@ buffer out float[N] poison output
//@ grid   cdiv(N, 256)
//@ block  256
__global__ void fill(float *out, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		out[i] = 1.0f;
}
