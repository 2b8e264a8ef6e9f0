// err_global_missing.cu: a global the kernel file does not define
//@ param  n = 100
//@ global b float random
//@ buffer y float[n] poison output
//@ grid   1
//@ block  128
//@ check  none
__constant__ float a[5];
__device__ int c;
__global__ void k(int n, float *y) { if (threadIdx.x < n) y[threadIdx.x] = a[0] + c; }
