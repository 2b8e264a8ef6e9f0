// cluster.cu: thread block clusters of 2 (sm_90): each block reads its partner's shared memory (distributed shared memory)
//@ param  n = 1000448           // a whole number of pairs of blocks
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ bytes  2 * n * 4
//@ check  y = swap_plain
//@ kernel swap_plain check none
//@ kernel swap_dsmem cluster 2
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// What the cluster kernels must write: each block's chunk goes to its
// partner's place (block 2k <-> 2k + 1), read straight from global memory.
__global__ void swap_plain(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int partner = (blockIdx.x ^ 1) * blockDim.x + threadIdx.x;
	if (i < n && partner < n)
		y[i] = x[partner];
}

// A cluster of 2 from the header's `cluster` line (cuLaunchKernelEx).
__global__ void swap_dsmem(int n, const float *x, float *y)
{
	__shared__ float s[256];
	cg::cluster_group cluster = cg::this_cluster();
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	s[threadIdx.x] = i < n ? x[i] : 0.0f;
	cluster.sync();
	unsigned partner = cluster.block_rank() ^ 1;
	float *ps = cluster.map_shared_rank(s, partner);
	float v = ps[threadIdx.x];
	int j = (blockIdx.x ^ 1) * blockDim.x + threadIdx.x;
	cluster.sync(); /* the partner may not leave while its shared memory is read */
	if (i < n && j < n)
		y[i] = v;
}

// The same with the cluster shape compiled in (__cluster_dims__): a plain launch.
__global__ void __cluster_dims__(2, 1, 1) swap_dims(int n, const float *x, float *y)
{
	__shared__ float s[256];
	cg::cluster_group cluster = cg::this_cluster();
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	s[threadIdx.x] = i < n ? x[i] : 0.0f;
	cluster.sync();
	float v = cluster.map_shared_rank(s, cluster.block_rank() ^ 1)[threadIdx.x];
	int j = (blockIdx.x ^ 1) * blockDim.x + threadIdx.x;
	cluster.sync();
	if (i < n && j < n)
		y[i] = v;
}
