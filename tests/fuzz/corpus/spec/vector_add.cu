// vector_add.cu: c = a + b, one element per thread vs grid-stride loop vs float4 grid-stride loop
//@ define BLOCK_SIZE = 256
//@ param  N = 67108864                 // 2^26 floats: 256 MB per buffer
//@ buffer a float[N] random
//@ buffer b float[N] random
//@ buffer c float[N] poison output
//@ grid  cdiv(N, BLOCK_SIZE)
//@ block BLOCK_SIZE
//@ bytes 3 * N * 4                     // read a and b once, write c once
//@ check c = add(a, b)
//@ kernel vadd_grid_stride grid min(SM_COUNT * (2048 / BLOCK_SIZE), cdiv(N, BLOCK_SIZE))
//@ kernel vadd_float4 grid min(SM_COUNT * (2048 / BLOCK_SIZE), cdiv(cdiv(N, 4), BLOCK_SIZE))
__global__ void vadd_naive(const float *__restrict__ a, const float *__restrict__ b,
                           float *__restrict__ c, int N)
{ }
__global__ void vadd_grid_stride(const float *__restrict__ a, const float *__restrict__ b,
                                 float *__restrict__ c, int N)
{ }
__global__ void vadd_float4(const float *__restrict__ a, const float *__restrict__ b,
                            float *__restrict__ c, int N)
{ }
