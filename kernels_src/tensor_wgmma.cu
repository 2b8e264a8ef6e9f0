// tensor_wgmma.cu: C = A * B with Hopper's warpgroup MMA (wgmma), FP16 in, FP32 out
//
// The last step of the tensor-core lesson (`cuplay tensor_cores`; the first
// ones are in tensor_gemm.cu, same buffers and check). On sm_90 a warpgroup
// (4 warps, 128 threads) issues one wgmma.mma_async for a 64 x WG_BN x 16
// product whose A and B it reads straight from shared memory, described by
// 64-bit descriptors: no ldmatrix, no fragments in registers but the
// accumulator, and the MMA runs asynchronously while the warps go on.
//   wgmma_cpasync  block tile 128 x WG_BN (two warpgroups of 64 rows), K in
//                  slices of 64 through STAGES shared-memory stages filled by
//                  cp.async in the 128-byte swizzle that wgmma reads (the 16-byte
//                  chunk c of each 128-byte row r at chunk c ^ (r % 8))
//   wgmma_tma      the same MMAs, the slices brought by the TMA unit: one
//                  thread asks for a slice with 1 + WG_BN / 64 tensor copies
//                  (the tensor maps give box, swizzle and the zeros past the
//                  edge); their bytes complete the stage's mbarrier, which the
//                  block waits on. No thread computes an address or issues a
//                  load: STAGES slices in flight from one thread.
// A is K-major in shared memory (a row of 64 halves = 128 bytes); B stays
// N-major as it is in global memory, 64 columns (128 bytes) by 64 rows of K
// per 8 KiB block, and wgmma transposes it (the last immediate of the
// instruction). N % 16 == 0; edges zero-filled and guarded as in tensor_gemm.cu.
//@ arch sm_90a                         // wgmma is arch-specific: sm_90a
//@ define WG_BN = 256                  // block tile columns: 128 or 256
//@ define STAGES = 4
//@ param  N = 4096
//@ buffer A half[N*N] random
//@ buffer B half[N*N] random
//@ buffer C float[N*N] poison output
//@ grid  cdiv(N, WG_BN), cdiv(N, 128)
//@ block 256
//@ smem  STAGES * (128 + WG_BN) * 64 * 2 + 1024   // + 1 KiB to align the stages to 1 KiB
//@ flops 2 * N * N * N
//@ bytes N * N * (2 + 2 + 4)
//@ check C = matmul(A, B, N, N, N) tol 1e-4
//@ check at N = min(N, 1008)
//@ tensormap tmA = A[N, N] box 128, 64 swizzle 128B   // a slice of A: 128 rows of 64 halves (128 bytes)
//@ tensormap tmB = B[N, N] box 64, 64 swizzle 128B    // a block of B: 64 rows of K by 64 columns

#include <cuda.h> // CUtensorMap
#include <cuda_fp16.h>

enum {
	WG_BM = 128, WG_BK = 64,
	WG_A_BYTES = WG_BM * WG_BK * 2,   // A slice: 128 rows of 128 bytes
	WG_B_BYTES = WG_BK * WG_BN * 2,   // B slice: WG_BN / 64 blocks of 64 rows x 128 bytes
	WG_STAGE = WG_A_BYTES + WG_B_BYTES,
	WG_ACC = WG_BN / 2,               // accumulator floats a thread
};
static_assert(WG_BN == 128 || WG_BN == 256, "m64n128 or m64n256");
static_assert(STAGES >= 3, "two slices beside the one multiplied");

__device__ __forceinline__ unsigned smem_u32(const void *p)
{
	return (unsigned)__cvta_generic_to_shared(p);
}

// A shared-memory matrix descriptor: start address, leading and stride byte
// offsets (all in 16-byte units), 128-byte swizzle (1 in bits 62-63).
__device__ __forceinline__ unsigned long long sw128_desc(unsigned addr, unsigned lbo, unsigned sbo)
{
	return (unsigned long long)((addr & 0x3FFFF) >> 4) | (unsigned long long)(lbo >> 4) << 16 |
	       (unsigned long long)(sbo >> 4) << 32 | 1ull << 62;
}

// Byte offset of the 16-byte chunk holding column c of row r in a region of
// 128-byte rows swizzled in 1 KiB blocks of 8 rows.
__device__ __forceinline__ unsigned sw128(int r, int c)
{
	return r * 128 + (((c >> 3) ^ (r & 7)) << 4);
}

__device__ __forceinline__ void cp_async16_zfill(unsigned dst, const half *src, bool inside)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(inside ? 16 : 0)
	             : "memory");
}

