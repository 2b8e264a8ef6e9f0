// matmul.cu: C = A * B, N x N floats: naive, shared-memory tiles, register-blocked tiles
//
// Lab 000 exercise 2 (matmul_naive vs matmul_optimized with TILE_SIZE) and
// lecture 002 (matrix product by blocks).
//   matmul_naive           the lab's 2.1: one thread per element of C, every
//                          operand from global memory (through L1/L2)
//   matmul_tiled           the lab's 2.2: TILE_SIZE x TILE_SIZE tiles of A and B
//                          staged in shared memory; each element loaded from
//                          global memory is used TILE_SIZE times
//   matmul_register_tiled  what a performance engineer writes next: a block of
//                          256 threads computes a 128 x 128 tile of C, each
//                          thread an 8 x 8 sub-tile held in registers; K advances
//                          8 at a time through double-buffered shared memory (A
//                          stored transposed), read back with float4 loads, and
//                          the next slices of A and B are fetched into registers
//                          while the current ones are being used. Each value
//                          read from shared memory feeds 8 FMAs.
// Edges (N not a multiple of the tile) are handled by zero-filled loads and
// guarded stores; the float4 global accesses are used only when N % 4 == 0.
// Try: `run all` (GFLOP/s against cuBLAS' ~49.5 TFLOP/s on an H100);
// `set TILE_SIZE=16` (or 8); `metrics` (global load throughput, L1 hit rate);
// `info matmul_register_tiled` (registers: 2 blocks of 256 threads fit per SM);
// `set N=1000` (the lecture's size), `set N=1023` (odd edges).
// Checking a 4096^3 product on the CPU in double takes a while: `set N=1024`
// for quick edits.
//@ define TILE_SIZE = 32
//@ define MIN_BLOCKS = 2                 // matmul_register_tiled: blocks of 256 an SM must hold
//@ param  N = 4096
//@ buffer A float[N*N] random
//@ buffer B float[N*N] random
//@ buffer C float[N*N] poison output
//@ grid  cdiv(N, TILE_SIZE), cdiv(N, TILE_SIZE)
//@ block TILE_SIZE, TILE_SIZE
//@ flops 2 * N * N * N
//@ bytes 3 * N * N * 4                 // A and B read once, C written once
//@ check C = matmul(A, B, N, N, N) tol 1e-4
//@ check at N = min(N, 509)               // a double-precision CPU matmul at 4096 takes seconds
//@ kernel matmul_register_tiled grid cdiv(N, 128), cdiv(N, 128)   // RT_BN, RT_BM below
//@ kernel matmul_register_tiled block 256                         // RT_THREADS below

// Lab 000 2.1 (and lecture 002): thread (col, row) computes C[row][col].
// A warp shares one row of A (a broadcast) and reads 32 consecutive floats of
// a row of B, so the accesses are coalesced; but nothing is reused on chip
// except what the caches happen to keep.
__global__ void matmul_naive(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int N)
{
	const int row = blockIdx.y * blockDim.y + threadIdx.y;
	const int col = blockIdx.x * blockDim.x + threadIdx.x;
	if (row < N && col < N) {
		float sum = 0.0f;
		for (int k = 0; k < N; k++)
			sum += A[(size_t)row * N + k] * B[(size_t)k * N + col];
		C[(size_t)row * N + col] = sum;
	}
}

// Lab 000 2.2: the block walks along K one TILE_SIZE x TILE_SIZE tile of A and
// of B at a time; each thread loads one element of each, zero outside the
// matrix, and the block multiplies the two tiles out of shared memory.
__global__ void matmul_tiled(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int N)
{
	__shared__ float As[TILE_SIZE][TILE_SIZE];
	__shared__ float Bs[TILE_SIZE][TILE_SIZE];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const int row = blockIdx.y * TILE_SIZE + ty;
	const int col = blockIdx.x * TILE_SIZE + tx;
	float sum = 0.0f;
	for (int t = 0; t < (N + TILE_SIZE - 1) / TILE_SIZE; t++) {
		const int ka = t * TILE_SIZE + tx; // column of A loaded by this thread
		const int kb = t * TILE_SIZE + ty; // row of B loaded by this thread
		As[ty][tx] = (row < N && ka < N) ? A[(size_t)row * N + ka] : 0.0f;
		Bs[ty][tx] = (kb < N && col < N) ? B[(size_t)kb * N + col] : 0.0f;
		__syncthreads();
#pragma unroll
		for (int k = 0; k < TILE_SIZE; k++)
			sum += As[ty][k] * Bs[k][tx];
		__syncthreads();
	}
	if (row < N && col < N)
		C[(size_t)row * N + col] = sum;
}

