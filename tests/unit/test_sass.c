/* test_sass.c: SASS and PTX of one kernel, instruction counts, running a
 * tool. The parsing runs on canned listings everywhere; a fake nvdisasm (a
 * shell script) drives the whole pipeline; the real nvdisasm/cuobjdump and
 * NVRTC are used where they exist, and the test says so when they do not. */
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvrtc.h"
#include "sass.h"
#include "util.h"

static const char nvdisasm_listing[] =
	"\t.target\tsm_90\n"
	"\n"
	"//--------------------- .text.copy                --------------------------\n"
	"\t.section\t.text.copy,\"ax\",@progbits\n"
	"        .global         copy\n"
	"copy:\n"
	".text.copy:\n"
	"\t//## File \"kernels_src/k.cu\", line 5\n"
	"        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
	"\t//## File \"kernels_src/k.cu\", line 7\n"
	"        /*0010*/                   S2R R0, SR_TID.X ;\n"
	"\t//## File \"kernels_src/k.cu\", line 8\n"
	"        /*0020*/                   ISETP.GE.AND P0, PT, R0, UR4, PT ;\n"
	"        /*0030*/               @P0 EXIT ;\n"
	"\t//## File \"kernels_src/k.cu\", line 7\n"
	"\t//## File \"kernels_src/k.cu\", line 8\n"
	"        /*0040*/                   LDG.E R3, desc[UR4][R2.64] ;\n"
	"        /*0050*/                   STG.E desc[UR4][R4.64], R3 ;\n"
	"\t//## File \"kernels_src/k.cu\", line 9\n"
	"        /*0060*/                   EXIT ;\n"
	".L_x_0:\n"
	"        /*0070*/                   BRA `(.L_x_0);\n"
	"        /*0080*/                   NOP;\n"
	"        /*0090*/                   NOP;\n"
	".L_x_2:\n"
	"\n"
	"\n"
	"//--------------------- .text._Z4tilePfi --------------------------\n"
	"\t.section\t.text._Z4tilePfi,\"ax\",@progbits\n"
	"_Z4tilePfi:\n"
	".text._Z4tilePfi:\n"
	"        /*0000*/                   LDS.128 R4, [R2] ;\n"
	"        /*0010*/                   STS.U8 [R3], R4 ;\n"
	"        /*0020*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
	"        /*0030*/                   STL [R1], R4 ;\n"
	"        /*0040*/                   LDL R5, [R1] ;\n"
	"        /*0050*/                   LDG.E.64 R6, desc[UR4][R8.64] ;\n"
	"        /*0060*/                   LDG.E.128.CONSTANT R8, desc[UR4][R8.64] ;\n"
	"        /*0070*/                   ATOMG.E.ADD.STRONG.GPU PT, R9, desc[UR4][R2.64], R9 ;\n"
	"        /*0080*/                   REDUX.SUM UR5, R0 ;\n"
	"        /*0090*/                   EXIT ;\n"
	"\n"
	"//--------------------- SYMBOLS --------------------------\n";

static const char cuobjdump_listing[] =
	"\n"
	"\tcode for sm_90\n"
	"\t.target\tsm_90\n"
	"\n"
	"\t\tFunction : copy\n"
	"\t.headerflags\t@\"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)\"\n"
	"        /*0000*/                   LDC R1, c[0x0][0x28] ;                   /* 0x00000a00ff017b82 */\n"
	"                                                                            /* 0x000fe20000000800 */\n"
	"        /*0010*/               @P0 EXIT ;                                   /* 0x000000000000094d */\n"
	"                                                                            /* 0x000fea0003800000 */\n"
	"        /*0020*/                   STG.E.128 desc[UR4][R4.64], R8 ;          /* 0x0000000304007986 */\n"
	"                                                                            /* 0x004fe2000c101904 */\n"
	"        /*0030*/                   EXIT ;                                   /* 0x000000000000794d */\n"
	"                                                                            /* 0x000fea0003800000 */\n"
	"        /*0040*/                   BRA 0x40;                                /* 0xfffffffc00fc7947 */\n"
	"                                                                            /* 0x000fc0000383ffff */\n"
	"        /*0050*/                   NOP;                                     /* 0x0000000000007918 */\n"
	"                                                                            /* 0x000fc00000000000 */\n"
	"\t\t..........\n"
	"\n"
	"\t\tFunction : _Z4tilePfi\n"
	"        /*0000*/                   LDS.128 R4, [R2] ;                       /* 0x0000000002047984 */\n"
	"\t\t..........\n";

