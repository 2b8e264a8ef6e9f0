// seq_bad_grid.cu: a step whose grid names a value the file does not declare
//@ param  N = 1000
//@ buffer in  float[N] random
//@ buffer tmp float[N] scratch
//@ buffer out float[N] output
//@ grid  cdiv(N, 256)
//@ block 256
//@ check out = copy(in)
//@ sequence twice = stage1, stage2
//@ kernel stage2 grid cdiv(M, 256)
__global__ void stage1(const float *in, float *tmp, int N) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < N) tmp[i] = in[i]; }
__global__ void stage2(const float *tmp, float *out, int N) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < N) out[i] = tmp[i]; }
