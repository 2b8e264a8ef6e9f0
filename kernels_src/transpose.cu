// transpose.cu: out = transpose(in), N x N floats: naive, the lab's tile, the guide's coalesced tile
//
// Lab 000 exercise 3 (bank conflicts, 32x32 vs 32x33), guide 001 (transpose_naive,
// transpose_coalesced), exercises 003 exercise 2 (naive, shared, padded).
//   transpose_naive  one element per thread: reads coalesced, writes N floats apart
//   transpose_seed   the lab's kernel: 32x32 threads, a TILE_SIZE x (TILE_SIZE+PAD)
//                    tile, and the store the lab writes, out[x * N + y]: consecutive
//                    threads still store N floats apart, so the tile cannot help
//                    the stores, and padding removes bank conflicts that were not
//                    the bottleneck (measured on an H100: PAD changes ~1-4%)
//   transpose_tiled  the guide's version: TILE_SIZE x BLOCK_ROWS threads, each
//                    moving TILE_SIZE / BLOCK_ROWS elements; block indices are
//                    swapped for the store, so reads and writes are both coalesced,
//                    and the tile is read down a column: with PAD=0 all 32 lanes of
//                    a warp hit one bank (measured on an H100: PAD=1 is ~1.7x faster)
// About the lab's code as printed: it fills s_data[ty][tx] and stores
// out[x*N + y] = s_data[tx][ty], which moves each tile to its transposed place
// without transposing its contents (check fails except on the diagonal of
// each tile). transpose_seed keeps every access of the lab's kernel (coalesced
// load, column access to the tile, strided store) and fills the tile as
// s_data[tx][ty] so that the result is right.
// Try: `set PAD=0`, `run transpose_tiled`, `metrics` (shared bank conflicts), then
// `set PAD=1`; the same with transpose_seed; `set N=1000`, `set N=4097` (edge
// tiles); `set TILE_SIZE=16` (and BLOCK_ROWS=4 or 8).
//@ define TILE_SIZE = 32
//@ define BLOCK_ROWS = 8
//@ define PAD = 1
//@ param  N = 8192                     // 8192^2 floats: 256 MB per matrix
//@ buffer in  float[N*N] random
//@ buffer out float[N*N] poison output
//@ grid  cdiv(N, TILE_SIZE), cdiv(N, TILE_SIZE)
//@ block TILE_SIZE, BLOCK_ROWS
//@ bytes 2 * N * N * 4                 // read in once, write out once
//@ check out = transpose(in, N, N)
//@ kernel transpose_naive grid cdiv(N, TILE_SIZE), cdiv(N, BLOCK_ROWS)
//@ kernel transpose_seed block TILE_SIZE, TILE_SIZE

static_assert(TILE_SIZE % BLOCK_ROWS == 0, "TILE_SIZE must be a multiple of BLOCK_ROWS");
static_assert(PAD >= 0, "PAD must be 0 or more");

// Guide 001's transpose_naive: thread (x, y) copies in[y][x] to out[x][y].
// A warp reads one row segment (coalesced) and writes one column segment:
// 32 stores N*4 bytes apart, one sector each.
__global__ void transpose_naive(const float *__restrict__ in, float *__restrict__ out, int N)
{
	const int x = blockIdx.x * blockDim.x + threadIdx.x;
	const int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < N && y < N)
		out[(size_t)x * N + y] = in[(size_t)y * N + x];
}

// Lab 000 exercise 3, block TILE_SIZE x TILE_SIZE. Thread (tx, ty) reads
// in[y][x] (coalesced), parks it at tile[tx][ty] (a column: bank conflicts
// without PAD), and writes out[x][y] from tile[tx][ty] (a column again, and a
// strided global store).
__global__ void transpose_seed(const float *__restrict__ in, float *__restrict__ out, int N)
{
	__shared__ float tile[TILE_SIZE][TILE_SIZE + PAD];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const int x = blockIdx.x * TILE_SIZE + tx;
	const int y = blockIdx.y * TILE_SIZE + ty;
	if (x < N && y < N)
		tile[tx][ty] = in[(size_t)y * N + x];
	__syncthreads();
	if (x < N && y < N)
		out[(size_t)x * N + y] = tile[tx][ty];
}

// Guide 001's transpose_coalesced with BLOCK_ROWS rows of threads (Mark
// Harris's layout). Load: tile[r][c] = in[by*T + r][bx*T + c], a warp reads a
// row segment and writes a tile row. Store: the block writes the output tile
// at (bx, by) swapped; a warp reads a tile column tile[c][r] (PAD=1 puts its 32
// floats in 32 different banks) and writes a contiguous row segment of out.
__global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out, int N)
{
	__shared__ float tile[TILE_SIZE][TILE_SIZE + PAD];
	const int tx = threadIdx.x, ty = threadIdx.y;
	int x = blockIdx.x * TILE_SIZE + tx;
	int y = blockIdx.y * TILE_SIZE + ty;
#pragma unroll
	for (int j = 0; j < TILE_SIZE; j += BLOCK_ROWS)
		if (x < N && y + j < N)
			tile[ty + j][tx] = in[(size_t)(y + j) * N + x];
	__syncthreads();
	x = blockIdx.y * TILE_SIZE + tx; // swapped block indices
	y = blockIdx.x * TILE_SIZE + ty;
#pragma unroll
	for (int j = 0; j < TILE_SIZE; j += BLOCK_ROWS)
		if (x < N && y + j < N)
			out[(size_t)(y + j) * N + x] = tile[tx][ty + j];
}
