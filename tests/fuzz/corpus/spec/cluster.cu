// cluster.cu: a file-wide cluster and per-kernel clusters
//@ param  n = 1 << 20
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ cluster 2
//@ check  y = plain
//@ kernel plain check none
//@ kernel pairs cluster 2, 1, 1
//@ kernel quads cluster 4, 1
//@ kernel wide cluster cdiv(8, 2)
__global__ void plain(int n, const float *x, float *y) {}
__global__ void pairs(int n, const float *x, float *y) {}
__global__ void quads(int n, const float *x, float *y) {}
__global__ void wide(int n, const float *x, float *y) {}
__global__ void __cluster_dims__(2, 1, 1) dims(int n, const float *x, float *y) {}
