// coalescing.cu: B = A * A with coalesced, strided, fixed, L1-reused and float4 accesses
//
// Exercises 003, exercise 1 (memory coalescing and caching):
//   square_coalesced    1.1: one element per thread, a warp reads 128 contiguous bytes
//   square_uncoalesced  1.2: each thread squares EL_PER_THREAD consecutive elements,
//                       one load-square-store at a time, so a warp's load touches
//                       addresses 4 * EL_PER_THREAD bytes apart (16 B by default)
//   square_fixed        1.3: same work per thread, only the indexing changed: on trip i
//                       thread t takes element t + i * blockDim.x of its block's chunk
//   square_l1_reuse     1.4: the strided accesses of 1.2, but the thread issues its
//                       EL_PER_THREAD loads back to back before any store, so loads
//                       2..4 ask for the sectors that load 1 just brought into L1
//   square_vectorized   the reference of 1.4: one float4 load and store per thread
// The source of 1.4's exercise1_weird_2.cu is not in the course text;
// square_l1_reuse follows its description ("a slightly modified version of the
// uncoalesced kernel", "immediate data reuse within a warp").
// What to look at (`metrics`): sectors per request of the global loads and
// stores (4 for a warp reading 32 consecutive floats, 16 for 1.2's 16-byte
// stride); l1tex__t_sector_hit_rate, for square_l1_reuse and for
// square_uncoalesced (on recent GPUs L1 caches global loads, so 1.2 may reuse
// its lines too, a full memory latency later); lts__t_sector_hit_rate (each
// strided store instruction writes 8 bytes into each of 16 sectors, and L1
// does not merge stores: L2 sees every sector 4 times).
// L1 can rescue strided loads, never strided stores, and the rescue is
// fragile (exercise 1.4, point 5): the lines must survive between fetch and reuse.
// Try: `set EL_PER_THREAD=8` (32-byte stride: one float per sector);
// `set N=1000003` (tails); `flush off`.
// No __restrict__ here, on purpose: without it the compiler may not move a load
// above an earlier store, so each kernel runs its accesses in the order written.
//@ define BLOCK_SIZE = 256
//@ define EL_PER_THREAD = 4
//@ param  N = 67108864                 // 2^26 floats: 256 MB per buffer
//@ buffer A float[N] random
//@ buffer B float[N] poison output
//@ grid  cdiv(N, BLOCK_SIZE * EL_PER_THREAD)
//@ block BLOCK_SIZE
//@ bytes 2 * N * 4                     // read A once, write B once
//@ check B = square(A)
//@ kernel square_coalesced grid cdiv(N, BLOCK_SIZE)
//@ kernel square_vectorized grid cdiv(N, BLOCK_SIZE * 4)

static_assert(EL_PER_THREAD >= 1, "EL_PER_THREAD must be at least 1");

// 1.1: thread i squares element i. A warp reads and writes 32 consecutive floats.
__global__ void square_coalesced(const float *A, float *B, int N)
{
	const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		B[i] = A[i] * A[i];
}

// 1.2: thread g owns elements g*EL .. g*EL+EL-1. On each trip of the loop the
// lanes of a warp are EL floats apart: 32 lanes spread over 32*EL*4 bytes, so
// every 32-byte sector fetched serves 32/(4*EL) lanes (2 when EL = 4).
__global__ void square_uncoalesced(const float *A, float *B, int N)
{
	const long base = ((long)blockIdx.x * blockDim.x + threadIdx.x) * EL_PER_THREAD;
#pragma unroll
	for (int i = 0; i < EL_PER_THREAD; i++) {
		const long idx = base + i;
		if (idx < N) {
			const float v = A[idx];
			B[idx] = v * v;
		}
	}
}

// 1.3: the fix. A block owns BLOCK_SIZE*EL consecutive elements; on trip i,
// thread t takes element t + i*blockDim.x of them, so a warp reads 32
// consecutive floats on every trip. Still EL elements per thread.
__global__ void square_fixed(const float *A, float *B, int N)
{
	const long base = (long)blockIdx.x * blockDim.x * EL_PER_THREAD + threadIdx.x;
#pragma unroll
	for (int i = 0; i < EL_PER_THREAD; i++) {
		const long idx = base + (long)i * blockDim.x;
		if (idx < N) {
			const float v = A[idx];
			B[idx] = v * v;
		}
	}
}

// 1.4: exactly the addresses of square_uncoalesced, only the order changes:
// all EL loads first, then the squares, then all EL stores. The first load of
// a warp brings 16 sectors into L1; the next ones ask for the same sectors
// right away.
__global__ void square_l1_reuse(const float *A, float *B, int N)
{
	const long base = ((long)blockIdx.x * blockDim.x + threadIdx.x) * EL_PER_THREAD;
	float v[EL_PER_THREAD];
#pragma unroll
	for (int i = 0; i < EL_PER_THREAD; i++)
		v[i] = base + i < N ? A[base + i] : 0.0f;
#pragma unroll
	for (int i = 0; i < EL_PER_THREAD; i++)
		v[i] = v[i] * v[i];
#pragma unroll
	for (int i = 0; i < EL_PER_THREAD; i++)
		if (base + i < N)
			B[base + i] = v[i];
}

// The reference kernel: one float4 per thread, a warp moves 512 contiguous
// bytes in one instruction. The thread holding the last N % 4 elements does
// them one by one.
__global__ void square_vectorized(const float *A, float *B, int N)
{
	const long base = ((long)blockIdx.x * blockDim.x + threadIdx.x) * 4;
	if (base + 3 < N) {
		float4 v = *reinterpret_cast<const float4 *>(A + base);
		v.x = v.x * v.x;
		v.y = v.y * v.y;
		v.z = v.z * v.z;
		v.w = v.w * v.w;
		*reinterpret_cast<float4 *>(B + base) = v;
	} else {
		for (long i = base; i < N; i++)
			B[i] = A[i] * A[i];
	}
}
