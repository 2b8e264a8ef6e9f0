// err_global_managed.cu: a global cannot be managed
//@ global a float[5] random managed
//@ grid 1
//@ block 1
__constant__ float a[5];
__global__ void k() {}
