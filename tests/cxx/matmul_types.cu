// matmul_types.cu: matmul's element types and words: half, bfloat16, fp8 (e4m3, e5m2) inputs, B stored N x K (tn), TF32-rounded inputs (tf32), an fp8 output
//@ param  M = 100               // none a multiple of the 16x16 block
//@ param  N = 70
//@ param  K = 50
//@ buffer Ah half[M*K] random
//@ buffer Bh half[K*N] random
//@ buffer Ab bfloat16[M*K] random
//@ buffer Bb bfloat16[K*N] random
//@ buffer A8 fp8_e4m3[M*K] random
//@ buffer B8 fp8_e4m3[K*N] random
//@ buffer A5 fp8_e5m2[M*K] random
//@ buffer B5 fp8_e5m2[K*N] random
//@ buffer Af float[M*K] random
//@ buffer Bf float[K*N] random
//@ buffer Bt float[N*K] random
//@ buffer C float[M*N] poison output
//@ buffer C8 fp8_e4m3[M*N] poison output
//@ grid   cdiv(N, 16), cdiv(M, 16)
//@ block  16, 16
//@ flops  2 * M * N * K
//@ check  C = matmul(Ah, Bh, M, N, K)
//@ kernel mm_bf16 check C = matmul(Ab, Bb, M, N, K)
//@ kernel mm_e4m3 check C = matmul(A8, B8, M, N, K)
//@ kernel mm_e5m2 check C = matmul(A5, B5, M, N, K)
//@ kernel mm_tn check C = matmul(Af, Bt, M, N, K, tn)
//@ kernel mm_tf32 check C = matmul(Af, Bf, M, N, K, tf32)
//@ kernel mm_tf32_truncated check C = matmul(Af, Bf, M, N, K, tf32)
//@ kernel mm_e4m3_out check C8 = matmul(A8, B8, M, N, K)
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

// C = A * B, one thread an element, each input converted to float
template <typename T>
__device__ void mm(int M, int N, int K, const T *A, const T *B, float *C)
{
	int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= M || c >= N)
		return;
	float s = 0;
	for (int k = 0; k < K; k++)
		s += float(A[r * K + k]) * float(B[k * N + c]);
	C[r * N + c] = s;
}

__global__ void mm_half(int M, int N, int K, const __half *Ah, const __half *Bh, float *C) { mm(M, N, K, Ah, Bh, C); }
__global__ void mm_bf16(int M, int N, int K, const __nv_bfloat16 *Ab, const __nv_bfloat16 *Bb, float *C) { mm(M, N, K, Ab, Bb, C); }
__global__ void mm_e4m3(int M, int N, int K, const __nv_fp8_e4m3 *A8, const __nv_fp8_e4m3 *B8, float *C) { mm(M, N, K, A8, B8, C); }
__global__ void mm_e5m2(int M, int N, int K, const __nv_fp8_e5m2 *A5, const __nv_fp8_e5m2 *B5, float *C) { mm(M, N, K, A5, B5, C); }

// B stored N x K: row c of Bt is column c of B
__global__ void mm_tn(int M, int N, int K, const float *Af, const float *Bt, float *C)
{
	int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= M || c >= N)
		return;
	float s = 0;
	for (int k = 0; k < K; k++)
		s += Af[r * K + k] * Bt[c * K + k];
	C[r * N + c] = s;
}

// the inputs as the tensor cores take TF32: rounded to nearest (cvt.rna),
// or their low 13 bits dropped (what a kernel that passes raw floats gets)
__device__ float tf32_rna(float x)
{
	unsigned u;
	asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(u) : "f"(x));
	return __uint_as_float(u);
}

__global__ void mm_tf32(int M, int N, int K, const float *Af, const float *Bf, float *C)
{
	int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= M || c >= N)
		return;
	float s = 0;
	for (int k = 0; k < K; k++)
		s += tf32_rna(Af[r * K + k]) * tf32_rna(Bf[k * N + c]);
	C[r * N + c] = s;
}

__global__ void mm_tf32_truncated(int M, int N, int K, const float *Af, const float *Bf, float *C)
{
	int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= M || c >= N)
		return;
	float s = 0;
	for (int k = 0; k < K; k++)
		s += __uint_as_float(__float_as_uint(Af[r * K + k]) & 0xffffe000u) *
		     __uint_as_float(__float_as_uint(Bf[k * N + c]) & 0xffffe000u);
	C[r * N + c] = s;
}

// an fp8 output: the float sum rounded to e4m3 (saturating, as the type's constructor does)
__global__ void mm_e4m3_out(int M, int N, int K, const __nv_fp8_e4m3 *A8, const __nv_fp8_e4m3 *B8, __nv_fp8_e4m3 *C8)
{
	int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= M || c >= N)
		return;
	float s = 0;
	for (int k = 0; k < K; k++)
		s += float(A8[r * K + k]) * float(B8[k * N + c]);
	C8[r * N + c] = __nv_fp8_e4m3(s);
}
