// wmma_gemm.cu: a GEMM on the tensor cores through WMMA, written the way NVIDIA's "Programming Tensor Cores in CUDA 9" post writes it: each warp one 16x16 tile of C, fragments loaded straight from global memory
#include <mma.h>
using namespace nvcuda;

//@ param  M = 4096
//@ param  N = 4096
//@ param  K = 4096
//@ buffer A half[M * K] random
//@ buffer B half[K * N] random
//@ buffer C float[M * N] poison output
//@ grid   cdiv(M, 64), cdiv(N, 64)
//@ block  128, 4
//@ flops  2 * M * N * K
//@ bytes  (M * K + K * N) * 2 + M * N * 4
//@ check  C = matmul(A, B, M, N, K)

#define WMMA_M 16
#define WMMA_N 16
#define WMMA_K 16

// A is M x K, B is K x N, C is M x N, all row-major; M, N, K multiples of 16
__global__ void wmma_gemm(const half *A, const half *B, float *C, int M, int N, int K)
{
	// the tile of C this warp computes: 4 warps of 32 along x (rows), 4 along y (columns)
	int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
	int warpN = blockIdx.y * blockDim.y + threadIdx.y;

	wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> a_frag;
	wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> b_frag;
	wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc_frag;
	wmma::fill_fragment(acc_frag, 0.0f);

	int row = warpM * WMMA_M, col = warpN * WMMA_N;
	if (row >= M || col >= N)
		return;
	for (int k = 0; k < K; k += WMMA_K) {
		wmma::load_matrix_sync(a_frag, A + (size_t)row * K + k, K);
		wmma::load_matrix_sync(b_frag, B + (size_t)k * N + col, N);
		wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
	}
	wmma::store_matrix_sync(C + (size_t)row * N + col, acc_frag, N, wmma::mem_row_major);
}
