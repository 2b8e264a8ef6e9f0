// sgemm.cu: C = A * B in FP32 on the CUDA cores, N x N, one step at a time
//
// The SGEMM worklog's path from a naive kernel to one near cuBLAS, each step
// a kernel of its own (lesson: `cuplay sgemm_worklog`):
//   sgemm_naive          one thread per element of C; consecutive threads take
//                        consecutive rows, so a warp's loads of A are 32 rows
//                        apart: 32 sectors a request
//   sgemm_coalesced      the same with consecutive threads on consecutive
//                        columns: a warp reads 32 neighbouring floats of B and
//                        one broadcast float of A
//   sgemm_smem           32 x 32 tiles of A and B staged in shared memory: each
//                        float loaded from global memory is used 32 times
//   sgemm_blocktile_1d   a 64 x 64 tile per block, 8 results per thread down a
//                        column: one shared load of B feeds 8 FMAs
//   sgemm_blocktile_2d   a 128 x 128 tile, 8 x 8 results per thread: 16 shared
//                        loads feed 64 FMAs
//   sgemm_vectorized     the same with float4 global and shared loads, the A
//                        tile stored transposed so that a thread's 8 values of
//                        A are contiguous
//   sgemm_warptile       warps own a 64 x 64 sub-tile whose lanes read
//                        neighbouring float4 (no bank conflicts), 16 x 8 results
//                        a thread; K in slices of WT_BK through two shared-memory
//                        stages, the next slice fetched into registers while the
//                        current one is used (double buffering)
//   sgemm_fastpath       the same loop without index arithmetic or edge checks
//                        between slices for the blocks wholly inside, and
//                        slices of 16
// Edges (N not a multiple of a tile) are zero-filled on load and guarded on
// store; float4 global accesses are used where N % 4 == 0 and the tile is
// inside. The check runs at N=1008 (a multiple of no tile, a multiple of 16:
// the float4 paths, step 8's fast copy inside and the edges); `set N=509`
// tries the scalar edges.
//@ define WT_BM = 128                  // sgemm_warptile: block tile rows
//@ define WT_BN = 256                  //   block tile columns
//@ define WT_BK = 8                    //   K slice per stage
//@ define WT_TM = 16                   //   rows a thread (8 or 16; 8 columns)
//@ define WT_MINB = 1                  //   blocks an SM must hold (registers)
//@ param  N = 4096
//@ buffer A float[N*N] random
//@ buffer B float[N*N] random
//@ buffer C float[N*N] poison output
//@ grid  cdiv(N, 32), cdiv(N, 32)
//@ block 32, 32
//@ flops 2 * N * N * N
//@ bytes 3 * N * N * 4                 // A and B read once, C written once
//@ check C = matmul(A, B, N, N, N) tol 1e-4
//@ check at N = min(N, 1008)            // a double-precision CPU matmul at 4096 takes seconds
//@ kernel sgemm_blocktile_1d grid cdiv(N, 64), cdiv(N, 64)
//@ kernel sgemm_blocktile_1d block 512
//@ kernel sgemm_blocktile_2d grid cdiv(N, 128), cdiv(N, 128)
//@ kernel sgemm_blocktile_2d block 256
//@ kernel sgemm_vectorized grid cdiv(N, 128), cdiv(N, 128)
//@ kernel sgemm_vectorized block 256
//@ kernel sgemm_warptile grid cdiv(N, WT_BN), cdiv(N, WT_BM)
//@ kernel sgemm_warptile block WT_BM * WT_BN / (WT_TM * 8)   // WT_TM x 8 results a thread
//@ kernel sgemm_warptile smem 2 * WT_BK * (WT_BM + 4 + WT_BN) * 4
//@ define FP_BK = 16                   // sgemm_fastpath: K slice per stage (WT_* as above)
//@ kernel sgemm_fastpath grid cdiv(N, WT_BN), cdiv(N, WT_BM)
//@ kernel sgemm_fastpath block WT_BM * WT_BN / (WT_TM * 8)
//@ kernel sgemm_fastpath smem 2 * FP_BK * (WT_BM + 4 + WT_BN) * 4

