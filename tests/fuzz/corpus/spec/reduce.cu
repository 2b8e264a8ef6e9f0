// reduce.cu: out[0] = sum(in), from global memory only to float4 + warp shuffles
//@ define BLOCK_SIZE = 256
//@ define DIVERGENT = 1
//@ param  N = 67108864                 // 2^26 floats: 256 MB
//@ buffer in   float[N] random
//@ buffer work float[N] zero           // scratch, used by reduce_global only
//@ buffer out  float[1] zero output    // reset before every launch: atomics add to 0
//@ grid  cdiv(N, BLOCK_SIZE)
//@ block BLOCK_SIZE
//@ bytes N * 4                         // the minimum: read every element once
//@ check out = sum(in) tol 1e-3
//@ kernel reduce_first_add grid cdiv(N, 2 * BLOCK_SIZE)
//@ kernel reduce_warp grid min(SM_COUNT * (2048 / BLOCK_SIZE), cdiv(N, 4 * BLOCK_SIZE))
__global__ void reduce_global(const float *__restrict__ in, float *work, float *out, int N)
{ }
__global__ void reduce_interleaved(const float *__restrict__ in, float *out, int N)
{ }
#if DIVERGENT
#else
#endif
__global__ void reduce_shared(const float *__restrict__ in, float *out, int N)
{ }
__global__ void reduce_first_add(const float *__restrict__ in, float *out, int N)
{ }
__global__ void reduce_warp(const float *__restrict__ in, float *out, int N)
{ }
