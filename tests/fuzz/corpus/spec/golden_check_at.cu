// check_at.cu: `check at` names a define (test fixture)
//@ define BLOCK = 256
//@ param  N = 4096
//@ buffer a float[N] random
//@ buffer c float[N] poison output
//@ grid   cdiv(N, BLOCK)
//@ block  BLOCK
//@ check  c = copy(a)
//@ check  at N = 1000, BLOCK = 128
__global__ void copy_kernel(const float *a, float *c, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		c[i] = a[i];
}
