// coop_groups.cu: <cooperative_groups.h> and <cooperative_groups/reduce.h>: out = sum(in)
// Each 32-thread tile sums its values with cg::reduce; one atomicAdd a tile.
//@ define BLOCK = 256
//@ param  n = 1000003
//@ buffer in  float[n] random
//@ buffer out float[1] zero output
//@ grid   cdiv(n, BLOCK)
//@ block  BLOCK
//@ bytes  n * 4
//@ check  out = sum(in)
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__global__ void tile_sum(const float *in, float *out, int n)
{
	cg::thread_block block = cg::this_thread_block();
	cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = i < n ? in[i] : 0.0f;
	float s = cg::reduce(tile, v, cg::plus<float>());
	if (tile.thread_rank() == 0)
		atomicAdd(out, s);
}
