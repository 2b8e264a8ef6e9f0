// dynpar.cu: sum by a chain of tail launches from device code (dynamic parallelism)
//
// Lecture 002, "Grilles filles" and "Réduction parallèle": a kernel that
// reduces each block of BLOCK_DIM elements to one partial sum, and whose
// thread 0 of block 0 launches the next level into cudaStreamTailLaunch: the
// child grid starts only once the whole parent grid has finished, so it sees
// every partial sum. Levels: N -> N/256 -> N/65536 -> ... -> 1 value, in out[0].
// Differences from the slide:
//   - the slide launches reduction<<<nb, BLOCK_DIM, 0, cudaStreamTailLaunch>>>(b, nb)
//     and reduces b in place: block k of the child writes b[k] while block
//     k / BLOCK_DIM may still be reading it. Here the levels alternate
//     between two scratch buffers (part, spare), so no level writes what it reads;
//   - the last level (a single block) writes out[0] directly.
// Needs relocatable device code and the device runtime: `//@ link cudadevrt`.
// The timing covers the parent and all its tail launches (a grid is complete
// only when its children are).
// Try: `run`, `set N=200` (one level), `set N=1000` (two), `set N=65537` (three),
// `set BLOCK_DIM=1024` (fewer levels, fewer launches); compare with
// reduce.cu's reduce_shared, which does the same tree with atomics instead.
//@ define BLOCK_DIM = 256
//@ param  N = 67108864                 // 2^26 floats: 256 MB
//@ buffer in    float[N] random
//@ buffer part  float[cdiv(N, BLOCK_DIM)] zero                // level 0, 2, 4.. partial sums
//@ buffer spare float[cdiv(N, BLOCK_DIM * BLOCK_DIM)] zero    // level 1, 3.. partial sums
//@ buffer out   float[1] poison output
//@ grid  cdiv(N, BLOCK_DIM)
//@ block BLOCK_DIM
//@ bytes N * 4                         // the minimum: read every element once
//@ check out = sum(in) tol 1e-4
//@ link cudadevrt

// From 32 up, a 2^31-element input needs at most 7 levels: well inside the
// device runtime's nesting limit of 24.
static_assert(BLOCK_DIM >= 32 && BLOCK_DIM <= 1024 && (BLOCK_DIM & (BLOCK_DIM - 1)) == 0,
              "BLOCK_DIM must be a power of two from 32 to 1024");

// One level: block b sums in[b*BLOCK_DIM .. +BLOCK_DIM-1] (the slide's tree)
// into part[b], or into out[0] when the level has a single block; then the
// first thread of the grid tail-launches the next level on part[], which will
// write its own partial sums into spare[] (and so on, swapping the two).
__global__ void reduce_tail_launch(const float *in, float *out, float *part, float *spare, int N)
{
	__shared__ float r[BLOCK_DIM];
	const unsigned tid = threadIdx.x;
	const long i = (long)blockIdx.x * BLOCK_DIM + tid;
	r[tid] = i < N ? in[i] : 0.0f;
	__syncthreads();
	for (unsigned step = BLOCK_DIM / 2; step >= 1; step >>= 1) {
		if (tid < step)
			r[tid] += r[tid + step];
		__syncthreads();
	}
	const int nb = gridDim.x; // number of partial sums this level produces
	if (tid == 0) {
		if (nb == 1)
			out[0] = r[0];
		else
			part[blockIdx.x] = r[0];
	}
	if (nb > 1 && blockIdx.x == 0 && tid == 0) {
		const int child_blocks = (nb + BLOCK_DIM - 1) / BLOCK_DIM;
		reduce_tail_launch<<<child_blocks, BLOCK_DIM, 0, cudaStreamTailLaunch>>>(part, out, spare, part, nb);
	}
}
