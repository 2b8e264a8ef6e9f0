// transpose.cu: out = transpose(in), N x N floats: naive, the lab's tile, the guide's coalesced tile
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
__global__ void transpose_naive(const float *__restrict__ in, float *__restrict__ out, int N)
{ }
__global__ void transpose_seed(const float *__restrict__ in, float *__restrict__ out, int N)
{ }
__global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out, int N)
{ }
