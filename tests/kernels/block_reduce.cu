// block_reduce.cu: a block's sum through CUB's BlockReduce (the toolkit's
// cub/block/block_reduce.cuh), each block's partial added atomically: a
// kernel whose reduction is in a header cuplay did not write. `lines`
// shows CUB's lines with their file names under the kernel's line that
// calls them (tests/golden/lines_heldout.session); tests/bench/lines_ncu.sh
// compares its counts with Nsight Compute's.
//@ define BLOCK = 256
//@ define ITEMS = 4
//@ param  N = 4194304
//@ buffer in  float[N] random
//@ buffer out float[1] zero output        // reset before every launch: atomics add to 0
//@ grid  cdiv(N, BLOCK * ITEMS)
//@ block BLOCK
//@ check out = sum(in) tol 1e-4
#include <cub/block/block_reduce.cuh>

__global__ void block_reduce_sum(const float *in, float *out, int N)
{
	typedef cub::BlockReduce<float, BLOCK> reduce_t;
	__shared__ typename reduce_t::TempStorage temp;
	const long base = (long)blockIdx.x * BLOCK * ITEMS + threadIdx.x;
	float v = 0.0f;
#pragma unroll
	for (int k = 0; k < ITEMS; k++) {
		const long i = base + (long)k * BLOCK;
		if (i < N)
			v += in[i]; // [load]
	}
	const float s = reduce_t(temp).Sum(v); // [block sum]
	if (threadIdx.x == 0)
		atomicAdd(out, s); // [partial]
}
