// syntax.cu: a kernel with a compile error on line 11 (test fixture)
//@ define TILE_SIZE = 32
//@ param  N = 1024
//@ buffer out float[N] poison output
//@ grid   cdiv(N, TILE_SIZE)
//@ block  TILE_SIZE
__global__ void fill(float *out, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		out[i] = undefined_name * TILE_SIZE;
}
