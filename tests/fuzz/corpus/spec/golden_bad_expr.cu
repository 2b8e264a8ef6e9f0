// bad_expr.cu: a grid expression that names a param that does not exist (test fixture)
//@ define TILE_SIZE = 32
//@ param  N = 1024
//@ buffer out float[N] poison output
//@ grid   cdiv(N, TILE)
//@ block  TILE_SIZE
__global__ void fill(float *out, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		out[i] = 1.0f;
}
