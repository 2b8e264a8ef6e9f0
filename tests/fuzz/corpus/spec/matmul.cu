// matmul.cu: C = A * B, N x N floats: naive, shared-memory tiles, register-blocked tiles
//@ define TILE_SIZE = 32
//@ param  N = 4096
//@ buffer A float[N*N] random
//@ buffer B float[N*N] random
//@ buffer C float[N*N] poison output
//@ grid  cdiv(N, TILE_SIZE), cdiv(N, TILE_SIZE)
//@ block TILE_SIZE, TILE_SIZE
//@ flops 2 * N * N * N
//@ bytes 3 * N * N * 4                 // A and B read once, C written once
//@ check C = matmul(A, B, N, N, N) tol 1e-4
//@ check at N = min(N, 509)
//@ kernel matmul_register_tiled grid cdiv(N, 128), cdiv(N, 128)   // RT_BN, RT_BM below
//@ kernel matmul_register_tiled block 256                         // RT_THREADS below
__global__ void matmul_naive(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int N)
{ }
__global__ void matmul_tiled(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int N)
{ }
__global__ void __launch_bounds__(RT_THREADS, 2)
matmul_register_tiled(const float *__restrict__ A, const float *__restrict__ B,
                      float *__restrict__ C, int N)
{ }
