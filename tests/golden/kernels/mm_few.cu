// mm_few.cu: too few arguments (test fixture)
//@ param  M = 8
//@ param  N = 8
//@ param  K = 8
//@ buffer A fp8_e5m2[M*K] random
//@ buffer B fp8_e5m2[K*N] random
//@ buffer C float[M*N] poison output
//@ grid   1
//@ block  8, 8
//@ check  C = matmul(A, B, M, N)
#include <cuda_fp8.h>

__global__ void mm(int M, int N, int K, const __nv_fp8_e5m2 *A, const __nv_fp8_e5m2 *B, float *C)
{
	float s = 0;
	for (int k = 0; k < K; k++)
		s += float(A[threadIdx.y * K + k]) * float(B[k * N + threadIdx.x]);
	C[threadIdx.y * N + threadIdx.x] = s;
}
