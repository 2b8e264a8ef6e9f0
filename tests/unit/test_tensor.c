/* test_tensor.c: the tensor cores without a GPU: the datasheet table, a
 * kernel's tensor instructions read from PTX and SASS, and the tensor
 * roofs' kernel files compiled by NVRTC for sm_80, sm_89 and sm_90a, each
 * kernel's PTX holding the instruction and precision its name says. */
#include "ccache.h"
#include "roofsrc.h"
#include "sass.h"
#include "spec.h"
#include "tensor.h"
#include "test.h"
#include "util.h"

TEST(datasheet)
{
	const char *src = NULL;
	CHECK_NEAR(tensor_datasheet("NVIDIA H100 80GB HBM3", 132, TP_FP16, &src), 989400, 1);
	CHECK(src && strstr(src, "H100 SXM"));
	CHECK_NEAR(tensor_datasheet("NVIDIA H100 80GB HBM3", 132, PIPE_FP32, NULL), 66900, 1);
	CHECK_NEAR(tensor_datasheet("NVIDIA H100 PCIe", 114, TP_TF32, NULL), 378000, 1);
	CHECK_NEAR(tensor_datasheet("NVIDIA H100 NVL", 132, TP_FP8, NULL), 1670500, 1);
	CHECK_NEAR(tensor_datasheet("NVIDIA H200", 132, TP_BF16, NULL), 989500, 1);
	CHECK_NEAR(tensor_datasheet("NVIDIA A100-SXM4-80GB", 108, TP_INT8, NULL), 624000, 1);
	/* what a device lacks, or a device not in the table: unknown */
	CHECK(tensor_datasheet("NVIDIA A100-SXM4-80GB", 108, TP_FP8, &src) == 0 && src == NULL);
	CHECK(tensor_datasheet("NVIDIA H100 80GB HBM3", 114, TP_FP16, NULL) == 0); /* not the SXM's SMs */
	CHECK(tensor_datasheet("NVIDIA GeForce RTX 4090", 128, TP_FP16, NULL) == 0);
	CHECK(tensor_prec_find("bf16") == TP_BF16 && tensor_prec_find("FP32") == PIPE_FP32);
	CHECK(tensor_prec_find("fp64") == -1);
}

TEST(ptx_use)
{
	tensor_use u;
	tensor_use_ptx("\tld.global.f32 %f1, [%rd1];\n\tfma.rn.f32 %f2, %f1, %f1, %f1;\n", &u);
	CHECK(u.prec == -1 && u.kind == TK_NONE && u.count == 0);
	/* WMMA writes only the accumulator types for f16 inputs */
	tensor_use_ptx("\twmma.mma.sync.aligned.row.row.m16n16k16.f32.f32 {%f1}, {%r1}, {%r2}, {%f1};\n", &u);
	CHECK(u.prec == TP_FP16 && u.kind == TK_WMMA && u.count == 1);
	CHECK_STREQ(u.sass, "HMMA");
	tensor_use_ptx("\tmma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1}, {%r1}, {%r2}, {%f1};\n"
	               "\t@%p1 mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1}, {%r1}, {%r2}, {%f1};\n"
	               "\tmma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1}, {%r1}, {%r2}, {%f1};\n", &u);
	CHECK(u.prec == TP_BF16 && u.kind == TK_MMA && u.count == 3 && u.per_prec[TP_TF32] == 1);
	tensor_use_ptx("\twgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {%f1}, %rd1, %rd2, p, 1, 1;\n", &u);
	CHECK(u.prec == TP_FP8 && u.kind == TK_WGMMA);
	CHECK_STREQ(u.sass, "QGMMA");
	tensor_use_ptx("\tmma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r1}, {%r2}, {%r3}, {%r1};\n", &u);
	CHECK(u.prec == TP_INT8);
	CHECK_STREQ(u.sass, "IMMA");
	/* FP64 tensor instructions: counted, no precision of the roofs */
	tensor_use_ptx("\tmma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1}, {%fd2}, {%fd3}, {%fd1};\n", &u);
	CHECK(u.prec == -1 && u.other == 1);
	/* wgmma.fence and the like are not multiplies */
	tensor_use_ptx("\twgmma.fence.sync.aligned;\n\twgmma.commit_group.sync.aligned;\n", &u);
	CHECK(u.count == 0);
	/* packed halves on the CUDA cores: two flops a lane, no tensor pipe */
	CHECK(u.packed_half == 0);
	tensor_use_ptx("\tld.global.b32 %r1, [%rd1];\n\t@%p1 fma.rn.f16x2 %r2, %r1, %r1, %r1;\n", &u);
	CHECK(u.prec == -1 && u.packed_half == 1);
	tensor_use_ptx("\tadd.rn.bf16x2 %r2, %r1, %r1;\n", &u);
	CHECK(u.packed_half == 1);
	/* a conversion or a move of packed halves is no arithmetic */
	tensor_use_ptx("\tcvt.rn.f16x2.f32 %r1, %f1, %f2;\n\tmov.b32 %r2, %r1; // f16x2\n", &u);
	CHECK(u.packed_half == 0);
}

