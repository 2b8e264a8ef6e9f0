// err_cluster.cu: a grid that is not a multiple of the cluster
//@ param  n = 1000
//@ buffer y float[n] poison output
//@ grid   3
//@ block  256
//@ cluster 2
//@ check  none
__global__ void k(int n, float *y) {}
