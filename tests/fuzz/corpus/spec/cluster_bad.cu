// cluster_bad.cu: cluster lines refused with their line and column
//@ param  n = 1000
//@ buffer y float[n] poison output
//@ grid   3
//@ block  256
//@ check  none
//@ kernel k cluster 2, 1, 1, 1
//@ kernel k cluster 0
__global__ void k(int n, float *y) {}
