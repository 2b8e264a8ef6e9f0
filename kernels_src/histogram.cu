// histogram.cu: counts of N 16-bit values in BINS bins, three ways
//
// Where the atomics land decides the speed (lesson: `cuplay clusters`):
//   hist_global   every element an atomicAdd on the bins in global memory:
//                 N atomics, all done by the L2
//   hist_shared   each block counts into its own copy of the bins in shared
//                 memory, then adds its copy to the global bins: one global
//                 atomic a bin a block (the copy must fit a block: BINS * 4
//                 bytes, at most 227 KiB on sm_90)
//   hist_cluster  the blocks of a thread block cluster (CLUSTER of them, sm_90)
//                 share one copy, each block holding BINS / CLUSTER bins in
//                 its shared memory; a thread adds into the block that owns
//                 the bin through distributed shared memory (the cluster's
//                 map_shared_rank), and each cluster adds its copy to the
//                 global bins once: a copy CLUSTER times larger than one block
//                 could hold, and CLUSTER times fewer global atomics
// The values are uniform over 0..65535 (a uint16 buffer, random); an element
// counts in bin value % BINS. Each kernel walks the input 8 values (16 bytes)
// a thread at a time in a grid-stride loop over BLOCKS blocks.
//@ define BINS = 16384
//@ define CLUSTER = 2
//@ param  N = 67108864
//@ param  BLOCKS = cdiv(SM_COUNT, 8) * 16   // about 2 blocks an SM, a multiple of CLUSTER
//@ buffer in uint16[N] random
//@ buffer bins int[BINS] zero output
//@ grid  BLOCKS
//@ block 512
//@ bytes N * 2 + BINS * 4
//@ check bins = histogram(in, BINS)
//@ check at N = min(N, 4194309)          // 4M values and a tail of 5
//@ kernel hist_shared smem BINS * 4
//@ kernel hist_cluster smem BINS / CLUSTER * 4

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Calls add(bin) for every element, the grid's threads taking 8 values (16
// bytes) at a time; the N % 8 values past the last whole group by block 0.
template <typename Add>
__device__ __forceinline__ void for_each_bin(const unsigned short *__restrict__ in, int N, Add add)
{
	const uint4 *in8 = reinterpret_cast<const uint4 *>(in);
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < N / 8; i += gridDim.x * blockDim.x) {
		const uint4 v = in8[i];
		const unsigned w[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
		for (int j = 0; j < 4; j++) {
			add((w[j] & 0xffff) % BINS);
			add((w[j] >> 16) % BINS);
		}
	}
	if (blockIdx.x == 0)
		for (int i = N / 8 * 8 + threadIdx.x; i < N; i += blockDim.x)
			add(in[i] % BINS);
}

__global__ void hist_global(const unsigned short *__restrict__ in, int *__restrict__ bins, int N)
{
	for_each_bin(in, N, [&](int bin) { atomicAdd(&bins[bin], 1); });
}

__global__ void hist_shared(const unsigned short *__restrict__ in, int *__restrict__ bins, int N)
{
	extern __shared__ int part[];
	for (int b = threadIdx.x; b < BINS; b += blockDim.x)
		part[b] = 0;
	__syncthreads();
	for_each_bin(in, N, [&](int bin) { atomicAdd(&part[bin], 1); });
	__syncthreads();
	for (int b = threadIdx.x; b < BINS; b += blockDim.x)
		if (part[b])
			atomicAdd(&bins[b], part[b]);
}

static_assert(BINS % CLUSTER == 0, "the bins split evenly over the cluster");

__global__ void __cluster_dims__(CLUSTER, 1, 1)
hist_cluster(const unsigned short *__restrict__ in, int *__restrict__ bins, int N)
{
	extern __shared__ int part[]; // bins rank * PER .. rank * PER + PER - 1
	const int PER = BINS / CLUSTER;
	cg::cluster_group cluster = cg::this_cluster();
	for (int b = threadIdx.x; b < PER; b += blockDim.x)
		part[b] = 0;
	// Every block's part is zeroed before any block adds into it.
	cluster.sync();
	for_each_bin(in, N, [&](int bin) {
		int *owner = cluster.map_shared_rank(part, bin / PER);
		atomicAdd(owner + bin % PER, 1);
	});
	// Every add into this block's part is done before it is read (and before
	// any block of the cluster exits: its shared memory must outlive the adds).
	cluster.sync();
	const int base = (int)cluster.block_rank() * PER;
	for (int b = threadIdx.x; b < PER; b += blockDim.x)
		if (part[b])
			atomicAdd(&bins[base + b], part[b]);
}
