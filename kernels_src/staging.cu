// staging.cu: a memory-bound tiled kernel, its tiles staged three ways
//
// out = alpha * in over N floats, the way every tiled kernel moves data: a
// tile of TILE floats from global into shared memory, then each thread
// computes from shared memory. One block per SM walks the tiles (a
// persistent loop), so how many bytes a block keeps in flight sets the speed
// (lesson: `cuplay async_copy`):
//   stage_sync   global -> registers -> shared, a barrier, compute, a barrier:
//                the block has one tile's loads in flight, then none while it
//                computes; warps stall waiting for their loads
//   stage_cpasync  cp.async (sm_80) copies global -> shared without passing
//                through registers; STAGES tiles in flight, the next ones
//                copied while the current one is used (STAGES = 2: double
//                buffering); warps wait in cp.async.wait_group
//   stage_tma    one thread asks the TMA unit (sm_90) for a whole tile with
//                one cp.async.bulk; the tile's arrival completes a
//                transaction count on an mbarrier that the block waits on
// N need not be a multiple of the tile; tail elements past the last whole
// float4 are done one at a time.
//@ define TILE = 4096                  // floats a tile: 16 KiB
//@ define STAGES = 2
//@ param  N = 67108864
//@ param  alpha = 2
//@ buffer in  float[N] random
//@ buffer out float[N] poison output
//@ grid  SM_COUNT
//@ block 256
//@ smem  STAGES * TILE * 4
//@ bytes 2 * N * 4
//@ check out = scale(in, alpha)
//@ check at N = min(N, 1000003)
//@ kernel stage_sync smem TILE * 4

static_assert(TILE % (4 * 256) == 0, "whole float4 for each of 256 threads");

// Past the last whole tile: the few floats of a partial last tile, by block 0
// one at a time (every variant shares it).
__device__ __forceinline__ void stage_tail(const float *__restrict__ in, float *__restrict__ out,
                                           int N, float alpha, int from)
{
	if (blockIdx.x == 0)
		for (int i = from + threadIdx.x; i < N; i += blockDim.x)
			out[i] = alpha * in[i];
}

// The work on a tile in shared memory: thread t handles float4 t, t + 256, ...
__device__ __forceinline__ void stage_compute(const float *tile, float *__restrict__ out, int t0,
                                              float alpha)
{
	for (int j = threadIdx.x; j < TILE / 4; j += blockDim.x) {
		float4 v = reinterpret_cast<const float4 *>(tile)[j];
		v.x *= alpha, v.y *= alpha, v.z *= alpha, v.w *= alpha;
		*reinterpret_cast<float4 *>(out + t0 + 4 * j) = v;
	}
}

__global__ void __launch_bounds__(256)
stage_sync(const float *__restrict__ in, float *__restrict__ out, int N, float alpha)
{
	extern __shared__ float4 smem4[];
	float *tile = reinterpret_cast<float *>(smem4);
	const int tiles = N / TILE;
	for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
		const float4 *src = reinterpret_cast<const float4 *>(in + (size_t)t * TILE);
		for (int j = threadIdx.x; j < TILE / 4; j += blockDim.x)
			smem4[j] = src[j];
		__syncthreads();
		stage_compute(tile, out, t * TILE, alpha);
		__syncthreads();
	}
	stage_tail(in, out, N, alpha, tiles * TILE);
}

// 16 bytes global -> shared, asynchronously (L1 bypassed).
__device__ __forceinline__ void cp_async16(void *dst, const void *src)
{
	const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
}

