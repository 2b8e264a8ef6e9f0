// matmul_sample.cu: C = A * B the way the toolkit's samples teach it:
// BLOCK_SIZE x BLOCK_SIZE tiles of A and B staged in shared memory, the
// walk over A's row of tiles by its first and last index and a step
// (aBegin, aEnd, aStep), the dot product of two tiles unrolled. A kernel
// of a style cuplay's own are not written in, for `lines` and its line
// map (tests/golden/lines_heldout.session) and for the comparison with
// Nsight Compute (tests/bench/lines_ncu.sh).
//@ define BLOCK_SIZE = 32
//@ param  HA = 1024
//@ param  WA = 1024
//@ param  WB = 1024
//@ buffer A float[HA * WA] random
//@ buffer B float[WA * WB] random
//@ buffer C float[HA * WB] poison output
//@ grid  WB / BLOCK_SIZE, HA / BLOCK_SIZE
//@ block BLOCK_SIZE, BLOCK_SIZE
//@ flops 2 * HA * WA * WB
//@ check C = matmul(A, B, HA, WB, WA) tol 1e-4

__global__ void matrix_mul(float *C, const float *A, const float *B, int HA, int WA, int WB)
{
	const int bx = blockIdx.x, by = blockIdx.y;
	const int tx = threadIdx.x, ty = threadIdx.y;
	// the first, last and step of the tiles of A this block walks
	const int aBegin = WA * BLOCK_SIZE * by;
	const int aEnd = aBegin + WA - 1;
	const int aStep = BLOCK_SIZE;
	// ... and of B
	const int bBegin = BLOCK_SIZE * bx;
	const int bStep = BLOCK_SIZE * WB;
	float Csub = 0.0f;
	for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
		__shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
		__shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
		As[ty][tx] = A[a + WA * ty + tx]; // [load A]
		Bs[ty][tx] = B[b + WB * ty + tx]; // [load B]
		__syncthreads();
#pragma unroll
		for (int k = 0; k < BLOCK_SIZE; ++k)
			Csub += As[ty][k] * Bs[k][tx]; // [dot]
		__syncthreads();
	}
	const int c = WB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
	C[c + WB * ty + tx] = Csub; // [store]
	(void)HA;
}
