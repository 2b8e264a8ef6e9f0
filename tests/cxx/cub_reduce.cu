// cub_reduce.cu: <cub/block/block_reduce.cuh>: out = sum(in), cub::BlockReduce of BS threads
// `set BS=128; run` recompiles: the CUB headers come from NVRTC's
// precompiled headers after the first compile (see 'make bench').
//@ define BS = 256
//@ param  n = 1000003
//@ buffer in  float[n] random
//@ buffer out float[1] zero output
//@ grid   cdiv(n, BS)
//@ block  BS
//@ bytes  n * 4
//@ check  out = sum(in)
#include <cub/block/block_reduce.cuh>

__global__ void block_sum(const float *in, float *out, int n)
{
	using BlockReduce = cub::BlockReduce<float, BS>;
	__shared__ typename BlockReduce::TempStorage temp;
	int i = blockIdx.x * BS + threadIdx.x;
	float v = i < n ? in[i] : 0.0f;
	float s = BlockReduce(temp).Sum(v);
	if (threadIdx.x == 0)
		atomicAdd(out, s);
}