// Slice k0 into a stage: A[m0 .. m0+127][k0 .. k0+63] as 128 swizzled rows;
// B[k0 .. k0+63][n0 .. n0+WG_BN-1] as WG_BN / 64 blocks of 64 swizzled rows of
// 64 columns.
__device__ __forceinline__ void wg_load_slice(unsigned stage, const half *__restrict__ A,
                                              const half *__restrict__ B, int N, int m0, int n0, int k0)
{
	const int t = threadIdx.x;
#pragma unroll
	for (int s = 0; s < WG_BM * 8 / 256; s++) {
		const int i = t + s * 256, r = i / 8, c = (i % 8) * 8;
		const bool in = m0 + r < N && k0 + c < N;
		cp_async16_zfill(stage + sw128(r, c), A + (in ? (size_t)(m0 + r) * N + k0 + c : 0), in);
	}
#pragma unroll
	for (int s = 0; s < WG_BK * WG_BN / 8 / 256; s++) {
		const int i = t + s * 256, k = i / (WG_BN / 8), n = (i % (WG_BN / 8)) * 8;
		const bool in = k0 + k < N && n0 + n < N;
		cp_async16_zfill(stage + WG_A_BYTES + (n / 64) * (WG_BK * 128) + sw128(k, n % 64),
		                 B + (in ? (size_t)(k0 + k) * N + n0 + n : 0), in);
	}
}

// d (+)= A * B for one k16 step: m64n128k16, A and B in shared memory
// through their descriptors, A K-major, B N-major (transposed: the last
// immediate); scale_d 0 overwrites d.
__device__ __forceinline__ void wgmma_n128(float (&d)[64], unsigned long long da, unsigned long long db, int scale_d)
{
	asm volatile("{\n"
	             ".reg .pred p;\n"
	             "setp.ne.b32 p, %66, 0;\n"
	             "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
	             "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
	             "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
	             "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
	             "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
	             "}, %64, %65, p, 1, 1, 0, 1;\n"
	             "}\n"
	             : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
	               "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
	               "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
	               "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
	               "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
	               "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
	               "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
	               "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
	             : "l"(da), "l"(db), "r"(scale_d));
}

// d (+)= A * B for one k16 step: m64n256k16, A and B in shared memory
// through their descriptors, A K-major, B N-major (transposed: the last
// immediate); scale_d 0 overwrites d.
__device__ __forceinline__ void wgmma_n256(float (&d)[128], unsigned long long da, unsigned long long db, int scale_d)
{
	asm volatile("{\n"
	             ".reg .pred p;\n"
	             "setp.ne.b32 p, %130, 0;\n"
	             "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {"
	             "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
	             "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
	             "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
	             "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
	             "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
	             "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
	             "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
	             "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
	             "}, %128, %129, p, 1, 1, 0, 1;\n"
	             "}\n"
	             : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
	               "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
	               "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
	               "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
	               "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
	               "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
	               "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
	               "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
	               "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
	               "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
	               "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
	               "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
	               "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
	               "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
	               "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
	               "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
	             : "l"(da), "l"(db), "r"(scale_d));
}

// The four k16 steps of a slice for this warpgroup's 64 rows. A: rows
// 64 * wg .. of the K-major region (8-row groups 1 KiB apart: the stride
// offset; a k16 step moves 32 bytes along the swizzled rows). B: N-major,
// 64-column blocks WG_BK * 128 bytes apart (the leading offset), 8-row groups
// of K 1 KiB apart (the stride offset); a k16 step moves 16 rows, 2 KiB.
__device__ __forceinline__ void wg_mma_slice(float (&acc)[WG_ACC], unsigned stage, int wg, int first)
{
	const unsigned a = stage + wg * 64 * 128, b = stage + WG_A_BYTES;
#pragma unroll
	for (int kk = 0; kk < WG_BK / 16; kk++) {
		const unsigned long long da = sw128_desc(a + kk * 32, 16, 1024);
		const unsigned long long db = sw128_desc(b + kk * 16 * 128, WG_BK * 128, 1024);
#if WG_BN == 256
		wgmma_n256(acc, da, db, first && kk == 0 ? 0 : 1);
#else
		wgmma_n128(acc, da, db, first && kk == 0 ? 0 : 1);
#endif
	}
}

// Thread t of warpgroup wg holds, for each 8 columns j, C[r][8j + c], C[r][8j
// + c + 1] and the same 8 rows down, with r = 16 * (warp % 4) + lane / 4 and
// c = 2 * (lane % 4).
__device__ __forceinline__ void wg_store(float *__restrict__ C, int N, const float (&acc)[WG_ACC], int m, int n)
{
	const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
#pragma unroll
	for (int j = 0; j < WG_BN / 8; j++)
#pragma unroll
		for (int h = 0; h < 2; h++) {
			const int r = m + 16 * warp + lane / 4 + 8 * h, c = n + 8 * j + 2 * (lane % 4);
			if (r < N && c < N)
				*reinterpret_cast<float2 *>(C + (size_t)r * N + c) = make_float2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
		}
}

