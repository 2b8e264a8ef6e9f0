// knob.cu: a correct submission that sets the exercise's knobs its own way
// (//@ define of the starting file's defines: kept) and includes a toolkit header.
//@ define BLOCK_ROWS = 4
//@ define PAD = 1
#include <cuda_fp16.h>

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
