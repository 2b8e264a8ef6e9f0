// scan.cu: out = the prefix sums of in: three kernels (a sequence) against one pass with decoupled look-back
//
// The textbook scan is three kernels: scan_tiles scans each tile of TILE
// elements in a block and leaves the tile's total in `sums` (an
// intermediate, `scratch`); scan_sums scans those totals in one block;
// add_sums adds to every tile the totals of the tiles before it. The data
// crosses DRAM four times (read and write in scan_tiles, again in
// add_sums). scan_lookback does it in one pass (Merrill and Garland's
// decoupled look-back): each block takes the next tile in order, publishes
// its total, and warp 0 looks back over its predecessors' published totals
// (a 64-bit word each: a flag and a float) until one that includes all
// before it; the data crosses DRAM twice. `scan_lookback<1>` writes the
// exclusive scan (out[0] = 0), checked against exscan.
// Float sums of uniform [-1, 1] inputs: a random walk of a few thousand at
// most; each prefix is checked against a double-precision compensated sum
// at relative L2 error 1e-4.
// Try: `run three_pass scan_lookback<0>`, `compare three_pass scan_lookback<0>`,
// `metrics three_pass scan_lookback<0> dram`, `set N=1000003`.
//@ define BLOCK = 512
//@ define ITEMS = 8                  // elements a thread scans: TILE = BLOCK * ITEMS
//@ param  N = 16777216               // 2^24 floats: 64 MB
//@ param  NB = cdiv(N, BLOCK * ITEMS) // tiles
//@ buffer in     float[N] random
//@ buffer out    float[N] output
//@ buffer sums   float[NB] scratch
//@ buffer state  uint64[NB] zero scratch  // look-back: a tile's flag and float total
//@ buffer ticket unsigned[1] zero scratch // look-back: the next tile to take
//@ grid  NB
//@ block BLOCK
//@ bytes 2 * N * 4                   // what a scan must move: read in, write out
//@ check out = scan(in)
//@ sequence three_pass = scan_tiles, scan_sums, add_sums
//@ kernel scan_tiles bytes 2 * N * 4
//@ kernel scan_sums grid 1
//@ kernel scan_sums block 1024
//@ kernel scan_sums bytes NB * 8
//@ kernel add_sums bytes 2 * N * 4
//@ kernel scan_tiles check none
//@ kernel scan_sums check none
//@ kernel add_sums check none
//@ kernel scan_lookback<0>
//@ kernel scan_lookback<1> check out = exscan(in)

#define TILE (BLOCK * ITEMS)
#define FULL 0xffffffffu

// Thread t's ITEMS consecutive elements from base (0 past n).
__device__ void load_items(const float *in, long base, long n, float *x)
{
	long i0 = base + (long)threadIdx.x * ITEMS;
	if (i0 + ITEMS <= n && ITEMS % 4 == 0) {
		for (int i = 0; i < ITEMS; i += 4) {
			float4 v = *reinterpret_cast<const float4 *>(in + i0 + i);
			x[i] = v.x, x[i + 1] = v.y, x[i + 2] = v.z, x[i + 3] = v.w;
		}
	} else {
		for (int i = 0; i < ITEMS; i++)
			x[i] = i0 + i < n ? in[i0 + i] : 0.0f;
	}
}

__device__ void store_items(float *out, long base, long n, const float *x)
{
	long i0 = base + (long)threadIdx.x * ITEMS;
	if (i0 + ITEMS <= n && ITEMS % 4 == 0) {
		for (int i = 0; i < ITEMS; i += 4)
			*reinterpret_cast<float4 *>(out + i0 + i) = make_float4(x[i], x[i + 1], x[i + 2], x[i + 3]);
	} else {
		for (int i = 0; i < ITEMS; i++)
			if (i0 + i < n)
				out[i0 + i] = x[i];
	}
}

