// streams_bad_pinned.cu: 'pinned' without 'host'
//@ param n = 16
//@ buffer x float[n] random pinned
//@ grid 1
//@ block n
__global__ void k(float *x, int n) {}
