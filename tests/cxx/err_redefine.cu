// err_redefine.cu: the file defines a macro its header already defines: the warning names the //@ define, not a file of cuplay's
//@ define BS = 256
//@ buffer x float[BS] random output
//@ grid   1
//@ block  BS
//@ check  none
#include <cuda_fp16.h>
#define BS 128

__global__ void k(float *x) { x[threadIdx.x] = BS; }
