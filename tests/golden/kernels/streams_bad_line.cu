// streams_bad_line.cu: the number of streams without 'split'
//@ param n = 16
//@ buffer x float[n] random host
//@ grid 1
//@ block n
//@ streams 4 n
__global__ void k(float *x, int n) {}
