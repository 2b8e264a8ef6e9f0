// err_missing_header.cu: a header that is nowhere: the error names this file's #include line
//@ param  n = 1000
//@ buffer x float[n] random
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
#include <cuda_fp16.h>
#include <no_such_header.cuh>

__global__ void k(int n, float *x) {}