// Step 1. Thread (x, y) of block (bx, by) computes C[row][col] with row from
// x: the 32 lanes of a warp read A[row..row+31][k], 32 rows apart.
__global__ void sgemm_naive(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int N)
{
	const int row = blockIdx.x * 32 + threadIdx.x;
	const int col = blockIdx.y * 32 + threadIdx.y;
	if (row < N && col < N) {
		float sum = 0.0f;
		for (int k = 0; k < N; k++)
			sum += A[(size_t)row * N + k] * B[(size_t)k * N + col];
		C[(size_t)row * N + col] = sum;
	}
}

// Step 2. The column from x: a warp reads one float of A (a broadcast) and 32
// consecutive floats of B, and writes 32 consecutive floats of C.
__global__ void sgemm_coalesced(const float *__restrict__ A, const float *__restrict__ B,
                                float *__restrict__ C, int N)
{
	const int row = blockIdx.y * 32 + threadIdx.y;
	const int col = blockIdx.x * 32 + threadIdx.x;
	if (row < N && col < N) {
		float sum = 0.0f;
		for (int k = 0; k < N; k++)
			sum += A[(size_t)row * N + k] * B[(size_t)k * N + col];
		C[(size_t)row * N + col] = sum;
	}
}

// M[r][c] of an N x N matrix, zero outside.
__device__ __forceinline__ float ld_or0(const float *__restrict__ M, int r, int c, int N)
{
	return (r < N && c < N) ? M[(size_t)r * N + c] : 0.0f;
}

// Step 3. The block walks along K one 32 x 32 tile of A and of B at a time;
// each thread loads one float of each, and the block multiplies the tiles
// out of shared memory.
__global__ void sgemm_smem(const float *__restrict__ A, const float *__restrict__ B,
                           float *__restrict__ C, int N)
{
	__shared__ float As[32][32];
	__shared__ float Bs[32][32];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const int row = blockIdx.y * 32 + ty, col = blockIdx.x * 32 + tx;
	float sum = 0.0f;
	for (int k0 = 0; k0 < N; k0 += 32) {
		As[ty][tx] = ld_or0(A, row, k0 + tx, N);
		Bs[ty][tx] = ld_or0(B, k0 + ty, col, N);
		__syncthreads();
#pragma unroll
		for (int k = 0; k < 32; k++)
			sum += As[ty][k] * Bs[k][tx];
		__syncthreads();
	}
	if (row < N && col < N)
		C[(size_t)row * N + col] = sum;
}

// Step 4. A 64 x 64 tile of C per block of 512 threads, K in slices of 8.
// Thread t owns column t % 64 and the 8 rows from (t / 64) * 8: each float of
// B read from shared memory feeds 8 FMAs; the 8 floats of A are the same for
// the whole warp (a broadcast).
__global__ void sgemm_blocktile_1d(const float *__restrict__ A, const float *__restrict__ B,
                                   float *__restrict__ C, int N)
{
	__shared__ float As[64][8];
	__shared__ float Bs[8][64];
	const int t = threadIdx.x;
	const int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
	const int c = t % 64, r0 = (t / 64) * 8;
	float acc[8] = { 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f };
	for (int k0 = 0; k0 < N; k0 += 8) {
		As[t / 8][t % 8] = ld_or0(A, m0 + t / 8, k0 + t % 8, N);
		Bs[t / 64][t % 64] = ld_or0(B, k0 + t / 64, n0 + t % 64, N);
		__syncthreads();
#pragma unroll
		for (int k = 0; k < 8; k++) {
			const float b = Bs[k][c];
#pragma unroll
			for (int i = 0; i < 8; i++)
				acc[i] += As[r0 + i][k] * b;
		}
		__syncthreads();
	}
	for (int i = 0; i < 8; i++)
		if (m0 + r0 + i < N && n0 + c < N)
			C[(size_t)(m0 + r0 + i) * N + n0 + c] = acc[i];
}

