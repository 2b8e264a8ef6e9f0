// streams_uneven.cu: plan errors of chunks: a host buffer not a multiple of
// the split param, a kernel that does not take it
//@ param n = 100
//@ param m = 10
//@ param S = 2
//@ buffer x float[n+1] random host
//@ buffer v float[n] random host
//@ grid cdiv(n, 32)
//@ block 32
//@ streams S split n
__global__ void odd(float *x, int n) {}
__global__ void no_size(float *v, int m) {}
