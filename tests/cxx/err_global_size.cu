// err_global_size.cu: a global declared with another size than the file's variable
//@ param  n = 100
//@ global a float[4] random
//@ buffer y float[n] poison output
//@ grid   1
//@ block  128
//@ check  none
__constant__ float a[5];
__device__ int c;
__global__ void k(int n, float *y) { if (threadIdx.x < n) y[threadIdx.x] = a[0] + c; }
