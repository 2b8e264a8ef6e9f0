// seq_ok.cu: a copy in two steps through an intermediate, and in one
//@ param  N = 1000
//@ buffer in  float[N] random
//@ buffer tmp float[N] scratch
//@ buffer out float[N] output
//@ grid  cdiv(N, 256)
//@ block 256
//@ bytes 2 * N * 4
//@ check out = copy(in)
//@ sequence twice = stage1, stage2
//@ kernel stage1 check none
//@ kernel stage2 bytes 2 * N * 4
__global__ void stage1(const float *in, float *tmp, int N) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < N) tmp[i] = in[i]; }
__global__ void stage2(const float *tmp, float *out, int N) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < N) out[i] = tmp[i]; }
__global__ void once(const float *in, float *out, int N) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < N) out[i] = in[i]; }