// Step 5. A 128 x 128 tile per block of 256 threads, K in slices of 8; thread
// (t / 16, t % 16) owns an 8 x 8 sub-tile: per k it reads 8 floats of A and 8
// of B from shared memory into registers and does their 64 products.
__global__ void __launch_bounds__(256)
sgemm_blocktile_2d(const float *__restrict__ A, const float *__restrict__ B,
                   float *__restrict__ C, int N)
{
	__shared__ float As[128][8];
	__shared__ float Bs[8][128];
	const int t = threadIdx.x;
	const int m0 = blockIdx.y * 128, n0 = blockIdx.x * 128;
	const int tr = (t / 16) * 8, tc = (t % 16) * 8;
	float acc[8][8] = {};
	for (int k0 = 0; k0 < N; k0 += 8) {
#pragma unroll
		for (int s = 0; s < 4; s++) {
			const int i = t + s * 256;
			As[i / 8][i % 8] = ld_or0(A, m0 + i / 8, k0 + i % 8, N);
			Bs[i / 128][i % 128] = ld_or0(B, k0 + i / 128, n0 + i % 128, N);
		}
		__syncthreads();
#pragma unroll
		for (int k = 0; k < 8; k++) {
			float a[8], b[8];
#pragma unroll
			for (int i = 0; i < 8; i++) {
				a[i] = As[tr + i][k];
				b[i] = Bs[k][tc + i];
			}
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					acc[i][j] += a[i] * b[j];
		}
		__syncthreads();
	}
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 8; j++)
			if (m0 + tr + i < N && n0 + tc + j < N)
				C[(size_t)(m0 + tr + i) * N + n0 + tc + j] = acc[i][j];
}

// M[r][c..c+3] of an N x N matrix, zeros outside: one float4 load when fast
// (the caller knows all four are inside and N % 4 == 0), else one at a time.
__device__ __forceinline__ float4 ld4(const float *__restrict__ M, int r, int c, int N, bool fast)
{
	const float *p = M + (size_t)r * N + c;
	if (fast)
		return __ldg(reinterpret_cast<const float4 *>(p));
	float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
	if (r < N) {
		if (c < N)
			v.x = __ldg(p);
		if (c + 1 < N)
			v.y = __ldg(p + 1);
		if (c + 2 < N)
			v.z = __ldg(p + 2);
		if (c + 3 < N)
			v.w = __ldg(p + 3);
	}
	return v;
}

// C[r][c..c+3] = v, guarded; one float4 store when N % 4 == 0 and all inside.
__device__ __forceinline__ void st4(float *__restrict__ C, int r, int c, int N, float4 v)
{
	if (r >= N)
		return;
	float *p = C + (size_t)r * N + c;
	if ((N & 3) == 0 && c + 3 < N) {
		*reinterpret_cast<float4 *>(p) = v;
		return;
	}
	const float e[4] = { v.x, v.y, v.z, v.w };
	for (int j = 0; j < 4 && c + j < N; j++)
		p[j] = e[j];
}

