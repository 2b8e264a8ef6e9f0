// err_global_param.cu: a kernel parameter with the name of a global
//@ global a float[5] random
//@ grid 1
//@ block 1
//@ check none
__constant__ float a[5];
__global__ void k(float *a) {}
