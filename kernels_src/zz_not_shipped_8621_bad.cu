// own_header_mistake.cu: a file of one's own whose header has a mistake
//@ param  n = 1024
//@ bufer  x float[n] random
//@ grid   cdiv(n, 256)
//@ block  256

__global__ void touch(int n, float *x)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += 1.0f;
}
