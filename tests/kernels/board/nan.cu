// nan.cu: a cheat (or a slip): right everywhere but one element, out[1], a NaN.
// A NaN where the reference is finite fails the check at any tolerance:
// --verify says "wrong", non-finite values.
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
		if (x < N && y + j < N) {
			const size_t i = (size_t)(y + j) * N + x;
			out[i] = i == 1 ? __int_as_float(0x7fc00000) : tile[tx][ty + j];
		}
}