__global__ void __launch_bounds__(256, 1)
wgmma_cpasync(const half *__restrict__ A, const half *__restrict__ B, float *__restrict__ C, int N)
{
	extern __shared__ uint4 wg_smem[];
	// the swizzle pattern repeats every 1 KiB: stages start on a 1 KiB boundary
	const unsigned base = (smem_u32(wg_smem) + 1023) & ~1023u;
	const int wg = threadIdx.x / 128;
	const int m0 = blockIdx.y * WG_BM, n0 = blockIdx.x * WG_BN;
	const int slices = (N + WG_BK - 1) / WG_BK;
	float acc[WG_ACC];
#pragma unroll
	for (int i = 0; i < WG_ACC; i++)
		acc[i] = 0.0f;
	// Slice s + STAGES - 2 is copied while slice s is multiplied and slice
	// s - 1's MMAs may still run: each thread commits one group of copies a
	// slice (empty past the end) and keeps one group of MMAs in flight.
	for (int s = 0; s < STAGES - 2; s++) {
		if (s < slices)
			wg_load_slice(base + s * WG_STAGE, A, B, N, m0, n0, s * WG_BK);
		asm volatile("cp.async.commit_group;\n" ::: "memory");
	}
	for (int s = 0; s < slices; s++) {
		asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 3) : "memory");
		// what cp.async wrote (the generic proxy) is made visible to wgmma's
		// reads (the async proxy), then to the whole block
		asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
		__syncthreads();
		// every thread has waited for its MMAs of slice s - 2: refill that stage
		const int next = s + STAGES - 2;
		if (next < slices)
			wg_load_slice(base + (next % STAGES) * WG_STAGE, A, B, N, m0, n0, next * WG_BK);
		asm volatile("cp.async.commit_group;\n" ::: "memory");
		asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
		wg_mma_slice(acc, base + (s % STAGES) * WG_STAGE, wg, s == 0);
		asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
		asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
	}
	asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
	asm volatile("cp.async.wait_all;\n" ::: "memory");
	wg_store(C, N, acc, m0 + wg * 64, n0);
}

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
	asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

// One arrival that also expects `bytes` of copies to complete the phase.
__device__ __forceinline__ void mbar_expect(unsigned bar, unsigned bytes)
{
	asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
	asm volatile("{\n"
	             ".reg .pred done;\n"
	             "WAIT_%=:\n"
	             "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
	             "@!done bra WAIT_%=;\n"
	             "}\n" ::"r"(bar), "r"(parity)
	             : "memory");
}

// The box of `map` whose first element is at column x, row y, into dst;
// its bytes complete on bar.
__device__ __forceinline__ void tma_box(unsigned dst, const CUtensorMap *map, int x, int y, unsigned bar)
{
	asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
	             " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst), "l"(map), "r"(x), "r"(y), "r"(bar)
	             : "memory");
}

__global__ void __launch_bounds__(256, 1)
wgmma_tma(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
          float *__restrict__ C, int N)
{
	extern __shared__ uint4 wg_smem[];
	__shared__ __align__(8) unsigned long long full[STAGES];
	const unsigned base = (smem_u32(wg_smem) + 1023) & ~1023u;
	const int wg = threadIdx.x / 128;
	const int m0 = blockIdx.y * WG_BM, n0 = blockIdx.x * WG_BN;
	const int slices = (N + WG_BK - 1) / WG_BK;
	// thread 0: slice s into stage s % STAGES, the whole stage's bytes
	// expected (a box past the edge is filled with zeros and still counted)
	auto issue = [&](int s) {
		const unsigned st = base + (s % STAGES) * WG_STAGE, bar = smem_u32(&full[s % STAGES]);
		mbar_expect(bar, WG_STAGE);
		tma_box(st, &tmA, s * WG_BK, m0, bar);
#pragma unroll
		for (int j = 0; j < WG_BN / 64; j++)
			tma_box(st + WG_A_BYTES + j * (WG_BK * 128), &tmB, n0 + 64 * j, s * WG_BK, bar);
	};
	if (threadIdx.x == 0) {
		for (int s = 0; s < STAGES; s++)
			mbar_init(smem_u32(&full[s]), 1);
		asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
		for (int s = 0; s < STAGES && s < slices; s++)
			issue(s);
	}
	__syncthreads();
	float acc[WG_ACC];
#pragma unroll
	for (int i = 0; i < WG_ACC; i++)
		acc[i] = 0.0f;
	for (int s = 0; s < slices; s++) {
		// a stage's barrier completes once each time the stage is filled:
		// its phase flips every STAGES slices
		mbar_wait(smem_u32(&full[s % STAGES]), (s / STAGES) & 1);
		asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
		wg_mma_slice(acc, base + (s % STAGES) * WG_STAGE, wg, s == 0);
		asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
		// slice s's MMAs run on; slice s - 1's are done in this warpgroup
		asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
		__syncthreads(); // and in the other: slice s - 1's stage is free
		if (threadIdx.x == 0 && s >= 1 && s - 1 + STAGES < slices)
			issue(s - 1 + STAGES);
	}
	asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
	wg_store(C, N, acc, m0 + wg * 64, n0);
}
