// tensor_gemm.cu: C = A * B on the tensor cores, FP16 inputs, FP32 accumulate
//
// N x N, A and B row-major half, C float. Each step a kernel (lesson:
// `cuplay tensor_cores`):
//   wmma_naive     a warp per 16 x 16 tile of C, its fragments loaded with
//                  wmma::load_matrix_sync straight from global memory
//   wmma_smem      a 128 x 128 tile per block: 128 x 32 of A and 32 x 128 of B
//                  staged in shared memory (padded rows), each warp 64 x 32 of C
//                  from fragments loaded there
//   mma_ldmatrix   mma.sync.m16n8k16 in PTX, fragments read with ldmatrix from a
//                  swizzled layout (16-byte chunk c of row r stored at chunk
//                  c ^ (r % 8)): no bank conflicts and no padding; K in slices
//                  of 64, loaded through registers, one slice at a time
//   mma_pipeline   the same with cp.async: STAGES slices in flight, the copies
//                  of the next ones overlapping the mma of the current one
// Every kernel needs N % 16 == 0 (a 16 x 16 fragment never straddles the
// edge); the check runs at N=1008, not a multiple of the block tiles, whose
// edges are zero-filled on load and guarded on store.
//@ define STAGES = 3                   // mma_pipeline: slices in flight
//@ param  N = 4096
//@ buffer A half[N*N] random
//@ buffer B half[N*N] random
//@ buffer C float[N*N] poison output
//@ grid  cdiv(N, 128), cdiv(N, 128)
//@ block 256
//@ flops 2 * N * N * N
//@ bytes N * N * (2 + 2 + 4)            // A and B read once, C written once
//@ check C = matmul(A, B, N, N, N) tol 1e-4
//@ check at N = min(N, 1008)
//@ kernel wmma_naive grid cdiv(N, 32), cdiv(N, 32)
//@ kernel wmma_naive block 128
//@ kernel mma_ldmatrix smem 2 * 128 * 64 * 2
//@ kernel mma_pipeline smem STAGES * 2 * 128 * 64 * 2

#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

// Step 1. Block of 4 warps = 32 x 32 of C; warp w takes the 16 x 16 tile at
// (2 * by + w / 2, 2 * bx + w % 2) and walks K 16 at a time, every fragment
// loaded from global memory (each element of A and B is read N / 16 times).
__global__ void wmma_naive(const half *__restrict__ A, const half *__restrict__ B, float *__restrict__ C, int N)
{
	const int warp = threadIdx.x / 32;
	const int row = blockIdx.y * 32 + (warp / 2) * 16;
	const int col = blockIdx.x * 32 + (warp % 2) * 16;
	if (row >= N || col >= N)
		return;
	wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
	wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
	wmma::fill_fragment(c, 0.0f);
	for (int k = 0; k < N; k += 16) {
		wmma::load_matrix_sync(a, A + (size_t)row * N + k, N);
		wmma::load_matrix_sync(b, B + (size_t)k * N + col, N);
		wmma::mma_sync(c, a, b, c);
	}
	wmma::store_matrix_sync(C + (size_t)row * N + col, c, N, wmma::mem_row_major);
}

// 8 halves (16 bytes) of row r of an N x N matrix from column c, zeros past
// the edge (N % 8 == 0, so a chunk is all inside or all outside).
__device__ __forceinline__ uint4 ld8h(const half *__restrict__ M, int r, int c, int N)
{
	if (r < N && c < N)
		return __ldg(reinterpret_cast<const uint4 *>(M + (size_t)r * N + c));
	return make_uint4(0, 0, 0, 0);
}

// Step 2. 8 warps as 2 x 4, each 64 x 32 of C (4 x 2 fragments); the block
// stages 128 x 32 of A and 32 x 128 of B with 16-byte loads, rows padded by 8
// halves so that the fragment loads spread over the banks.
enum { WS_AP = 32 + 8, WS_BP = 128 + 8 };

__global__ void __launch_bounds__(256)
wmma_smem(const half *__restrict__ A, const half *__restrict__ B, float *__restrict__ C, int N)
{
	__shared__ __align__(32) half As[128][WS_AP];
	__shared__ __align__(32) half Bs[32][WS_BP];
	const int t = threadIdx.x, warp = t / 32;
	const int m0 = blockIdx.y * 128, n0 = blockIdx.x * 128;
	const int wm = (warp / 4) * 64, wn = (warp % 4) * 32;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> c[4][2];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 2; j++)
			wmma::fill_fragment(c[i][j], 0.0f);
	for (int k0 = 0; k0 < N; k0 += 32) {
		for (int s = 0; s < 2; s++) {
			const int i = t + s * 256;
			// A: 128 rows x 4 chunks; B: 32 rows x 16 chunks
			*reinterpret_cast<uint4 *>(&As[i / 4][(i % 4) * 8]) = ld8h(A, m0 + i / 4, k0 + (i % 4) * 8, N);
			*reinterpret_cast<uint4 *>(&Bs[i / 16][(i % 16) * 8]) = ld8h(B, k0 + i / 16, n0 + (i % 16) * 8, N);
		}
		__syncthreads();
		for (int kk = 0; kk < 32; kk += 16) {
			wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a[4];
			wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b[2];
			for (int i = 0; i < 4; i++)
				wmma::load_matrix_sync(a[i], &As[wm + 16 * i][kk], WS_AP);
			for (int j = 0; j < 2; j++)
				wmma::load_matrix_sync(b[j], &Bs[kk][wn + 16 * j], WS_BP);
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 2; j++)
					wmma::mma_sync(c[i][j], a[i], b[j], c[i][j]);
		}
		__syncthreads();
	}
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 2; j++) {
			const int r = m0 + wm + 16 * i, cc = n0 + wn + 16 * j;
			if (r < N && cc < N) // N % 16 == 0: a fragment is all inside or all outside
				wmma::store_matrix_sync(C + (size_t)r * N + cc, c[i][j], N, wmma::mem_row_major);
		}
}