TEST(sass_use)
{
	tensor_use u;
	tensor_use_sass("        /*0760*/   HMMA.16816.F32 R8, R16, R26, R8 ;\n"
	                "        /*0800*/   HMMA.16816.F32 R12, R16, R20, R12 ;\n", &u);
	CHECK(u.prec == TP_FP16 && u.count == 2 && u.from_sass);
	CHECK_STREQ(u.sass, "HMMA");
	tensor_use_sass("  HGMMA.64x256x16.F32.BF16 R24, gdesc[UR4], R24, gsb0 ;\n", &u);
	CHECK(u.prec == TP_BF16 && u.kind == TK_WGMMA);
	CHECK_STREQ(u.sass, "HGMMA");
	tensor_use_sass("  HMMA.1688.F32.TF32 R4, R8, R12, R4 ;\n  QGMMA.64x256x32.F32.E4M3.E4M3 R24, gdesc[UR4], R24 ;\n"
	                "  QGMMA.64x256x32.F32.E4M3.E4M3 R24, gdesc[UR4], R24 ;\n", &u);
	CHECK(u.prec == TP_FP8 && u.per_prec[TP_TF32] == 1);
	CHECK_STREQ(u.sass, "QGMMA");
	tensor_use_sass("  IMMA.16832.S8.S8 R4, R8, R12, R4 ;\n  SHMMA R1 ;\n", &u); /* a word that only ends in HMMA */
	CHECK(u.prec == TP_INT8 && u.count == 1);
}

/* The roof kernels of one file compile for sm, and each kernel's PTX holds
 * its precision through its kind of instruction. */
static void check_file(ccache *c, const char *src, int sm, int wg, int nwant)
{
	spec s;
	char *err = NULL;
	CHECK(src != NULL);
	if (!src)
		return;
	if (spec_parse(wg ? "<builtin>/tensor_roof_sm90a.cu" : "<builtin>/tensor_roof.cu", src, &s, &err) != 0) {
		fprintf(stderr, "  %s\n", err);
		CHECK(0);
		free(err);
		return;
	}
	CHECK(s.nkernels == nwant);
	cc_source from;
	double ms;
	char *warn = NULL;
	char arch[16];
	snprintf(arch, sizeof arch, "sm_%d%s", sm, wg ? "a" : "");
	CHECK(!wg || (s.narch == 1 && strstr(src, "//@ arch   sm_90a")));
	const cunit *u = ccache_compile(c, &s, NULL, 0, arch, &from, &ms, &warn, &err);
	CHECK(u != NULL);
	if (!u)
		fprintf(stderr, "  sm_%d%s: %s\n", sm, wg ? "a" : "", err ? err : "?");
	for (int p = 0; u && p < ROOF_NPREC; p++) {
		const char *name = roofsrc_kernel(p, wg);
		int ci = cunit_find(u, name);
		if (p == ROOF_FP8 && sm < 89 && !wg) {
			CHECK(ci < 0); /* no FP8 mma.sync before sm_89 */
			continue;
		}
		CHECK(ci >= 0);
		char *f = ci >= 0 ? ptx_extract(u->ptx, u->lowered[ci], NULL, 0) : NULL;
		tensor_use use;
		tensor_use_ptx(f ? f : "", &use);
		CHECK(use.prec == p && use.kind == (wg ? TK_WGMMA : TK_MMA));
		/* register-only: the loop moves no global memory */
		CHECK(f && !strstr(f, "ld.global"));
		CHECK(!u->res[ci].known || u->res[ci].spill_st <= 0); /* known from the ptxas log */
		free(f);
	}
	free(warn);
	free(err);
	spec_free(&s);
}

TEST(roof_kernels_compile)
{
	CHECK(roofsrc_mma(75) == NULL);
	CHECK(roofsrc_wgmma(89) == NULL && roofsrc_wgmma(100) == NULL);
	ccache c;
	ccache_init(&c, "");
	int sms[] = { 80, 89, 90 };
	for (size_t i = 0; i < ARRAY_LEN(sms); i++) {
		char *src = roofsrc_mma(sms[i]);
		check_file(&c, src, sms[i], 0, sms[i] >= 89 ? 5 : 4);
		free(src);
	}
	char *src = roofsrc_wgmma(90);
	CHECK(src && strstr(src, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"));
	check_file(&c, src, 90, 1, 5);
	free(src);
	ccache_free(&c);
}

int main(void)
{
	RUN(datasheet);
	RUN(ptx_use);
	RUN(sass_use);
	RUN(roof_kernels_compile);
	return test_report("tensor");
}
