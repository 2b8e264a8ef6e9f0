// streams_bad_split.cu: 'split' names no param
//@ param n = 16
//@ buffer x float[n] random host
//@ grid 1
//@ block n
//@ streams 2 split count
__global__ void k(float *x, int n) {}
