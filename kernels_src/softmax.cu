// softmax.cu: each row of in, softmax'd: three kernels (max, sum, normalise; a sequence) against one fused kernel
//
// The naive softmax is three passes over the data: row_max, row_sum (of
// exp(x - max)) and normalise, with the row statistics in intermediates
// (`scratch`). softmax_fused keeps a row in one block: one read of the row
// from DRAM (the online max and sum, rescaling the running sum when the
// max grows), a second read of the same 4 KB from the L2, one write. The
// three kernels read the input three times; fusion is the DRAM bytes it
// does not move, which `metrics` counts.
// Try: `run naive fused`, `compare naive softmax_fused`, `metrics naive softmax_fused dram`.
//@ define BLOCK = 256
//@ param  ROWS = 16384
//@ param  COLS = 1024
//@ buffer in   float[ROWS * COLS] random
//@ buffer rmax float[ROWS] scratch
//@ buffer rsum float[ROWS] scratch
//@ buffer out  float[ROWS * COLS] output
//@ grid  ROWS
//@ block BLOCK
//@ bytes 2 * ROWS * COLS * 4          // what a softmax must move: read in, write out
//@ check out = softmax(in, ROWS, COLS)
//@ check at ROWS=777                  // the CPU's exp over 777 rows, not 16384
//@ sequence naive = row_max, row_sum, normalise
//@ kernel row_max bytes ROWS * COLS * 4
//@ kernel row_sum bytes ROWS * COLS * 4
//@ kernel normalise bytes 2 * ROWS * COLS * 4
//@ kernel row_max check none
//@ kernel row_sum check none
//@ kernel normalise check none

#define FULL 0xffffffffu
#define NEG_INF __int_as_float(0xff800000) // -infinity

// The block's max (op 0) or sum (op 1) of v, in every thread.
__device__ float block_reduce(float v, int op)
{
	__shared__ float part[32];
	for (int o = 16; o > 0; o >>= 1) {
		float y = __shfl_xor_sync(FULL, v, o);
		v = op ? v + y : fmaxf(v, y);
	}
	int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
	if (lane == 0)
		part[w] = v;
	__syncthreads();
	v = lane < nw ? part[lane] : (op ? 0.0f : NEG_INF);
	for (int o = 16; o > 0; o >>= 1) {
		float y = __shfl_xor_sync(FULL, v, o);
		v = op ? v + y : fmaxf(v, y);
	}
	__syncthreads(); // part is read before the next call writes it
	return v;
}

__global__ void row_max(const float *__restrict__ in, float *rmax, int COLS)
{
	const float *x = in + (long)blockIdx.x * COLS;
	float m = NEG_INF;
	for (int j = threadIdx.x; j < COLS; j += blockDim.x)
		m = fmaxf(m, x[j]);
	m = block_reduce(m, 0);
	if (threadIdx.x == 0)
		rmax[blockIdx.x] = m;
}

__global__ void row_sum(const float *__restrict__ in, const float *__restrict__ rmax, float *rsum, int COLS)
{
	const float *x = in + (long)blockIdx.x * COLS;
	float m = rmax[blockIdx.x], s = 0;
	for (int j = threadIdx.x; j < COLS; j += blockDim.x)
		s += __expf(x[j] - m);
	s = block_reduce(s, 1);
	if (threadIdx.x == 0)
		rsum[blockIdx.x] = s;
}

__global__ void normalise(const float *__restrict__ in, const float *__restrict__ rmax,
                          const float *__restrict__ rsum, float *out, int COLS)
{
	long r = (long)blockIdx.x * COLS;
	float m = rmax[blockIdx.x], inv = 1.0f / rsum[blockIdx.x];
	for (int j = threadIdx.x; j < COLS; j += blockDim.x)
		out[r + j] = __expf(in[r + j] - m) * inv;
}

__global__ void softmax_fused(const float *__restrict__ in, float *out, int COLS)
{
	long r = (long)blockIdx.x * COLS;
	float m = NEG_INF, s = 0;
	for (int j = threadIdx.x; j < COLS; j += blockDim.x) { // online: rescale the sum when the max grows
		float v = in[r + j];
		if (v > m) {
			s *= __expf(m - v);
			m = v;
		}
		s += __expf(v - m);
	}
	float bm = block_reduce(m, 0);
	s = block_reduce(m == NEG_INF ? 0.0f : s * __expf(m - bm), 1);
	float inv = 1.0f / s;
	for (int j = threadIdx.x; j < COLS; j += blockDim.x)
		out[r + j] = __expf(in[r + j] - bm) * inv;
}