// ---------------------------------------------------------------------------
// Steps 3 and 4: mma.sync.m16n8k16 with ldmatrix.
//
// Block tile 128 x 128, K in slices of 64; 8 warps as 2 (M) x 4 (N), each
// 64 x 32 of C = 4 x 4 mma tiles of 16 x 8, 64 floats of accumulator a thread.
// Shared memory per slice: As[128][64] (rows of 128 bytes) and Bs[64][128]
// (rows of 256 bytes), halves, swizzled: the 16-byte chunk c of row r sits at
// chunk c ^ (r % 8). ldmatrix reads 8 rows of one chunk column at a time; in
// rows 128 or 256 bytes long those 8 chunks would all fall in the same 4
// banks (8-way conflicts); the XOR puts each in a different group of 4.
enum { MM_BM = 128, MM_BN = 128, MM_BK = 64, MM_SLICE = (MM_BM * MM_BK + MM_BK * MM_BN) * 2 };

// Byte offsets of the chunk holding element (r, c) of the swizzled tiles.
__device__ __forceinline__ unsigned a_off(int r, int c)
{
	return r * (MM_BK * 2) + (((c >> 3) ^ (r & 7)) << 4);
}
__device__ __forceinline__ unsigned b_off(int k, int n)
{
	return MM_BM * MM_BK * 2 + k * (MM_BN * 2) + (((n >> 3) ^ (k & 7)) << 4);
}

__device__ __forceinline__ unsigned smem_u32(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void cp_async16_zfill(unsigned dst, const half *src, bool inside)
{
	// src-size 0 copies nothing and fills the 16 bytes with zeros
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(inside ? 16 : 0)
	             : "memory");
}

// The 16-byte chunks of a slice (k0) that thread t copies: 1024 of A (128 rows
// x 8) and 1024 of B (64 rows x 16), 4 + 4 a thread. async: cp.async; else
// through registers.
template <bool ASYNC>
__device__ __forceinline__ void mm_load_slice(unsigned char *slice, const half *__restrict__ A,
                                              const half *__restrict__ B, int N, int m0, int n0, int k0)
{
	const int t = threadIdx.x;
#pragma unroll
	for (int s = 0; s < 4; s++) {
		const int i = t + s * 256;
		const int ar = i / 8, ac = (i % 8) * 8;
		const int bk = i / 16, bn = (i % 16) * 8;
		const bool ain = m0 + ar < N && k0 + ac < N, bin = k0 + bk < N && n0 + bn < N;
		const half *asrc = A + (size_t)(ain ? m0 + ar : 0) * N + (ain ? k0 + ac : 0);
		const half *bsrc = B + (size_t)(bin ? k0 + bk : 0) * N + (bin ? n0 + bn : 0);
		if (ASYNC) {
			cp_async16_zfill(smem_u32(slice + a_off(ar, ac)), asrc, ain);
			cp_async16_zfill(smem_u32(slice + b_off(bk, bn)), bsrc, bin);
		} else {
			*reinterpret_cast<uint4 *>(slice + a_off(ar, ac)) = ld8h(A, m0 + ar, k0 + ac, N);
			*reinterpret_cast<uint4 *>(slice + b_off(bk, bn)) = ld8h(B, k0 + bk, n0 + bn, N);
		}
	}
}