static const char src_text[] =
	"//@ param n = 1024\n"
	"extern \"C\" __global__ void copy(const float *in, float *out, int n)\n"
	"{\n"
	"    // a comment\n"
	"    int pad;\n"
	"    (void)pad;\n"
	"    int i = blockIdx.x * blockDim.x + threadIdx.x;   \n"
	"\tif (i < n) out[i] = in[i];\n"
	"}\n";

TEST(extract_nvdisasm)
{
	char *f = sass_extract(nvdisasm_listing, "copy", SASS_NVDISASM);
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(strstr(f, "/*0000*/") && strstr(f, "LDG.E R3"));
	CHECK(strstr(f, "LDS.128") == NULL);     /* the next function is not part of it */
	CHECK(strstr(f, ".text.copy:") == NULL); /* nor the section label */
	free(f);
	f = sass_extract(nvdisasm_listing, "_Z4tilePfi", SASS_NVDISASM);
	CHECK(f && strstr(f, "LDS.128") && !strstr(f, "SYMBOLS"));
	free(f);
	CHECK(sass_extract(nvdisasm_listing, "cop", SASS_NVDISASM) == NULL);
	CHECK(sass_extract(nvdisasm_listing, "_Z4tile", SASS_NVDISASM) == NULL);
	CHECK(sass_extract(nvdisasm_listing, "", SASS_NVDISASM) == NULL);
	CHECK(sass_extract(NULL, "copy", SASS_NVDISASM) == NULL);
}

TEST(extract_cuobjdump)
{
	char *f = sass_extract(cuobjdump_listing, "copy", SASS_CUOBJDUMP);
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(strstr(f, "STG.E.128") && !strstr(f, "LDS.128") && !strstr(f, "headerflags"));
	char *t = sass_tidy(f, NULL, 0);
	CHECK_STREQ(t,
	            "  0000        LDC R1, c[0x0][0x28] ;\n"
	            "  0010    @P0 EXIT ;\n"
	            "  0020        STG.E.128 desc[UR4][R4.64], R8 ;\n"
	            "  0030        EXIT ;\n"
	            "  0040        BRA 0x40;\n");
	free(t);
	free(f);
	f = sass_extract(cuobjdump_listing, "_Z4tilePfi", SASS_CUOBJDUMP);
	CHECK(f && strstr(f, "LDS.128"));
	free(f);
	CHECK(sass_extract(cuobjdump_listing, "tile", SASS_CUOBJDUMP) == NULL);
}

TEST(tidy)
{
	char *f = sass_extract(nvdisasm_listing, "copy", SASS_NVDISASM);
	sass_src s = { "kernels_src/k.cu", src_text };
	char *t = sass_tidy(f, &s, 1);
	CHECK_STREQ(t,
	            "        // k.cu:5  int pad;\n"
	            "  0000        LDC R1, c[0x0][0x28] ;\n"
	            "        // k.cu:7  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	            "  0010        S2R R0, SR_TID.X ;\n"
	            "        // k.cu:8  if (i < n) out[i] = in[i];\n"
	            "  0020        ISETP.GE.AND P0, PT, R0, UR4, PT ;\n"
	            "  0030    @P0 EXIT ;\n"
	            "  0040        LDG.E R3, desc[UR4][R2.64] ;\n"
	            "  0050        STG.E desc[UR4][R4.64], R3 ;\n"
	            "        // k.cu:9  }\n"
	            "  0060        EXIT ;\n"
	            ".L_x_0:\n"
	            "  0070        BRA `(.L_x_0);\n");
	free(t);
	/* matched by base name; a missing line or source: the location alone */
	sass_src s2 = { "/elsewhere/k.cu", "only one line\n" };
	t = sass_tidy(f, &s2, 1);
	CHECK(strstr(t, "        // k.cu:5\n") != NULL);
	free(t);
	t = sass_tidy(f, NULL, 0);
	CHECK(strstr(t, "        // k.cu:7\n  0010        S2R R0, SR_TID.X ;\n") != NULL);
	free(t);
	free(f);
}

