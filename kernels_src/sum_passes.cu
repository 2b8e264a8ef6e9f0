// sum_passes.cu: out[0] = sum(in) in two passes (a sequence) or in one pass with an atomicAdd per block
//
// A reduction without atomics is two kernels: pass1 leaves one partial sum
// per block in `partial` (an intermediate, declared `scratch`: reset before
// every run, never checked), pass2 adds the partials in one block. The
// sequence `two_pass` runs them in order, checks `out` after the last
// step, and is timed as one unit: from pass1's start to pass2's end, with
// each step and the gap between them. `sum_atomic` does it in one kernel:
// each block adds its total to out with one atomicAdd.
// Both read N floats once, so at 256 MB both run at the memory roof and
// pass2 and the gap are a few microseconds beside pass1; at N = 2^20
// (4 MB) the second launch costs as much as the data. `timing graph on`
// shows how much of the gap a CUDA graph removes.
// Try: `run two_pass sum_atomic`, `compare two_pass sum_atomic`,
// `set N=1048576`, `timing graph on`.
//@ define BLOCK = 256
//@ param  N = 67108864              // 2^26 floats: 256 MB
//@ param  NB = 1024                 // pass1's blocks: the partials pass2 adds
//@ buffer in      float[N] random
//@ buffer partial float[NB] scratch
//@ buffer out     float[1] zero output
//@ grid  NB
//@ block BLOCK
//@ bytes N * 4
//@ check out = sum(in)
//@ sequence two_pass = pass1, pass2
//@ kernel pass1 check none          // alone it leaves partials, not a sum
//@ kernel pass2 grid 1
//@ kernel pass2 bytes NB * 4        // pass2 reads the partials only
//@ kernel sum_atomic grid 2 * SM_COUNT * 2048 / BLOCK

// The sum of v over the block, in thread 0: warp shuffles, then one warp
// over the warps' sums.
__device__ float block_sum(float v)
{
	__shared__ float warp_sums[32];
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
	if (lane == 0)
		warp_sums[w] = v;
	__syncthreads();
	v = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0.0f;
	if (w == 0)
		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_down_sync(0xffffffffu, v, o);
	return v;
}

__global__ void pass1(const float *__restrict__ in, float *partial, int N)
{
	float v = 0;
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < N; i += (long)gridDim.x * blockDim.x)
		v += in[i];
	v = block_sum(v);
	if (threadIdx.x == 0)
		partial[blockIdx.x] = v;
}

__global__ void pass2(const float *__restrict__ partial, float *out, int NB)
{
	float v = 0;
	for (int i = threadIdx.x; i < NB; i += blockDim.x)
		v += partial[i];
	v = block_sum(v);
	if (threadIdx.x == 0)
		out[0] = v;
}

__global__ void sum_atomic(const float *__restrict__ in, float *out, int N)
{
	float v = 0;
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < N; i += (long)gridDim.x * blockDim.x)
		v += in[i];
	v = block_sum(v);
	if (threadIdx.x == 0)
		atomicAdd(out, v);
}
