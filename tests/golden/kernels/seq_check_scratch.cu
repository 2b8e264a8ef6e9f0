// seq_check_scratch.cu: a check that names an intermediate
//@ param  N = 1000
//@ buffer in  float[N] random
//@ buffer tmp float[N] scratch
//@ buffer out float[N] output
//@ grid  cdiv(N, 256)
//@ block 256
//@ check out = copy(in)
//@ check tmp = copy(in)
//@ sequence twice = stage1, stage2
__global__ void stage1(const float *in, float *tmp, int N) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < N) tmp[i] = in[i]; }
__global__ void stage2(const float *tmp, float *out, int N) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < N) out[i] = tmp[i]; }
