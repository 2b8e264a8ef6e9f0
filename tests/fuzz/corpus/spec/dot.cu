// dot.cu: out[0] = a . b: shared-memory tree + atomicAdd (the guide's) vs float4 + warp shuffles
//@ define BLOCK_SIZE = 256
//@ param  N = 67108864                 // 2^26 floats: 256 MB per vector
//@ buffer a   float[N] random
//@ buffer b   float[N] random
//@ buffer out float[1] zero output     // reset before every launch: atomics add to 0
//@ grid  min(SM_COUNT * (2048 / BLOCK_SIZE), cdiv(N, BLOCK_SIZE))
//@ block BLOCK_SIZE
//@ bytes 2 * N * 4                     // read a and b once
//@ flops 2 * N
//@ check out = dot(a, b) tol 1e-3
//@ kernel dot_warp grid min(SM_COUNT * (2048 / BLOCK_SIZE), cdiv(N, 4 * BLOCK_SIZE))
__global__ void dot_shared_atomic(const float *__restrict__ a, const float *__restrict__ b,
                                  float *out, int N)
{ }
__global__ void dot_warp(const float *__restrict__ a, const float *__restrict__ b,
                         float *out, int N)
{ }