// ---------------------------------------------------------------------------
// matmul_register_tiled
//
// Block tile RT_BM x RT_BN of C, 256 threads = 8 warps laid out 4 (rows) x 2
// (columns); a warp covers 32 rows x 64 columns, its 32 lanes 4 x 8; a thread
// holds 8 x 8 accumulators: rows {r, r+1, r+2, r+3, r+16, .., r+19} and columns
// {c, .., c+3, c+32, .., c+35}. Splitting the thread's rows and columns in two
// groups of 4 makes the 8 lanes of a warp row read 8 consecutive float4 (128
// contiguous bytes) of the B slice, and the 4 lane rows read 4 consecutive
// float4 of the A slice: no bank conflicts, broadcast where lanes agree.
//
// Shared memory per stage: As[k][m] = A[m0 + m][k0 + k] (transposed, rows
// padded by 4 floats so that the transposing stores do not conflict) and
// Bs[k][n] = B[k0 + k][n0 + n]. Global loads: each thread fetches one float4
// of the A slice (128 x 8) and one of the B slice (8 x 128) per step.
//
// The layout constants are tied together (8 warps x 32 lanes x 8 x 8 = 128 x
// 128); changing them means changing the index arithmetic too, and the
// `//@ kernel matmul_register_tiled` lines above.
// (An enum rather than namespace-scope constexpr ints, which NVRTC emits as
// unused global variables.) RT_APAD keeps rows 16-byte aligned and moves the
// transposing stores of lanes 16..31 to the other 16 banks.
enum { RT_BM = 128, RT_BN = 128, RT_BK = 8, RT_THREADS = 256, RT_APAD = 4 };

static_assert(RT_BM * RT_BK == 4 * RT_THREADS, "one float4 of A per thread per step");
static_assert(RT_BK * RT_BN == 4 * RT_THREADS, "one float4 of B per thread per step");

