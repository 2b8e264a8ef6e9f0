// err_global_list.cu: a list with more values than the global has elements
//@ param  n = 100
//@ global a float[5] {1, 2, 3, 4, 5, 6}
//@ buffer y float[n] poison output
//@ grid   1
//@ block  128
//@ check  none
__constant__ float a[5];
__device__ int c;
__global__ void k(int n, float *y) { if (threadIdx.x < n) y[threadIdx.x] = a[0] + c; }