__global__ void __launch_bounds__(256)
stage_cpasync(const float *__restrict__ in, float *__restrict__ out, int N, float alpha)
{
	extern __shared__ float4 smem4[];
	float *smem = reinterpret_cast<float *>(smem4);
	const int tiles = N / TILE;
	// This block's tiles are blockIdx.x + i * gridDim.x, i = 0, 1, ...; tile i
	// goes to stage i % STAGES. Each thread commits one group per tile (an
	// empty one past the end), so "all but the newest STAGES - 1 groups done"
	// always means "tile i is here".
	auto issue = [&](int i) {
		const int t = blockIdx.x + i * gridDim.x;
		if (t < tiles) {
			const float *src = in + (size_t)t * TILE;
			float *dst = smem + (i % STAGES) * TILE;
			for (int j = threadIdx.x; j < TILE / 4; j += blockDim.x)
				cp_async16(dst + 4 * j, src + 4 * j);
		}
		asm volatile("cp.async.commit_group;\n" ::: "memory");
	};
	for (int i = 0; i < STAGES - 1; i++)
		issue(i);
	for (int i = 0; blockIdx.x + i * gridDim.x < tiles; i++) {
		issue(i + STAGES - 1); // into the stage freed at the end of step i - 1
		asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 1) : "memory");
		__syncthreads(); // every thread's part of tile i has landed
		stage_compute(smem + (i % STAGES) * TILE, out, (blockIdx.x + i * gridDim.x) * TILE, alpha);
		__syncthreads(); // stage i % STAGES is free again
	}
	asm volatile("cp.async.wait_all;\n" ::: "memory");
	stage_tail(in, out, N, alpha, tiles * TILE);
}

// mbarrier and bulk-copy helpers (PTX, sm_90).
__device__ __forceinline__ unsigned smem_addr(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void mbar_init(unsigned long long *bar, unsigned count)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}

// Arrive (this thread) and add `bytes` to the transactions the phase waits for.
__device__ __forceinline__ void mbar_expect(unsigned long long *bar, unsigned bytes)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes)
	             : "memory");
}

// Wait until the phase of parity `parity` has completed.
__device__ __forceinline__ void mbar_wait(unsigned long long *bar, unsigned parity)
{
	asm volatile("{\n"
	             ".reg .pred done;\n"
	             "WAIT_%=:\n"
	             "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
	             "@!done bra WAIT_%=;\n"
	             "}\n" ::"r"(smem_addr(bar)),
	             "r"(parity)
	             : "memory");
}

// `bytes` from global to shared by the TMA unit; completes on bar.
__device__ __forceinline__ void bulk_load(void *dst, const void *src, unsigned bytes, unsigned long long *bar)
{
	asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
	                 smem_addr(dst)),
	             "l"(src), "r"(bytes), "r"(smem_addr(bar))
	             : "memory");
}

__global__ void __launch_bounds__(256)
stage_tma(const float *__restrict__ in, float *__restrict__ out, int N, float alpha)
{
	extern __shared__ float4 smem4[];
	float *smem = reinterpret_cast<float *>(smem4);
	__shared__ unsigned long long full[STAGES]; // tile of stage s has landed
	const int tiles = N / TILE;
	if (threadIdx.x == 0) {
		for (int s = 0; s < STAGES; s++)
			mbar_init(&full[s], 1);
		// the initialised barriers are visible to the TMA unit (async proxy)
		asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
	}
	__syncthreads();
	// Thread 0 asks for tile i into stage i % STAGES.
	auto issue = [&](int i) {
		const int t = blockIdx.x + i * gridDim.x;
		if (threadIdx.x == 0 && t < tiles) {
			unsigned long long *bar = &full[i % STAGES];
			mbar_expect(bar, TILE * 4);
			bulk_load(smem + (i % STAGES) * TILE, in + (size_t)t * TILE, TILE * 4, bar);
		}
	};
	for (int i = 0; i < STAGES; i++)
		issue(i);
	for (int i = 0; blockIdx.x + i * gridDim.x < tiles; i++) {
		// the stage's barrier completes once per use: use i / STAGES
		mbar_wait(&full[i % STAGES], (i / STAGES) & 1);
		stage_compute(smem + (i % STAGES) * TILE, out, (blockIdx.x + i * gridDim.x) * TILE, alpha);
		__syncthreads(); // every thread has read the stage: refill it
		issue(i + STAGES);
	}
	stage_tail(in, out, N, alpha, tiles * TILE);
}