TEST(counts)
{
	char *f = sass_extract(nvdisasm_listing, "copy", SASS_NVDISASM);
	sass_counts c;
	sass_count(f, &c);
	/* 8 instructions: the two padding NOPs at the end do not count */
	CHECK(c.instructions == 8);
	CHECK(c.ld_global == 1 && c.st_global == 1 && c.ld_global_bits == 32 && c.st_global_bits == 32);
	CHECK(c.ld_const == 1 && c.barriers == 0 && c.ld_shared == 0);
	char buf[256];
	sass_summary(&c, buf, sizeof buf);
	CHECK_STREQ(buf, "8 instructions; global: 1 load (32-bit), 1 store (32-bit); shared: none; local: none");
	/* the tidy form counts the same */
	char *t = sass_tidy(f, NULL, 0);
	sass_counts c2;
	sass_count(t, &c2);
	CHECK(memcmp(&c, &c2, sizeof c) == 0);
	free(t);
	free(f);

	f = sass_extract(nvdisasm_listing, "_Z4tilePfi", SASS_NVDISASM);
	sass_count(f, &c);
	CHECK(c.instructions == 10);
	CHECK(c.ld_shared == 1 && c.ld_shared_bits == 128);
	CHECK(c.st_shared == 1 && c.st_shared_bits == 8);
	CHECK(c.ld_local == 1 && c.st_local == 1);
	CHECK(c.ld_global == 2 && c.ld_global_bits == (64 | 128));
	CHECK(c.atomics == 1); /* ATOMG; REDUX is a warp reduction, not an atomic */
	CHECK(c.barriers == 1);
	sass_summary(&c, buf, sizeof buf);
	CHECK_STREQ(buf, "10 instructions; global: 2 loads (64/128-bit), 0 stores; shared: 1 load (128-bit), "
	                 "1 store (8-bit); local: 1 load, 1 store; 1 barrier; 1 atomic");
	free(f);
}

static const char ptx_text[] =
	"//\n"
	"// Generated by NVIDIA NVVM Compiler\n"
	".version 9.0\n"
	".target sm_90\n"
	".address_size 64\n"
	"\n"
	"\t// .globl\tcopy\n"
	"\n"
	".visible .entry copy(\n"
	"\t.param .u64 copy_param_0,\n"
	"\t.param .u32 copy_param_2\n"
	")\n"
	"{\n"
	"\t.reg .b32 \t%r<6>;\n"
	"\t.loc\t1 7 5\n"
	"\tmov.u32 \t%r1, %ctaid.x;\n"
	"\t.loc\t1 7 5\n"
	"\tmov.u32 \t%r2, %ntid.x;\n"
	"\t{ // callseq 0\n"
	"\t.reg .b32 temp_param_reg;\n"
	"\t} // callseq 0\n"
	"\t.loc\t1 8 2\n"
	"\tret;\n"
	"\n"
	"}\n"
	"\t// .globl\t_Z4tilePfi\n"
	".visible .entry _Z4tilePfi(\n"
	")\n"
	"{\n"
	"\tret;\n"
	"}\n"
	"\t.file\t1 \"kernels_src/k.cu\"\n"
	"\t.file\t2 \"/usr/local/cuda/include/x.h\", 1700000000, 123\n";

TEST(ptx)
{
	sass_src s = { "kernels_src/k.cu", src_text };
	char *p = ptx_extract(ptx_text, "copy", &s, 1);
	CHECK_STREQ(p,
	            ".visible .entry copy(\n"
	            "\t.param .u64 copy_param_0,\n"
	            "\t.param .u32 copy_param_2\n"
	            ")\n"
	            "{\n"
	            "\t.reg .b32 \t%r<6>;\n"
	            "        // k.cu:7  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	            "\tmov.u32 \t%r1, %ctaid.x;\n"
	            "\tmov.u32 \t%r2, %ntid.x;\n"
	            "\t{ // callseq 0\n"
	            "\t.reg .b32 temp_param_reg;\n"
	            "\t} // callseq 0\n"
	            "        // k.cu:8  if (i < n) out[i] = in[i];\n"
	            "\tret;\n"
	            "\n"
	            "}\n");
	free(p);
	p = ptx_extract(ptx_text, "_Z4tilePfi", NULL, 0);
	CHECK_STREQ(p, ".visible .entry _Z4tilePfi(\n)\n{\n\tret;\n}\n");
	free(p);
	CHECK(ptx_extract(ptx_text, "cop", NULL, 0) == NULL);
	CHECK(ptx_extract(ptx_text, "_Z4tile", NULL, 0) == NULL);
	CHECK(ptx_extract(NULL, "copy", NULL, 0) == NULL);
}

