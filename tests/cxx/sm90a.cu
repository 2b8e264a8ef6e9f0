// sm90a.cu: arch-specific code (`//@ arch sm_90a`): a GEMM through wgmma (one warpgroup a 64x8 tile), and setmaxnreg
//@ arch   sm_90a
//@ param  M = 1000            // none of M, N, K a multiple of the tile (64, 8, 16)
//@ param  N = 250
//@ param  K = 200
//@ buffer A half[M*K] random
//@ buffer B half[K*N] random
//@ buffer C float[M*N] poison output
//@ grid   cdiv(N, 8), cdiv(M, 64)
//@ block  128
//@ flops  2 * M * N * K
//@ check  C = matmul(A, B, M, N, K)
//@ param  n = 1000003
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ kernel regs_split grid 132
//@ kernel regs_split block 384
//@ kernel regs_split check y = scale(x, 2)
//@ kernel regs_split bytes 8 * n
#include <cuda_fp16.h>
#include <stdint.h>

// A shared-memory matrix descriptor without swizzle: the start address,
// the byte offset between core matrices (8 rows of 16 bytes) along K
// (leading) and along M or N (stride), each in 16-byte units.
__device__ uint64_t smem_desc(const void *p, uint32_t lead, uint32_t stride)
{
	uint32_t a = (uint32_t)__cvta_generic_to_shared(p);
	return (uint64_t)((a & 0x3FFFF) >> 4) | (uint64_t)((lead & 0x3FFFF) >> 4) << 16 |
	       (uint64_t)((stride & 0x3FFFF) >> 4) << 32;
}

// C = A * B, A M x K, B K x N, row-major. A block is one warpgroup (128
// threads) and computes a 64x8 tile of C, 16 of K at a time: the tiles of
// A and B (B transposed: K-major) staged in shared memory as core
// matrices, each 8 rows of 8 halves, two along K.
__global__ void wgmma_m64n8k16(int M, int N, int K, const __half *A, const __half *B, float *C)
{
	__shared__ __align__(128) __half sa[64 * 16];
	__shared__ __align__(128) __half sb[8 * 16];
	int t = threadIdx.x, m0 = blockIdx.y * 64, n0 = blockIdx.x * 8;
	float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
	for (int k0 = 0; k0 < K; k0 += 16) {
		for (int e = t; e < 64 * 16; e += 128) {
			int m = e / 16, k = e % 16;
			int gm = m0 + m, gk = k0 + k;
			sa[((m / 8) * 2 + k / 8) * 64 + (m % 8) * 8 + k % 8] =
				gm < M && gk < K ? A[(size_t)gm * K + gk] : __float2half(0.0f);
		}
		{
			int n = t / 16, k = t % 16;
			int gn = n0 + n, gk = k0 + k;
			sb[(k / 8) * 64 + n * 8 + k % 8] = gn < N && gk < K ? B[(size_t)gk * N + gn] : __float2half(0.0f);
		}
		asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
		__syncthreads();
		uint64_t da = smem_desc(sa, 128, 256), db = smem_desc(sb, 128, 256);
		asm volatile("wgmma.fence.sync.aligned;\n"
		             "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, 1, 1, 1, 0, 0;\n"
		             "wgmma.commit_group.sync.aligned;\n"
		             "wgmma.wait_group.sync.aligned 0;\n"
		             : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
		             : "l"(da), "l"(db)
		             : "memory");
		__syncthreads();
	}
	// the accumulators as mma.sync's m16n8 tile, one a warp of 16 rows
	int warp = t / 32, lane = t % 32;
	int r = m0 + warp * 16 + lane / 4, c = n0 + (lane % 4) * 2;
	if (r < M && c < N)
		C[(size_t)r * N + c] = d0;
	if (r < M && c + 1 < N)
		C[(size_t)r * N + c + 1] = d1;
	if (r + 8 < M && c < N)
		C[(size_t)(r + 8) * N + c] = d2;
	if (r + 8 < M && c + 1 < N)
		C[(size_t)(r + 8) * N + c + 1] = d3;
}

// setmaxnreg: three warpgroups of a 384-thread block share its 168
// registers a thread; the first gives back down to 40, the other two take
// up to 232 (128 * 40 + 256 * 232 = 384 * 168), then each scales its share.
__global__ void __launch_bounds__(384, 1) regs_split(int n, const float *x, float *y)
{
	if (threadIdx.x < 128)
		asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
	else
		asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		y[i] = 2.0f * x[i];
}