// The warp's 64 x 32 of C over one slice in shared memory: per 16 of K, 4
// ldmatrix.x4 of A (a 16 x 16 each), 2 ldmatrix.x4.trans of B (16 x 16 each,
// two n8 tiles), 16 mma.
__device__ __forceinline__ void mm_compute_slice(const unsigned char *slice, float (&acc)[4][4][4], int wm, int wn)
{
	const int lane = threadIdx.x % 32;
	const unsigned base = smem_u32(slice);
#pragma unroll
	for (int kk = 0; kk < MM_BK; kk += 16) {
		unsigned a[4][4], b[4][2];
#pragma unroll
		for (int i = 0; i < 4; i++) {
			// lanes 0-15: rows 0-15 at kk; lanes 16-31: rows 0-15 at kk + 8
			const unsigned addr = base + a_off(wm + 16 * i + lane % 16, kk + (lane / 16) * 8);
			asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
			             : "=r"(a[i][0]), "=r"(a[i][1]), "=r"(a[i][2]), "=r"(a[i][3])
			             : "r"(addr));
		}
#pragma unroll
		for (int j = 0; j < 2; j++) {
			// lanes 0-15: k rows kk..kk+15 at n; lanes 16-31: the same at n + 8
			const unsigned addr = base + b_off(kk + lane % 16, wn + 16 * j + (lane / 16) * 8);
			asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
			             : "=r"(b[2 * j][0]), "=r"(b[2 * j][1]), "=r"(b[2 * j + 1][0]), "=r"(b[2 * j + 1][1])
			             : "r"(addr));
		}
#pragma unroll
		for (int i = 0; i < 4; i++)
#pragma unroll
			for (int j = 0; j < 4; j++)
				asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
				             "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
				             : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]), "+f"(acc[i][j][3])
				             : "r"(a[i][0]), "r"(a[i][1]), "r"(a[i][2]), "r"(a[i][3]), "r"(b[j][0]), "r"(b[j][1]));
	}
}

// Thread (lane) holds, for mma tile (i, j), C[r][c], C[r][c+1], C[r+8][c],
// C[r+8][c+1] with r = lane / 4, c = 2 * (lane % 4) within the 16 x 8 tile.
__device__ __forceinline__ void mm_store(float *__restrict__ C, int N, const float (&acc)[4][4][4], int m, int n)
{
	const int lane = threadIdx.x % 32;
#pragma unroll
	for (int i = 0; i < 4; i++)
#pragma unroll
		for (int j = 0; j < 4; j++)
#pragma unroll
			for (int h = 0; h < 2; h++) {
				const int r = m + 16 * i + lane / 4 + 8 * h, c = n + 8 * j + 2 * (lane % 4);
				if (r < N && c < N) // N even: c + 1 < N too
					*reinterpret_cast<float2 *>(C + (size_t)r * N + c) =
						make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
			}
}

// Step 3: one slice at a time, loaded through registers, two barriers a slice.
__global__ void __launch_bounds__(256)
mma_ldmatrix(const half *__restrict__ A, const half *__restrict__ B, float *__restrict__ C, int N)
{
	extern __shared__ uint4 mm_smem[];
	unsigned char *slice = reinterpret_cast<unsigned char *>(mm_smem);
	const int warp = threadIdx.x / 32;
	const int m0 = blockIdx.y * MM_BM, n0 = blockIdx.x * MM_BN;
	const int wm = (warp / 4) * 64, wn = (warp % 4) * 32;
	float acc[4][4][4] = {};
	for (int k0 = 0; k0 < N; k0 += MM_BK) {
		mm_load_slice<false>(slice, A, B, N, m0, n0, k0);
		__syncthreads();
		mm_compute_slice(slice, acc, wm, wn);
		__syncthreads();
	}
	mm_store(C, N, acc, m0 + wm, n0 + wn);
}

// Step 4: STAGES slices in shared memory; slice s + STAGES - 1 is copied by
// cp.async while slice s is multiplied. Each thread commits one group per
// slice (empty past the end), so waiting until at most STAGES - 2 groups are
// pending means slice s has landed.
__global__ void __launch_bounds__(256)
mma_pipeline(const half *__restrict__ A, const half *__restrict__ B, float *__restrict__ C, int N)
{
	extern __shared__ uint4 mm_smem[];
	unsigned char *smem = reinterpret_cast<unsigned char *>(mm_smem);
	const int warp = threadIdx.x / 32;
	const int m0 = blockIdx.y * MM_BM, n0 = blockIdx.x * MM_BN;
	const int wm = (warp / 4) * 64, wn = (warp % 4) * 32;
	const int slices = (N + MM_BK - 1) / MM_BK;
	float acc[4][4][4] = {};
	for (int s = 0; s < STAGES - 1; s++) {
		if (s < slices)
			mm_load_slice<true>(smem + s * MM_SLICE, A, B, N, m0, n0, s * MM_BK);
		asm volatile("cp.async.commit_group;\n" ::: "memory");
	}
	for (int s = 0; s < slices; s++) {
		asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2) : "memory");
		// slice s is here for every thread; every warp is done with slice
		// s - 1, whose stage the copy below refills
		__syncthreads();
		const int next = s + STAGES - 1;
		if (next < slices)
			mm_load_slice<true>(smem + (next % STAGES) * MM_SLICE, A, B, N, m0, n0, next * MM_BK);
		asm volatile("cp.async.commit_group;\n" ::: "memory");
		mm_compute_slice(smem + (s % STAGES) * MM_SLICE, acc, wm, wn);
	}
	asm volatile("cp.async.wait_all;\n" ::: "memory");
	mm_store(C, N, acc, m0 + wm, n0 + wn);
}