TEST(processes)
{
	const char *ok[] = { "/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	char *out = NULL, *eout = NULL, *err = NULL;
	int st = -1;
	CHECK(proc_capture(ok, 10, &out, &eout, &st, &err) == 0);
	CHECK_STREQ(out, "out\n");
	CHECK_STREQ(eout, "err\n");
	CHECK(st == 3);
	free(out);
	free(eout);

	/* more output than a pipe holds, on both streams */
	const char *big[] = { "/bin/sh", "-c", "i=0; while [ $i -lt 3000 ]; do echo 0123456789012345678901234567890123456789; "
	                      "echo e >&2; i=$((i+1)); done", NULL };
	CHECK(proc_capture(big, 30, &out, NULL, &st, &err) == 0);
	CHECK(out && strlen(out) == 3000 * 41 && st == 0);
	free(out);

	const char *slow[] = { "/bin/sleep", "5", NULL };
	uint64_t t0 = now_ns();
	CHECK(proc_capture(slow, 0.2, &out, &eout, &st, &err) == -1);
	CHECK(err && strstr(err, "'sleep' took longer than") != NULL);
	CHECK((now_ns() - t0) / 1e9 < 3);
	free(err);
	err = NULL;

	const char *none[] = { "/nonexistent/tool", NULL };
	CHECK(proc_capture(none, 1, &out, &eout, &st, &err) == -1);
	CHECK(err && strncmp(err, "cannot run '/nonexistent/tool'", 30) == 0);
	free(err);
}

static char *saved_home, *saved_path;

static void env_save(void)
{
	const char *h = getenv("CUDA_HOME"), *p = getenv("PATH");
	saved_home = h ? xstrdup(h) : NULL;
	saved_path = p ? xstrdup(p) : NULL;
}

static void env_restore(void)
{
	if (saved_home)
		setenv("CUDA_HOME", saved_home, 1);
	else
		unsetenv("CUDA_HOME");
	if (saved_path)
		setenv("PATH", saved_path, 1);
	else
		unsetenv("PATH");
	free(saved_home);
	free(saved_path);
	saved_home = saved_path = NULL;
}

static void write_script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	fputs(body, f);
	fclose(f);
	chmod(path, 0755);
}

/* A fake toolkit: bin/nvdisasm prints the canned listing (or fails), so the
 * whole of sass_disasm runs without the real tool. */
TEST(fake_tool)
{
	char dir[] = "/tmp/cuplay-sass-XXXXXX";
	if (!mkdtemp(dir)) {
		CHECK(0);
		return;
	}
	char *bin = xasprintf("%s/bin", dir);
	mkdir(bin, 0755);
	char *listing = xasprintf("%s/listing.txt", dir);
	FILE *f = fopen(listing, "w");
	if (f) {
		fputs(nvdisasm_listing, f);
		fclose(f);
	}
	char *tool = xasprintf("%s/nvdisasm", bin);
	/* checks its arguments: -c -g and a readable cubin that holds our bytes */
	char *script = xasprintf("#!/bin/sh\n"
	                         "PATH=/usr/bin:/bin\n"
	                         "[ \"$1\" = -c ] && [ \"$2\" = -g ] && grep -q CUBINBYTES \"$3\" || exit 9\n"
	                         "cat '%s'\n", listing);
	write_script(tool, script);
	env_save();
	setenv("CUDA_HOME", dir, 1);
	setenv("PATH", "/nonexistent", 1);

	char *path = NULL, *why = NULL;
	CHECK(sass_find_tool(SASS_NONE, &path, &why) == SASS_NVDISASM || strcmp(CUDA_HOME_DEFAULT, dir) == 0);
	free(path);
	path = NULL;

	sass_src s = { "kernels_src/k.cu", src_text };
	char *out = NULL, *err = NULL;
	const char cubin[] = "\x7f" "ELF fake CUBINBYTES";
	int rc = sass_disasm(cubin, sizeof cubin, "copy", &s, 1, &out, &err);
	CHECK(rc == 0);
	CHECK(out && strstr(out, "// k.cu:8  if (i < n) out[i] = in[i];\n  0020        ISETP") != NULL);
	free(out);
	out = NULL;

	rc = sass_disasm(cubin, sizeof cubin, "_Z3nopv", &s, 1, &out, &err);
	CHECK(rc == -1 && out == NULL);
	CHECK_STREQ(err, "no kernel '_Z3nopv' in the cubin");
	free(err);
	err = NULL;

	/* a failing tool: its message, without the "nvdisasm fatal : " prefix */
	write_script(tool, "#!/bin/sh\necho 'nvdisasm fatal   : Object file x.cubin appears truncated' >&2\nexit 1\n");
	rc = sass_disasm(cubin, sizeof cubin, "copy", &s, 1, &out, &err);
	CHECK(rc == -1);
	CHECK_STREQ(err, "nvdisasm failed: Object file x.cubin appears truncated");
	free(err);
	err = NULL;

	CHECK(sass_disasm(NULL, 0, "copy", &s, 1, &out, &err) == -1);
	CHECK_STREQ(err, "no cubin to disassemble");
	free(err);
	err = NULL;

	/* no tool anywhere (unless the built-in toolkit has one) */
	unlink(tool);
	char *dflt = xasprintf("%s/bin/nvdisasm", CUDA_HOME_DEFAULT);
	char *dflt2 = xasprintf("%s/bin/cuobjdump", CUDA_HOME_DEFAULT);
	if (access(dflt, X_OK) != 0 && access(dflt2, X_OK) != 0) {
		CHECK(sass_find_tool(SASS_NONE, &path, &why) == SASS_NONE);
		CHECK(path == NULL);
		CHECK(why && strncmp(why, "no nvdisasm or cuobjdump in ", 28) == 0);
		free(why);
		why = NULL;
		CHECK(sass_disasm(cubin, sizeof cubin, "copy", &s, 1, &out, &err) == -1);
		CHECK(err && strstr(err, "nvdisasm or cuobjdump") != NULL);
		free(err);
		err = NULL;
	}
	free(dflt);
	free(dflt2);
	env_restore();

	unlink(listing);
	rmdir(bin);
	rmdir(dir);
	free(script);
	free(tool);
	free(listing);
	free(bin);
}