// Step 6. Step 5 with 16-byte accesses: each thread loads one float4 of A
// (a row, 4 along K) and one of B per slice; A goes into shared memory
// transposed (AsT[k][m]) so that a thread's 8 values of A for one k are two
// float4, like its 8 values of B.
__global__ void __launch_bounds__(256)
sgemm_vectorized(const float *__restrict__ A, const float *__restrict__ B,
                 float *__restrict__ C, int N)
{
	__shared__ __align__(16) float AsT[8][128];
	__shared__ __align__(16) float Bs[8][128];
	const int t = threadIdx.x;
	const int m0 = blockIdx.y * 128, n0 = blockIdx.x * 128;
	const int tr = (t / 16) * 8, tc = (t % 16) * 8;
	const int ar = t / 2, ak = (t % 2) * 4; // A[m0 + ar][k0 + ak .. +3]
	const int br = t / 32, bc = (t % 32) * 4; // B[k0 + br][n0 + bc .. +3]
	const bool inside = (N & 3) == 0 && m0 + 128 <= N && n0 + 128 <= N;
	float acc[8][8] = {};
	for (int k0 = 0; k0 < N; k0 += 8) {
		const bool fast = inside && k0 + 8 <= N;
		const float4 a = ld4(A, m0 + ar, k0 + ak, N, fast);
		AsT[ak + 0][ar] = a.x;
		AsT[ak + 1][ar] = a.y;
		AsT[ak + 2][ar] = a.z;
		AsT[ak + 3][ar] = a.w;
		*reinterpret_cast<float4 *>(&Bs[br][bc]) = ld4(B, k0 + br, n0 + bc, N, fast);
		__syncthreads();
#pragma unroll
		for (int k = 0; k < 8; k++) {
			const float4 a0 = *reinterpret_cast<const float4 *>(&AsT[k][tr]);
			const float4 a1 = *reinterpret_cast<const float4 *>(&AsT[k][tr + 4]);
			const float4 b0 = *reinterpret_cast<const float4 *>(&Bs[k][tc]);
			const float4 b1 = *reinterpret_cast<const float4 *>(&Bs[k][tc + 4]);
			const float av[8] = { a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w };
			const float bv[8] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
		}
		__syncthreads();
	}
#pragma unroll
	for (int i = 0; i < 8; i++) {
		st4(C, m0 + tr + i, n0 + tc, N, make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
		st4(C, m0 + tr + i, n0 + tc + 4, N, make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
	}
}

// ---------------------------------------------------------------------------
// Step 7. sgemm_warptile
//
// Block tile WT_BM x WT_BN, WT_BM * WT_BN / (WT_TM * 8) threads, each WT_TM x
// 8 results. A warp owns a (4 * WT_TM) x 64 sub-tile; its lanes form 4 rows x
// 8 columns, and a lane's WT_TM x 8 is (WT_TM / 4) x 2 chunks of 4 x 4 placed
// 16 rows and 32 columns apart. So for one k the 8 lanes of a lane row read 8
// neighbouring float4 of B (128 bytes) and the 4 lane rows 4 neighbouring
// float4 of A: one wavefront each, the rest broadcast. With WT_TM = 16 a
// thread does 128 FMAs for every 6 float4 it reads from shared memory. Two shared stages: while the block computes on
// one, each thread holds the next slice's global loads in registers and
// stores them into the other stage after, one barrier a slice.
// Shared layout per stage: AsT[WT_BK][WT_BM + 4] (A transposed; 4 floats of
// padding keep rows 16-byte aligned and halve the transposing stores'
// conflicts), then Bs[WT_BK][WT_BN].
enum {
	WT_T = WT_BM * WT_BN / (WT_TM * 8), // threads
	WT_WM = 4 * WT_TM,         // warp tile rows
	WT_AP = WT_BM + 4,         // AsT row length
	WT_WARPS_N = WT_BN / 64,   // warps along N
	WT_LA = WT_BM * WT_BK / 4 / WT_T, // float4 of A a thread loads a slice
	WT_LB = WT_BN * WT_BK / 4 / WT_T, // float4 of B
	WT_STAGE = WT_BK * (WT_AP + WT_BN), // floats a stage
};
static_assert(WT_BM % WT_WM == 0 && WT_BN % 64 == 0, "whole warp tiles");
static_assert(WT_LA * WT_T * 4 == WT_BM * WT_BK && WT_LB * WT_T * 4 == WT_BN * WT_BK,
              "whole float4 of A and B per thread");

__global__ void __launch_bounds__(WT_T, WT_MINB)
sgemm_warptile(const float *__restrict__ A, const float *__restrict__ B,
               float *__restrict__ C, int N)
{
	extern __shared__ float4 wt_smem4[];
	float *smem = reinterpret_cast<float *>(wt_smem4);
	const int t = threadIdx.x, warp = t / 32, lane = t % 32;
	const int tm = (warp / WT_WARPS_N) * WT_WM + (lane / 8) * 4; // first row within the block tile
	const int tn = (warp % WT_WARPS_N) * 64 + (lane % 8) * 4; // first column
	const int m0 = blockIdx.y * WT_BM, n0 = blockIdx.x * WT_BN;
	const bool inside = (N & 3) == 0 && m0 + WT_BM <= N && n0 + WT_BN <= N;

	float4 ra[WT_LA], rb[WT_LB];
	auto fetch = [&](int k0) {
		const bool fast = inside && k0 + WT_BK <= N;
#pragma unroll
		for (int s = 0; s < WT_LA; s++) {
			const int i = t + s * WT_T;
			ra[s] = ld4(A, m0 + i / (WT_BK / 4), k0 + (i % (WT_BK / 4)) * 4, N, fast);
		}
#pragma unroll
		for (int s = 0; s < WT_LB; s++) {
			const int i = t + s * WT_T;
			rb[s] = ld4(B, k0 + i / (WT_BN / 4), n0 + (i % (WT_BN / 4)) * 4, N, fast);
		}
	};
	auto stash = [&](int st) {
		float *as = smem + st * WT_STAGE, *bs = as + WT_BK * WT_AP;
#pragma unroll
		for (int s = 0; s < WT_LA; s++) {
			const int i = t + s * WT_T;
			const int m = i / (WT_BK / 4), k = (i % (WT_BK / 4)) * 4;
			as[(k + 0) * WT_AP + m] = ra[s].x;
			as[(k + 1) * WT_AP + m] = ra[s].y;
			as[(k + 2) * WT_AP + m] = ra[s].z;
			as[(k + 3) * WT_AP + m] = ra[s].w;
		}
#pragma unroll
		for (int s = 0; s < WT_LB; s++) {
			const int i = t + s * WT_T;
			*reinterpret_cast<float4 *>(bs + (i / (WT_BN / 4)) * WT_BN + (i % (WT_BN / 4)) * 4) = rb[s];
		}
	};

	float acc[WT_TM][8] = {};
	fetch(0);
	stash(0);
	__syncthreads();
	const int nslices = (N + WT_BK - 1) / WT_BK;
	for (int s = 0; s < nslices; s++) {
		const float *as = smem + (s & 1) * WT_STAGE, *bs = as + WT_BK * WT_AP;
		const bool more = s + 1 < nslices;
		if (more)
			fetch((s + 1) * WT_BK);
#pragma unroll
		for (int k = 0; k < WT_BK; k++) {
			float av[WT_TM];
#pragma unroll
			for (int c = 0; c < WT_TM / 4; c++) {
				const float4 a = *reinterpret_cast<const float4 *>(as + k * WT_AP + tm + 16 * c);
				av[4 * c] = a.x, av[4 * c + 1] = a.y, av[4 * c + 2] = a.z, av[4 * c + 3] = a.w;
			}
			const float4 b0 = *reinterpret_cast<const float4 *>(bs + k * WT_BN + tn);
			const float4 b1 = *reinterpret_cast<const float4 *>(bs + k * WT_BN + tn + 32);
			const float bv[8] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
			for (int i = 0; i < WT_TM; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
		}
		// The other stage was last read in slice s - 1, before the barrier
		// that ended it: free to overwrite.
		if (more)
			stash((s + 1) & 1);
		__syncthreads();
	}
#pragma unroll
	for (int i = 0; i < WT_TM; i++) {
		const int r = m0 + tm + 16 * (i / 4) + i % 4; // rows tm..tm+3, tm+16..tm+19, ...
		st4(C, r, n0 + tn, N, make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
		st4(C, r, n0 + tn + 32, N, make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
	}
}

// ---------------------------------------------------------------------------
// Step 8. sgemm_fastpath
//
// Step 7's loop, in two copies. In step 7, at the top of every slice each
// thread finds its loads' rows and columns again and checks them against the
// edges: integer arithmetic and branches, each waiting on the last. The two
// warps a scheduler holds belong to the same block, which the barrier keeps
// in step, so they wait together and the FMA pipe idles. Here the blocks
// wholly inside the matrix (all of them at N=4096) run a copy that loads
// through pointers advanced by a constant each slice: one add a load, nothing
// to wait on. The blocks on the edges run a copy with step 7's loads. With
// that cost gone, a slice twice as deep (FP_BK = 16) pays for its larger
// stage: half the barriers and stashes. Step 7 keeps its own loop, as every
// step of this file does: run through a template shared with this one, it
// lost 4% on an H100 and an H200.
template <bool FAST, int BK>
__device__ __forceinline__ void fp_slices(const float *__restrict__ A, const float *__restrict__ B,
                                          float *smem, float (&acc)[WT_TM][8], int N, int m0, int n0,
                                          int t, int tm, int tn, bool inside)
{
	constexpr int LA = WT_BM * BK / 4 / WT_T; // float4 of A a thread loads a slice
	constexpr int LB = WT_BN * BK / 4 / WT_T; // float4 of B
	constexpr int STAGE = BK * (WT_AP + WT_BN); // floats a stage
	static_assert(LA * WT_T * 4 == WT_BM * BK && LB * WT_T * 4 == WT_BN * BK,
	              "whole float4 of A and B per thread");
	float4 ra[LA], rb[LB];
	const float *pa[LA], *pb[LB]; // FAST: where the next slice's loads are
#pragma unroll
	for (int s = 0; s < LA; s++) {
		const int i = t + s * WT_T;
		pa[s] = A + (size_t)(m0 + i / (BK / 4)) * N + (i % (BK / 4)) * 4;
	}
#pragma unroll
	for (int s = 0; s < LB; s++) {
		const int i = t + s * WT_T;
		pb[s] = B + (size_t)(i / (WT_BN / 4)) * N + n0 + (i % (WT_BN / 4)) * 4;
	}
	const size_t bstep = (size_t)BK * N;
	auto fetch = [&](int k0) {
		if (FAST) {
#pragma unroll
			for (int s = 0; s < LA; s++) {
				ra[s] = __ldg(reinterpret_cast<const float4 *>(pa[s]));
				pa[s] += BK;
			}
#pragma unroll
			for (int s = 0; s < LB; s++) {
				rb[s] = __ldg(reinterpret_cast<const float4 *>(pb[s]));
				pb[s] += bstep;
			}
			return;
		}
		const bool fast = inside && k0 + BK <= N;
#pragma unroll
		for (int s = 0; s < LA; s++) {
			const int i = t + s * WT_T;
			ra[s] = ld4(A, m0 + i / (BK / 4), k0 + (i % (BK / 4)) * 4, N, fast);
		}
#pragma unroll
		for (int s = 0; s < LB; s++) {
			const int i = t + s * WT_T;
			rb[s] = ld4(B, k0 + i / (WT_BN / 4), n0 + (i % (WT_BN / 4)) * 4, N, fast);
		}
	};
	auto stash = [&](int st) {
		float *as = smem + st * STAGE, *bs = as + BK * WT_AP;
#pragma unroll
		for (int s = 0; s < LA; s++) {
			const int i = t + s * WT_T;
			const int m = i / (BK / 4), k = (i % (BK / 4)) * 4;
			as[(k + 0) * WT_AP + m] = ra[s].x;
			as[(k + 1) * WT_AP + m] = ra[s].y;
			as[(k + 2) * WT_AP + m] = ra[s].z;
			as[(k + 3) * WT_AP + m] = ra[s].w;
		}
#pragma unroll
		for (int s = 0; s < LB; s++) {
			const int i = t + s * WT_T;
			*reinterpret_cast<float4 *>(bs + (i / (WT_BN / 4)) * WT_BN + (i % (WT_BN / 4)) * 4) = rb[s];
		}
	};
	fetch(0);
	stash(0);
	__syncthreads();
	const int nslices = (N + BK - 1) / BK;
	for (int s = 0; s < nslices; s++) {
		const float *as = smem + (s & 1) * STAGE, *bs = as + BK * WT_AP;
		const bool more = s + 1 < nslices;
		if (more)
			fetch((s + 1) * BK);
#pragma unroll
		for (int k = 0; k < BK; k++) {
			float av[WT_TM];
#pragma unroll
			for (int c = 0; c < WT_TM / 4; c++) {
				const float4 a = *reinterpret_cast<const float4 *>(as + k * WT_AP + tm + 16 * c);
				av[4 * c] = a.x, av[4 * c + 1] = a.y, av[4 * c + 2] = a.z, av[4 * c + 3] = a.w;
			}
			const float4 b0 = *reinterpret_cast<const float4 *>(bs + k * WT_BN + tn);
			const float4 b1 = *reinterpret_cast<const float4 *>(bs + k * WT_BN + tn + 32);
			const float bv[8] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
			for (int i = 0; i < WT_TM; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
		}
		if (more)
			stash((s + 1) & 1);
		__syncthreads();
	}
}

__global__ void __launch_bounds__(WT_T, WT_MINB)
sgemm_fastpath(const float *__restrict__ A, const float *__restrict__ B,
               float *__restrict__ C, int N)
{
	extern __shared__ float4 wt_smem4[];
	float *smem = reinterpret_cast<float *>(wt_smem4);
	const int t = threadIdx.x, warp = t / 32, lane = t % 32;
	const int tm = (warp / WT_WARPS_N) * WT_WM + (lane / 8) * 4;
	const int tn = (warp % WT_WARPS_N) * 64 + (lane % 8) * 4;
	const int m0 = blockIdx.y * WT_BM, n0 = blockIdx.x * WT_BN;
	const bool inside = (N & 3) == 0 && m0 + WT_BM <= N && n0 + WT_BN <= N;
	float acc[WT_TM][8] = {};
	if (inside && N % FP_BK == 0) // the same for every thread of the block
		fp_slices<true, FP_BK>(A, B, smem, acc, N, m0, n0, t, tm, tn, inside);
	else
		fp_slices<false, FP_BK>(A, B, smem, acc, N, m0, n0, t, tm, tn, inside);
#pragma unroll
	for (int i = 0; i < WT_TM; i++) {
		const int r = m0 + tm + 16 * (i / 4) + i % 4;
		st4(C, r, n0 + tn, N, make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
		st4(C, r, n0 + tn + 32, N, make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
	}
}