// Four consecutive elements M[r][c..c+3] of an N x N matrix, zeros outside,
// one at a time: the edge path (the fast path is a single float4 load).
__device__ __forceinline__ float4 rt_load4_edge(const float *__restrict__ M, int r, int c, int N)
{
	float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
	if (r < N) {
		const float *p = M + (size_t)r * N + c;
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

// C[r][c..c+3] = v, guarded; one float4 store when vec (N % 4 == 0, so rows
// start 16-byte aligned, and c % 4 == 0) and all four are inside.
__device__ __forceinline__ void rt_store4(float *__restrict__ C, int r, int c, int N, bool vec, float4 v)
{
	if (r >= N)
		return;
	float *p = C + (size_t)r * N + c;
	if (vec && c + 3 < N) {
		*reinterpret_cast<float4 *>(p) = v;
	} else {
		if (c < N)
			p[0] = v.x;
		if (c + 1 < N)
			p[1] = v.y;
		if (c + 2 < N)
			p[2] = v.z;
		if (c + 3 < N)
			p[3] = v.w;
	}
}

__global__ void __launch_bounds__(RT_THREADS, MIN_BLOCKS)
matmul_register_tiled(const float *__restrict__ A, const float *__restrict__ B,
                      float *__restrict__ C, int N)
{
	__shared__ __align__(16) float As[2][RT_BK][RT_BM + RT_APAD];
	__shared__ __align__(16) float Bs[2][RT_BK][RT_BN];

	const int tid = threadIdx.x;
	const int warp = tid >> 5, lane = tid & 31;
	// First row and column of this thread's 8 x 8 sub-tile, within the block tile.
	const int tm = (warp >> 1) * 32 + (lane >> 3) * 4;
	const int tn = (warp & 1) * 64 + (lane & 7) * 4;

	const int m0 = blockIdx.y * RT_BM; // first row of the block's tile of C
	const int n0 = blockIdx.x * RT_BN; // first column
	const bool vec = (N & 3) == 0;

	// What this thread copies into shared memory at each step:
	// A[m0 + a_r][k0 + a_c .. +3] and B[k0 + b_r][n0 + b_c .. +3].
	const int a_r = tid >> 1, a_c = (tid & 1) * 4;
	const int b_r = tid >> 5, b_c = (tid & 31) * 4;

	float acc[8][8];
#pragma unroll
	for (int i = 0; i < 8; i++)
#pragma unroll
		for (int j = 0; j < 8; j++)
			acc[i][j] = 0.0f;

	const int nsteps = (N + RT_BK - 1) / RT_BK;

	// Global -> registers, for the step starting at k0. The fast path (one
	// float4 load, no per-element test) covers every step of a block that is
	// fully inside the matrix when N % 4 == 0; rt_load4_edge does the rest.
	// (Addresses are recomputed at each step rather than kept in pointers:
	// that saves the registers the compiler would otherwise spill.)
	const bool a_row_ok = m0 + a_r < N;
	const bool b_col_ok = vec && n0 + b_c < N; // with vec, n0 + b_c + 3 < N too
	float4 ra, rb;
	auto fetch = [&](int k0) {
		if (vec && a_row_ok && k0 + a_c + 3 < N)
			ra = __ldg(reinterpret_cast<const float4 *>(A + (size_t)(m0 + a_r) * N + k0 + a_c));
		else
			ra = rt_load4_edge(A, m0 + a_r, k0 + a_c, N);
		if (b_col_ok && k0 + b_r < N)
			rb = __ldg(reinterpret_cast<const float4 *>(B + (size_t)(k0 + b_r) * N + n0 + b_c));
		else
			rb = rt_load4_edge(B, k0 + b_r, n0 + b_c, N);
	};
	// Registers -> shared stage st: A transposed, B as is.
	auto stash = [&](int st) {
		As[st][a_c + 0][a_r] = ra.x;
		As[st][a_c + 1][a_r] = ra.y;
		As[st][a_c + 2][a_r] = ra.z;
		As[st][a_c + 3][a_r] = ra.w;
		*reinterpret_cast<float4 *>(&Bs[st][b_r][b_c]) = rb;
	};

	fetch(0);
	stash(0);
	__syncthreads();

	for (int s = 0; s < nsteps; s++) {
		const int cur = s & 1;
		const bool more = s + 1 < nsteps;
		if (more) // fetch the next slices now; they arrive while we compute
			fetch((s + 1) * RT_BK);
#pragma unroll
		for (int k = 0; k < RT_BK; k++) {
			const float4 a0 = *reinterpret_cast<const float4 *>(&As[cur][k][tm]);
			const float4 a1 = *reinterpret_cast<const float4 *>(&As[cur][k][tm + 16]);
			const float4 b0 = *reinterpret_cast<const float4 *>(&Bs[cur][k][tn]);
			const float4 b1 = *reinterpret_cast<const float4 *>(&Bs[cur][k][tn + 32]);
			const float a[8] = { a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w };
			const float b[8] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };
#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
		}
		// The other stage was last read during step s - 1, and every thread
		// has passed the barrier that ended that step: safe to overwrite.
		if (more)
			stash(cur ^ 1);
		__syncthreads();
	}

#pragma unroll
	for (int i = 0; i < 8; i++) {
		const int r = m0 + tm + (i < 4 ? i : 12 + i); // rows tm..tm+3, tm+16..tm+19
		rt_store4(C, r, n0 + tn, N, vec, make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
		rt_store4(C, r, n0 + tn + 32, N, vec, make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
	}
}