static const char real_src[] =
	"#define TILE 32\n"
	"__global__ void tiled(const float *__restrict__ in, float *out, int n)\n"
	"{\n"
	"    __shared__ float t[TILE][TILE + 1];\n"
	"    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;\n"
	"    t[threadIdx.y][threadIdx.x] = in[y * n + x];\n"
	"    __syncthreads();\n"
	"    out[(blockIdx.x * TILE + threadIdx.y) * n + blockIdx.y * TILE + threadIdx.x] = t[threadIdx.x][threadIdx.y];\n"
	"}\n";

/* The real thing: NVRTC's cubin through the toolkit's disassembler. */
TEST(real_tool)
{
	char *path = NULL, *why = NULL;
	sass_tool kind = sass_find_tool(SASS_NONE, &path, &why);
	if (kind == SASS_NONE) {
		printf("sass: skipped the real disassembler test: %s\n", why);
		free(why);
		return;
	}
	char *err = NULL;
	if (nvrtc_load(&err) != 0) {
		printf("sass: skipped the real disassembler test: %s\n", err);
		free(err);
		free(path);
		return;
	}
	const char *opts[] = { "-arch=sm_90", "-lineinfo" };
	const char *names[] = { "tiled" };
	nvrtc_out o;
	int rc = nvrtc_compile("kernels_src/real.cu", real_src, opts, 2, names, 1, &o, &err);
	CHECK(rc == 0);
	if (rc != 0) {
		fprintf(stderr, "nvrtc: %s\n", err);
		free(err);
		free(path);
		return;
	}
	sass_src s = { "kernels_src/real.cu", real_src };
	char *out = NULL;
	rc = sass_disasm(o.cubin, o.cubin_len, o.lowered[0], &s, 1, &out, &err);
	CHECK(rc == 0);
	if (rc == 0) {
		CHECK(strstr(out, "LDG.E") != NULL);
		CHECK(strstr(out, "STS") != NULL && strstr(out, "BAR.SYNC") != NULL);
		if (kind == SASS_NVDISASM)
			CHECK(strstr(out, "// real.cu:7  __syncthreads();\n") != NULL);
		sass_counts c;
		sass_count(out, &c);
		CHECK(c.ld_global == 1 && c.st_global == 1 && c.ld_shared == 1 && c.st_shared == 1);
		CHECK(c.barriers == 1 && c.ld_local == 0);
		printf("sass: %s, %d instructions\n", kind == SASS_NVDISASM ? "nvdisasm" : "cuobjdump",
		       c.instructions);
	} else {
		fprintf(stderr, "sass: %s\n", err);
		free(err);
	}
	free(out);
	if (o.ptx) {
		char *p = ptx_extract(o.ptx, o.lowered[0], &s, 1);
		CHECK(p && strstr(p, ".entry _Z5tiledPKfPfi(") && strstr(p, "bar.sync"));
		CHECK(p && strstr(p, "// real.cu:7  __syncthreads();\n") != NULL);
		free(p);
	}
	nvrtc_out_free(&o);
	free(path);
}

int main(void)
{
	RUN(extract_nvdisasm);
	RUN(extract_cuobjdump);
	RUN(tidy);
	RUN(counts);
	RUN(ptx);
	RUN(processes);
	RUN(fake_tool);
	RUN(real_tool);
	return test_report("sass");
}
