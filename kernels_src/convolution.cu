// convolution.cu: 1D convolution: the mask read from global memory, from constant memory, and with the input tiled in shared memory
//@ define R = 3                     // the mask's radius: 2R+1 weights
//@ define BLOCK = 256
//@ param  N = 1 << 24
//@ buffer in   float[N] random
//@ buffer mask float[2*R+1] random  // the mask as an ordinary buffer, for conv_global
//@ global M    float[2*R+1] random  // the mask in constant memory, uploaded before each run
//@ buffer out  float[N] poison output
//@ grid   cdiv(N, BLOCK)
//@ block  BLOCK
//@ bytes  2 * N * 4
//@ flops  2 * N * (2*R+1)
//@ check  out = conv1d(in, M, N, R)
//@ kernel conv_global check out = conv1d(in, mask, N, R)

// Every thread of a warp reads the same weight at the same time: constant
// memory broadcasts it in one transaction, where global memory goes through
// L1 like any load.
__constant__ float M[2 * R + 1];

__global__ void conv_global(const float *in, const float *mask, float *out, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= N)
		return;
	float acc = 0.0f;
	for (int j = -R; j <= R; j++) {
		int k = i + j;
		if (k >= 0 && k < N)
			acc += mask[j + R] * in[k];
	}
	out[i] = acc;
}

__global__ void conv_constant(const float *in, float *out, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= N)
		return;
	float acc = 0.0f;
	for (int j = -R; j <= R; j++) {
		int k = i + j;
		if (k >= 0 && k < N)
			acc += M[j + R] * in[k];
	}
	out[i] = acc;
}

// Each input element is read once from global memory into the tile (with R
// halo elements on each side), then 2R+1 times from shared memory.
__global__ void conv_tiled(const float *in, float *out, int N)
{
	__shared__ float tile[BLOCK + 2 * R];
	int base = blockIdx.x * BLOCK;
	for (int t = threadIdx.x; t < BLOCK + 2 * R; t += BLOCK) {
		int k = base + t - R;
		tile[t] = k >= 0 && k < N ? in[k] : 0.0f;
	}
	__syncthreads();
	int i = base + threadIdx.x;
	if (i >= N)
		return;
	float acc = 0.0f;
	for (int j = 0; j <= 2 * R; j++)
		acc += M[j] * tile[threadIdx.x + j];
	out[i] = acc;
}
