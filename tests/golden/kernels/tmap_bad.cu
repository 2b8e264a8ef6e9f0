// tmap_bad.cu: a tensormap whose box and strides the session breaks one at a time (test fixture)
//@ param  M = 100
//@ param  K = 64
//@ param  BR = 16
//@ param  BC = 32
//@ buffer A float[M*K] random
//@ buffer B float[M*K] poison output
//@ tensormap tmA = A[M, K] box BR, BC swizzle 128B
//@ grid   1
//@ block  32
//@ check  B = copy(A)
#include <cuda.h>

__global__ void tmap_arg(int M, int K, const __grid_constant__ CUtensorMap tmA, const float *A, float *B)
{
	for (int i = threadIdx.x; i < M * K; i += blockDim.x)
		B[i] = A[i];
}
