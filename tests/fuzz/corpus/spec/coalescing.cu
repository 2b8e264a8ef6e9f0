// coalescing.cu: B = A * A with coalesced, strided, fixed, L1-reused and float4 accesses
//@ define BLOCK_SIZE = 256
//@ define EL_PER_THREAD = 4
//@ param  N = 67108864                 // 2^26 floats: 256 MB per buffer
//@ buffer A float[N] random
//@ buffer B float[N] poison output
//@ grid  cdiv(N, BLOCK_SIZE * EL_PER_THREAD)
//@ block BLOCK_SIZE
//@ bytes 2 * N * 4                     // read A once, write B once
//@ check B = square(A)
//@ kernel square_coalesced grid cdiv(N, BLOCK_SIZE)
//@ kernel square_vectorized grid cdiv(N, BLOCK_SIZE * 4)
__global__ void square_coalesced(const float *A, float *B, int N)
{ }
__global__ void square_uncoalesced(const float *A, float *B, int N)
{ }
__global__ void square_fixed(const float *A, float *B, int N)
{ }
__global__ void square_l1_reuse(const float *A, float *B, int N)
{ }
__global__ void square_vectorized(const float *A, float *B, int N)
{ }
