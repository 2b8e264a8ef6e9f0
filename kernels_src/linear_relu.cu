// linear_relu.cu: out = max(0, A * B + bias): a GEMM then a bias-and-ReLU kernel (a sequence) against the fused epilogue
//
// A layer of a network is a GEMM followed by its bias and activation. As
// two kernels (gemm, then bias_relu in place), the M x N result goes to
// DRAM, comes back and goes again: 3 * M * N * 4 bytes beside the GEMM's
// inputs. gemm_bias_relu applies the bias and the ReLU to each output in
// registers before its one store (a fused epilogue). With K small the GEMM
// is short and the result is large, so the round trip the epilogue saves is
// a large part of the time; `metrics` counts the DRAM bytes each moves.
// Both GEMMs are one kernel (template EPI): 64 x 64 tiles, 256 threads,
// 4 x 4 outputs a thread, A and B staged through shared memory.
// Try: `run linear fused`, `compare linear gemm_bias_relu`, `set K=256`.
//@ param  M = 4096
//@ param  N = 4096
//@ param  K = 32
//@ buffer A    float[M * K] random
//@ buffer B    float[K * N] random
//@ buffer bias float[N] random
//@ buffer out  float[M * N] output
//@ grid  cdiv(N, 64), cdiv(M, 64)
//@ block 256
//@ flops 2 * M * N * K
//@ bytes (M * K + K * N + N + M * N) * 4
//@ check out = linear_relu(A, B, bias, M, N, K)
//@ check at M=1000, N=1000            // sizes not a multiple of the tile; the CPU's GEMM small
//@ sequence linear = gemm<0>, bias_relu
//@ kernel gemm<0> check none
//@ kernel gemm<0> bytes (M * K + K * N + M * N) * 4
//@ kernel bias_relu grid cdiv(M * N, 256)
//@ kernel bias_relu bytes (2 * M * N + N) * 4
//@ kernel bias_relu flops 2 * M * N
//@ kernel bias_relu check none
//@ kernel gemm<1>

template <int EPI>
__global__ void gemm(const float *__restrict__ A, const float *__restrict__ B, const float *__restrict__ bias,
                     float *out, int M, int N, int K)
{
	__shared__ float As[16][64 + 4], Bs[16][64];
	int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
	int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
	float acc[4][4] = {};
	for (int k0 = 0; k0 < K; k0 += 16) {
		for (int e = threadIdx.x; e < 64 * 16; e += 256) {
			int r = e / 16, k = e % 16; // A tile 64 x 16, stored transposed
			int gr = row0 + r, gk = k0 + k;
			As[k][r] = gr < M && gk < K ? A[(long)gr * K + gk] : 0.0f;
			int kk = e / 64, c = e % 64; // B tile 16 x 64
			int bk = k0 + kk, gc = col0 + c;
			Bs[kk][c] = bk < K && gc < N ? B[(long)bk * N + gc] : 0.0f;
		}
		__syncthreads();
		for (int k = 0; k < 16; k++) {
			float a[4], b[4];
			for (int i = 0; i < 4; i++)
				a[i] = As[k][ty * 4 + i];
			for (int j = 0; j < 4; j++)
				b[j] = Bs[k][tx + 16 * j];
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] += a[i] * b[j];
		}
		__syncthreads();
	}
	for (int i = 0; i < 4; i++) {
		int r = row0 + ty * 4 + i;
		for (int j = 0; j < 4; j++) {
			int c = col0 + tx + 16 * j;
			if (r < M && c < N)
				out[(long)r * N + c] = EPI ? fmaxf(acc[i][j] + bias[c], 0.0f) : acc[i][j];
		}
	}
}

__global__ void bias_relu(float *out, const float *__restrict__ bias, int M, int N)
{
	long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
	if (i < (long)M * N)
		out[i] = fmaxf(out[i] + bias[i % N], 0.0f);
}
