// size.cu: the header copied, its size changed to a small one: refused (the
// exercise sets the sizes).
//@ define TILE_SIZE = 32
//@ define BLOCK_ROWS = 8
//@ define PAD = 1
//@ param  N = 64                     // 8192^2 floats: 256 MB per matrix
//@ buffer in  float[N*N] random
//@ buffer out float[N*N] poison output
//@ grid  cdiv(N, TILE_SIZE), cdiv(N, TILE_SIZE)
//@ block TILE_SIZE, BLOCK_ROWS
//@ bytes 2 * N * N * 4                 // read in once, write out once
//@ check out = transpose(in, N, N)

__global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out, int N)
{
	__shared__ float tile[TILE_SIZE][TILE_SIZE + PAD];
	const int tx = threadIdx.x, ty = threadIdx.y;
	int x = blockIdx.x * TILE_SIZE + tx;
	int y = blockIdx.y * TILE_SIZE + ty;
	for (int j = 0; j < TILE_SIZE; j += BLOCK_ROWS)
		if (x < N && y + j < N)
			tile[ty + j][tx] = in[(size_t)(y + j) * N + x];
	__syncthreads();
	x = blockIdx.y * TILE_SIZE + tx;
	y = blockIdx.x * TILE_SIZE + ty;
	for (int j = 0; j < TILE_SIZE; j += BLOCK_ROWS)
		if (x < N && y + j < N)
			out[(size_t)(y + j) * N + x] = tile[tx][ty + j];
}
