// seedprobe.cu: a cheat that is right for the default inputs alone: it knows the
// first element of the default input (PROBE, put in by tests/gpu_board.sh from
// cuplay's own fill) and transposes only when in[0] is that value; on other
// inputs it copies (fast, wrong). Every check on the default inputs passes; the
// fresh inputs' checks fail: --verify says "wrong".
#define PROBE PROBE_VALUE

__global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out, int N)
{
	if (in[0] != PROBE) {
		const size_t nn = (size_t)N * N, b = (size_t)blockIdx.y * gridDim.x + blockIdx.x;
		const size_t per = (size_t)blockDim.x * blockDim.y, nb = (size_t)gridDim.x * gridDim.y;
		for (size_t i = b * per + threadIdx.y * blockDim.x + threadIdx.x; i < nn; i += nb * per)
			out[i] = in[i];
		return;
	}
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
