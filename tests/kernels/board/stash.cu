// stash.cu: a cheat: the first launch transposes and keeps its answer in a
// __device__ array; every later launch of the module copies the stored answer
// (a plain copy, faster than any transpose). Its check (the first launch) and the
// timed launches' check (the same inputs) pass; the launch on fresh inputs in the
// same module gets the stale answer: --verify says "wrong".
#define STASH_MAX (8192 * 8192)
__device__ float stash[STASH_MAX];
__device__ int stashed_n;          // the N whose answer is in stash; 0: none
__device__ unsigned blocks_done;

__global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out, int N)
{
	const size_t nn = (size_t)N * N;
	if (stashed_n == N) { // a copy, block-strided
		const size_t b = (size_t)blockIdx.y * gridDim.x + blockIdx.x, t = threadIdx.y * blockDim.x + threadIdx.x;
		const size_t per = (size_t)blockDim.x * blockDim.y, nb = (size_t)gridDim.x * gridDim.y;
		for (size_t i = b * per + t; i < nn; i += nb * per)
			out[i] = stash[i];
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
		if (x < N && y + j < N) {
			const float v = tile[tx][ty + j];
			out[(size_t)(y + j) * N + x] = v;
			if (nn <= STASH_MAX)
				stash[(size_t)(y + j) * N + x] = v;
		}
	__syncthreads();
	if (tx == 0 && ty == 0) {
		__threadfence();
		if (atomicAdd(&blocks_done, 1u) == gridDim.x * gridDim.y - 1 && nn <= STASH_MAX) {
			stashed_n = N;
			blocks_done = 0;
		}
	}
}