// Scans x in place (inclusive) across the block: returns the block's total.
__device__ float block_scan(float *x)
{
	__shared__ float warp_tot[32];
	for (int i = 1; i < ITEMS; i++)
		x[i] += x[i - 1];
	float t = x[ITEMS - 1], v = t;
	int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
	for (int o = 1; o < 32; o <<= 1) {
		float y = __shfl_up_sync(FULL, v, o);
		if (lane >= o)
			v += y;
	}
	if (lane == 31)
		warp_tot[w] = v;
	__syncthreads();
	if (w == 0) {
		float s = lane < nw ? warp_tot[lane] : 0.0f;
		for (int o = 1; o < 32; o <<= 1) {
			float y = __shfl_up_sync(FULL, s, o);
			if (lane >= o)
				s += y;
		}
		warp_tot[lane] = s;
	}
	__syncthreads();
	float before = (w > 0 ? warp_tot[w - 1] : 0.0f) + v - t;
	float total = warp_tot[nw - 1];
	__syncthreads(); // warp_tot is read before the next call writes it
	for (int i = 0; i < ITEMS; i++)
		x[i] += before;
	return total;
}

__global__ void scan_tiles(const float *__restrict__ in, float *out, float *sums, int N)
{
	float x[ITEMS];
	long base = (long)blockIdx.x * TILE;
	load_items(in, base, N, x);
	float total = block_scan(x);
	store_items(out, base, N, x);
	if (threadIdx.x == 0)
		sums[blockIdx.x] = total;
}

// One block: sums scanned in place (inclusive), TILE-sized chunks in turn.
__global__ void scan_sums(float *sums, int NB)
{
	float carry = 0;
	long chunk = (long)blockDim.x * ITEMS;
	for (long base = 0; base < NB; base += chunk) {
		float x[ITEMS];
		load_items(sums, base, NB, x);
		__syncthreads(); // every thread has read this chunk before any writes it
		float total = block_scan(x);
		for (int i = 0; i < ITEMS; i++)
			x[i] += carry;
		store_items(sums, base, NB, x);
		carry += total;
	}
}

__global__ void add_sums(float *out, const float *__restrict__ sums, int N)
{
	if (blockIdx.x == 0)
		return;
	float x[ITEMS];
	long base = (long)blockIdx.x * TILE;
	float off = sums[blockIdx.x - 1];
	load_items(out, base, N, x);
	for (int i = 0; i < ITEMS; i++)
		x[i] += off;
	store_items(out, base, N, x);
}

// A tile's published word: flag in the high half (1: its own total, 2: the
// total of it and every tile before it), the float in the low half.
#define AGG 1ull
#define INC 2ull

__device__ unsigned long long word(unsigned long long flag, float v)
{
	return flag << 32 | __float_as_uint(v);
}

template <int EXCL>
__global__ void scan_lookback(const float *__restrict__ in, float *out, unsigned long long *state,
                              unsigned *ticket, int N)
{
	__shared__ unsigned s_tile;
	__shared__ float s_prefix;
	if (threadIdx.x == 0)
		s_tile = atomicAdd(ticket, 1u); // tiles in the order blocks start: no block waits on one not running
	__syncthreads();
	unsigned tile = s_tile;
	float x[ITEMS], own[ITEMS];
	long base = (long)tile * TILE;
	load_items(in, base, N, x);
	for (int i = 0; i < ITEMS; i++)
		own[i] = x[i];
	float total = block_scan(x);
	if (threadIdx.x < 32) {
		int lane = threadIdx.x;
		float prefix = 0;
		if (tile == 0) {
			if (lane == 0)
				atomicExch(&state[0], word(INC, total));
		} else {
			if (lane == 0)
				atomicExch(&state[tile], word(AGG, total));
			long j = (long)tile - 1;
			for (;;) {
				long idx = j - lane;
				unsigned long long s = idx >= 0 ? *(volatile unsigned long long *)&state[idx] : word(INC, 0.0f);
				unsigned flag = (unsigned)(s >> 32);
				if (__any_sync(FULL, flag == 0))
					continue; // a predecessor has not published yet
				unsigned inc = __ballot_sync(FULL, flag == INC);
				float v = __uint_as_float((unsigned)s);
				if (inc)
					v = lane <= __ffs(inc) - 1 ? v : 0.0f;
				for (int o = 16; o > 0; o >>= 1)
					v += __shfl_xor_sync(FULL, v, o);
				prefix += v;
				if (inc)
					break;
				j -= 32;
			}
			if (lane == 0)
				atomicExch(&state[tile], word(INC, prefix + total));
		}
		if (lane == 0)
			s_prefix = prefix;
	}
	__syncthreads();
	float p = s_prefix;
	for (int i = 0; i < ITEMS; i++)
		x[i] += p - (EXCL ? own[i] : 0.0f);
	store_items(out, base, N, x);
}
