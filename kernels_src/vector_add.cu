// vector_add.cu: c = a + b, one element per thread vs grid-stride loop vs float4 grid-stride loop
//
// Lab 000, exercise 1 (vector_add_naive.cu, vector_add_optimized.cu) and the
// grid-stride loop of guide 001.
//   vadd_naive        the lab's 1.1: one thread per element, cdiv(N, BLOCK_SIZE) blocks
//   vadd_grid_stride  the lab's 1.2: a grid-stride loop over one wave of blocks
//                     (2048 resident threads per SM on an H100)
//   vadd_float4       the same loop with 16-byte loads and stores, plus a scalar
//                     tail for the last N % 4 elements
// The lab launches its grid-stride kernel with the naive kernel's grid, so its
// loop runs once and it times like the naive one (question 1 of 1.4). To see
// that, edit the `//@ kernel vadd_grid_stride grid` line to `cdiv(N, BLOCK_SIZE)`.
//   empty_launch      does nothing, on one block: the cost of a launch alone, to
//                     compare a small vector add with (`run vadd_naive empty_launch`);
//                     not part of `run all`
// Try: `run all`; `metrics` (memory throughput %, sectors per request);
// `set BLOCK_SIZE=64`, `=1024`; `set N=1000003` (not a multiple of 4 or of the
// block: still correct); `set N=1000000` plus `flush off` (3 x 4 MB stay in the 50 MB L2).
//@ define BLOCK_SIZE = 256
//@ param  N = 67108864                 // 2^26 floats: 256 MB per buffer
//@ buffer a float[N] random
//@ buffer b float[N] random
//@ buffer c float[N] poison output
//@ grid  cdiv(N, BLOCK_SIZE)
//@ block BLOCK_SIZE
//@ bytes 3 * N * 4                     // read a and b once, write c once
//@ check c = add(a, b)
//@ kernel vadd_grid_stride grid min(SM_COUNT * (2048 / BLOCK_SIZE), cdiv(N, BLOCK_SIZE))
//@ kernel empty_launch skip
//@ kernel empty_launch grid 1
//@ kernel empty_launch block 32
//@ kernel empty_launch bytes 0
//@ kernel empty_launch check none
//@ kernel vadd_float4 grid min(SM_COUNT * (2048 / BLOCK_SIZE), cdiv(cdiv(N, 4), BLOCK_SIZE))

// One element per thread: needs as many threads as elements.
__global__ void vadd_naive(const float *__restrict__ a, const float *__restrict__ b,
                           float *__restrict__ c, int N)
{
	const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		c[i] = a[i] + b[i];
}

// Grid-stride loop: any grid covers any N. Consecutive threads still touch
// consecutive elements on every trip, so each warp access stays coalesced.
// The grid is one wave of 2048 threads per SM, which is resident at once only
// if a thread needs at most 32 registers (65536 per SM): __launch_bounds__
// says so to the compiler. Without it vadd_float4 takes 40, 6 blocks fit per
// SM instead of 8, and the last third of the grid runs as a second wave.
__global__ void __launch_bounds__(BLOCK_SIZE, BLOCK_SIZE >= 64 ? 2048 / BLOCK_SIZE : 32)
vadd_grid_stride(const float *__restrict__ a, const float *__restrict__ b,
                 float *__restrict__ c, int N)
{
	const long stride = (long)gridDim.x * blockDim.x;
	for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < N; i += stride)
		c[i] = a[i] + b[i];
}

// The same loop over float4: one 16-byte load per input and one 16-byte store
// per trip, so a quarter of the memory instructions. cuplay's buffers are
// allocated by the driver (256-byte aligned), so element 0 starts a float4.
__global__ void __launch_bounds__(BLOCK_SIZE, BLOCK_SIZE >= 64 ? 2048 / BLOCK_SIZE : 32)
vadd_float4(const float *__restrict__ a, const float *__restrict__ b,
            float *__restrict__ c, int N)
{
	const long tid = (long)blockIdx.x * blockDim.x + threadIdx.x;
	const long stride = (long)gridDim.x * blockDim.x;
	const long n4 = N / 4;
	const float4 *a4 = reinterpret_cast<const float4 *>(a);
	const float4 *b4 = reinterpret_cast<const float4 *>(b);
	float4 *c4 = reinterpret_cast<float4 *>(c);
	for (long i = tid; i < n4; i += stride) {
		const float4 x = a4[i], y = b4[i];
		c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
	}
	// Scalar tail: the last N % 4 (at most 3) elements, one per thread
	// (written as a loop so that even a grid of fewer than 3 threads covers it).
	for (long t = n4 * 4 + tid; t < N; t += stride)
		c[t] = a[t] + b[t];
}

// The cost of a launch alone: nothing to do.
__global__ void empty_launch()
{
}
