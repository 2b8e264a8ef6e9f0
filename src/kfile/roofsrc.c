/* roofsrc.c: the tensor roofs' kernel files. Each kernel holds its
 * operands in registers (mma.sync) or in a shared-memory tile it fills once
 * (wgmma) and runs ITERS rounds of independent matrix multiplies into its
 * accumulators: no memory traffic in the loop, so the tensor pipe alone
 * sets the pace. The operands are hashed bit patterns masked to positive,
 * finite values below 2 in every type (0x3B in each byte), so the sums stay
 * positive and finite and the `s == -1` store never happens. */
#include "roofsrc.h"

#include <stdio.h>

#include "util.h"

static const struct prec {
	const char *key;       /* fp16 ... */
	const char *mma;       /* mma.sync form */
	int mma_k;
	const char *wgmma;     /* wgmma form (m64n256kK) */
	const char *wg_tail;   /* the immediates after scale-d */
	int wg_k;
	int is_int;            /* s32 accumulators */
	int min_sm;            /* of the mma.sync form */
} precs[ROOF_NPREC] = {
	{ "fp16", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16, "f32.f16.f16", ", 1, 1, 0, 0", 16, 0, 80 },
	{ "bf16", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 16, "f32.bf16.bf16", ", 1, 1, 0, 0", 16, 0, 80 },
	{ "tf32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 8, "f32.tf32.tf32", ", 1, 1", 8, 0, 80 },
	{ "int8", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", 32, "s32.s8.s8", "", 32, 1, 80 },
	{ "fp8", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", 32, "f32.e4m3.e4m3", ", 1, 1", 32, 0, 89 },
};

/* mma.sync: 8 independent accumulators per thread, 4 blocks of 256 threads
 * per SM (32 warps), each m16n8kK multiply 2*16*8*K flops for the warp. */
#define MMA_CHAINS 8
#define WG_STEPS 8

const char *roofsrc_kernel(int i, int wg)
{
	static const char *const mma[ROOF_NPREC] = { "mma_fp16", "mma_bf16", "mma_tf32", "mma_int8", "mma_fp8" };
	static const char *const wgm[ROOF_NPREC] = { "wgmma_fp16", "wgmma_bf16", "wgmma_tf32", "wgmma_int8",
		                                     "wgmma_fp8" };
	return i >= 0 && i < ROOF_NPREC ? (wg ? wgm[i] : mma[i]) : NULL;
}

char *roofsrc_mma(int sm)
{
	if (sm < 80)
		return NULL;
	sbuf b = {0};
	sb_puts(&b, "// tensor_roof.cu: tensor-core throughput through mma.sync, for `roof`\n"
	            "//@ param  N = SM_COUNT * 1024\n"
	            "//@ param  ITERS = 2048\n"
	            "//@ buffer out float[N] zero output\n"
	            "//@ grid   cdiv(N, 256)\n"
	            "//@ block  256\n"
	            "//@ check  none\n");
	for (int p = 0; p < ROOF_NPREC; p++)
		if (sm >= precs[p].min_sm)
			sb_printf(&b, "//@ kernel mma_%s flops N * ITERS * %d * %d\n", precs[p].key, MMA_CHAINS,
			          2 * 16 * 8 * precs[p].mma_k / 32);
	for (int p = 0; p < ROOF_NPREC; p++) {
		const struct prec *q = &precs[p];
		if (sm < q->min_sm)
			continue;
		const char *acc = q->is_int ? "int" : "float", *c = q->is_int ? "+r" : "+f";
		sb_printf(&b,
		          "__global__ void __launch_bounds__(256) mma_%s(float *out, int N, int ITERS)\n"
		          "{\n"
		          "\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		          "\tunsigned a[4], b[2];\n"
		          "#pragma unroll\n"
		          "\tfor (int k = 0; k < 4; k++)\n"
		          "\t\ta[k] = ((unsigned)(i * 4 + k) * 2654435761u) & 0x3B3B3B3Bu;\n"
		          "#pragma unroll\n"
		          "\tfor (int k = 0; k < 2; k++)\n"
		          "\t\tb[k] = ((unsigned)(i * 2 + k) * 2246822519u) & 0x3B3B3B3Bu;\n"
		          "\t%s d[%d][4];\n"
		          "#pragma unroll\n"
		          "\tfor (int c = 0; c < %d; c++)\n"
		          "\t\td[c][0] = d[c][1] = d[c][2] = d[c][3] = 0;\n"
		          "\tfor (int it = 0; it < ITERS; it++) {\n"
		          "#pragma unroll\n"
		          "\t\tfor (int c = 0; c < %d; c++)\n"
		          "\t\t\tasm volatile(\"%s {%%0, %%1, %%2, %%3}, {%%4, %%5, %%6, %%7}, {%%8, %%9}, "
		          "{%%0, %%1, %%2, %%3};\"\n"
		          "\t\t\t             : \"%s\"(d[c][0]), \"%s\"(d[c][1]), \"%s\"(d[c][2]), \"%s\"(d[c][3])\n"
		          "\t\t\t             : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b[0]), \"r\"(b[1]));\n"
		          "\t}\n"
		          "\tfloat s = 0.0f;\n"
		          "#pragma unroll\n"
		          "\tfor (int c = 0; c < %d; c++)\n"
		          "\t\ts += (float)d[c][0] + (float)d[c][1] + (float)d[c][2] + (float)d[c][3];\n"
		          "\tif (i < N && s == -1.0f) /* never: every product is positive */\n"
		          "\t\tout[i] = s;\n"
		          "}\n",
		          q->key, acc, MMA_CHAINS, MMA_CHAINS, MMA_CHAINS, q->mma, c, c, c, c, MMA_CHAINS);
	}
	return sb_steal(&b);
}

/* One wgmma of m64n256kK: 128 accumulator registers a thread. */
static void wgmma_asm(sbuf *b, const struct prec *q)
{
	sb_printf(b, "\t\t\tasm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %%130, 0;\\n\"\n"
	             "\t\t\t             \"wgmma.mma_async.sync.aligned.m64n256k%d.%s {", q->wg_k, q->wgmma);
	for (int r = 0; r < 128; r++)
		sb_printf(b, "%s%%%d", r ? ", " : "", r);
	sb_printf(b, "}, %%128, %%129, p%s;\\n}\\n\"\n\t\t\t             : ", q->wg_tail);
	for (int r = 0; r < 128; r++)
		sb_printf(b, "%s\"%s\"(d[%d])", r ? ", " : "", q->is_int ? "+r" : "+f", r);
	sb_puts(b, "\n\t\t\t             : \"l\"(da), \"l\"(db), \"r\"(one));\n");
}

char *roofsrc_wgmma(int sm)
{
	if (sm != 90)
		return NULL;
	sbuf b = {0};
	sb_puts(&b, "// tensor_roof_sm90a.cu: tensor-core throughput through wgmma (sm_90a), for `roof`\n"
	            "//@ arch   sm_90a\n"
	            "//@ param  N = SM_COUNT * 2\n"
	            "//@ param  ITERS = 1024\n"
	            "//@ buffer out float[N * 128] zero output\n"
	            "//@ grid   N\n"
	            "//@ block  128\n"
	            "//@ check  none\n");
	for (int p = 0; p < ROOF_NPREC; p++)
		sb_printf(&b, "//@ kernel wgmma_%s flops N * ITERS * %d * %d\n", precs[p].key, WG_STEPS,
		          2 * 64 * 256 * precs[p].wg_k);
	/* the tile: A (64 x K) at 0, B (256 x K) at 8 KB, K-major core matrices
	 * of 8 rows x 16 bytes without swizzle: 128 bytes to the next along K,
	 * 256 to the next along M or N; every K of these shapes is 32 bytes */
	for (int p = 0; p < ROOF_NPREC; p++) {
		const struct prec *q = &precs[p];
		const char *acc = q->is_int ? "int" : "float", *c = q->is_int ? "+r" : "+f";
		sb_printf(&b,
		          "__global__ void __launch_bounds__(128, 2) wgmma_%s(float *out, int N, int ITERS)\n"
		          "{\n"
		          "\t__shared__ __align__(1024) unsigned tile[4096];\n"
		          "\tfor (int k = threadIdx.x; k < 4096; k += 128)\n"
		          "\t\ttile[k] = ((unsigned)(blockIdx.x * 4096 + k) * 2654435761u) & 0x3B3B3B3Bu;\n"
		          "\t__syncthreads();\n"
		          "\tasm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n"
		          "\tunsigned base;\n"
		          "\tasm(\"{ .reg .u64 t; cvta.to.shared.u64 t, %%1; cvt.u32.u64 %%0, t; }\" : \"=r\"(base) : "
		          "\"l\"(tile));\n"
		          "\tunsigned long long lay = (128ull >> 4) << 16 | (256ull >> 4) << 32;\n"
		          "\tunsigned long long da = ((base >> 4) & 0x3FFF) | lay;\n"
		          "\tunsigned long long db = (((base + 8192) >> 4) & 0x3FFF) | lay;\n"
		          "\tint one = ITERS > 0;\n"
		          "\t%s d[128];\n"
		          "#pragma unroll\n"
		          "\tfor (int k = 0; k < 128; k++)\n"
		          "\t\td[k] = 0;\n"
		          "\tasm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\");\n"
		          "\tfor (int it = 0; it < ITERS; it++) {\n"
		          "#pragma unroll\n"
		          "\t\tfor (int s = 0; s < %d; s++)\n",
		          q->key, acc, WG_STEPS);
		wgmma_asm(&b, q);
		sb_printf(&b,
		          "\t\tasm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\");\n"
		          "\t\tasm volatile(\"wgmma.wait_group.sync.aligned 1;\" ::: \"memory\");\n"
		          "\t}\n"
		          "\tasm volatile(\"wgmma.wait_group.sync.aligned 0;\" ::: \"memory\");\n"
		          "\tfloat s = 0.0f;\n"
		          "#pragma unroll\n"
		          "\tfor (int k = 0; k < 128; k++) {\n"
		          "\t\tasm volatile(\"\" : \"%s\"(d[k]) :: \"memory\");\n"
		          "\t\ts += (float)d[k];\n"
		          "\t}\n"
		          "\tif (s == -1.0f) /* never: every product is positive */\n"
		          "\t\tout[blockIdx.x * 128 + threadIdx.x] = s;\n"
		          "}\n",
		          c);
	}
	return sb_steal(&b);
}
