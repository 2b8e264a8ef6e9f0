/* test_ptxread.c: which pointer parameters a kernel reads through, from
 * PTX written here and from kernels compiled by NVRTC (where it loads). */
#include "nvrtc.h"
#include "ptxread.h"
#include "test.h"
#include "util.h"

#include <stdlib.h>

static uint64_t writes_of(const char *ptx, const char *entry)
{
	uint64_t r = 0, w = 0;
	char *why = NULL;
	if (ptx_param_access(ptx, entry, &r, &w, &why) != 0) {
		fprintf(stderr, "  %s: %s\n", entry, why);
		free(why);
	}
	return w;
}

static uint64_t reads_of(const char *ptx, const char *entry)
{
	uint64_t m = 0;
	char *why = NULL;
	if (ptx_param_reads(ptx, entry, &m, &why) != 0) {
		fprintf(stderr, "  %s: %s\n", entry, why);
		free(why);
	}
	return m;
}

/* out[i] = in[i]: in (0) is read, out (1) only written; a .loc line with no
 * ';', a label, a guard, comments with braces, a vector load. */
static const char copy_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	"// a comment with a brace {\n"
	".visible .entry copy(\n"
	"\t.param .u64 copy_param_0, // in {\n"
	"\t.param .u64 .ptr .global .align 4 copy_param_1,\n"
	"\t.param .u32 copy_param_2\n)\n{\n"
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<5>;\n\t.reg .f32 %f<3>;\n\t.reg .b64 %rd<9>;\n"
	"\t.loc 1 3 0\n"
	"\tld.param.u64 %rd1, [copy_param_0];\n"
	"\tld.param.u64 %rd2, [copy_param_1];\n"
	"\tld.param.u32 %r1, [copy_param_2];\n"
	"\tmov.u32 %r2, %tid.x;\n"
	"\tsetp.ge.s32 %p1, %r2, %r1;\n"
	"\t@%p1 bra $L__BB0_2;\n"
	"\tcvta.to.global.u64 %rd3, %rd1;\n"
	"\tmul.wide.s32 %rd4, %r2, 4;\n"
	"\tadd.s64 %rd5, %rd3, %rd4; /* in + i { */\n"
	"\tld.global.nc.v2.f32 {%f1, %f2}, [%rd5+0];\n"
	"\tcvta.to.global.u64 %rd6, %rd2;\n"
	"\tadd.s64 %rd7, %rd6, %rd4;\n"
	"\tst.global.v2.f32 [%rd7], {%f1, %f2};\n"
	"$L__BB0_2:\n"
	"\tret;\n"
	"}\n";

TEST(written)
{
	CHECK(reads_of(copy_ptx, "copy") == 1);

	/* the same with out[i] += ...: a load through out */
	char *acc = xstrdup(copy_ptx);
	char *at = strstr(acc, "\tst.global.v2.f32");
	const char *more = "\tld.global.f32 %f2, [%rd7];\n";
	char *two = xasprintf("%.*s%s%s", (int)(at - acc), acc, more, at);
	CHECK(reads_of(two, "copy") == 3);
	free(two);

	/* atomics and reductions read what they update */
	const char *ops[] = { "\tatom.global.add.f32 %f2, [%rd7], %f1;\n", "\tred.global.add.f32 [%rd7], %f1;\n",
		              "\tcp.async.ca.shared.global [%rd4], [%rd7], 16;\n" };
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		char *x = xasprintf("%.*s%s%s", (int)(at - acc), acc, ops[i], at);
		CHECK(reads_of(x, "copy") == 3);
		free(x);
	}
	/* out escapes: stored, or passed to a call, or its address taken */
	const char *esc[] = { "\tst.shared.u64 [%rd4], %rd7;\n", "\tst.param.b64 [param0], %rd6;\n",
		              "\tmov.u64 %rd8, copy_param_1;\n" };
	for (size_t i = 0; i < sizeof esc / sizeof esc[0]; i++) {
		char *x = xasprintf("%.*s%s%s", (int)(at - acc), acc, esc[i], at);
		CHECK(reads_of(x, "copy") == 3);
		free(x);
	}
	/* a prefetch or a plain store through out is no read */
	char *pf = xasprintf("%.*s\tprefetch.global.L2 [%%rd7];\n\tst.global.f32 [%%rd7+4], %%f1;\n%s",
	                     (int)(at - acc), acc, at);
	CHECK(reads_of(pf, "copy") == 1);
	free(pf);
	free(acc);

	/* a loop carries a value backwards: the address of the load is made
	 * from out only on the second pass */
	const char loop_ptx[] =
		".visible .entry loop(.param .u64 loop_param_0, .param .u64 loop_param_1)\n{\n"
		"\tld.param.u64 %rd1, [loop_param_0];\n\tld.param.u64 %rd2, [loop_param_1];\n"
		"\tmov.u64 %rd3, 0;\n"
		"$L__top:\n"
		"\tld.global.f32 %f1, [%rd3];\n"
		"\tmov.u64 %rd3, %rd4;\n"
		"\tadd.s64 %rd4, %rd2, 8;\n"
		"\tst.global.f32 [%rd1], %f1;\n"
		"\tbra $L__top;\n}\n";
	CHECK(reads_of(loop_ptx, "loop") == 2);

	/* not there, or no body: all read */
	uint64_t m = 0;
	char *why = NULL;
	CHECK(ptx_param_reads(copy_ptx, "nosuch", &m, &why) == -1 && m == ~(uint64_t)0);
	CHECK_STREQ(why, "no entry 'nosuch' in the PTX");
	free(why);
	why = NULL;
	CHECK(ptx_param_reads(".entry broken(.param .u64 p) {\n ld.param.u64 %rd1, [p];\n", "broken", &m, &why) == -1);
	CHECK(m == ~(uint64_t)0);
	free(why);
	why = NULL;
	CHECK(ptx_param_reads(NULL, "copy", &m, &why) == -1);
	free(why);
	why = NULL;
	/* an entry whose name begins another's is not taken for it */
	CHECK(ptx_param_reads(copy_ptx, "cop", &m, &why) == -1);
	free(why);
}

/* Which parameters a kernel may write through: stores, atomics,
 * reductions and copies into them, and pointers that escape. */
TEST(writes)
{
	CHECK(writes_of(copy_ptx, "copy") == 2); /* out; in only read */
	char *acc = xstrdup(copy_ptx);
	char *at = strstr(acc, "\tst.global.v2.f32");
	/* the store gone: nothing written */
	char *none = xasprintf("%.*s%s", (int)(at - acc), acc, strstr(at, "$L__BB0_2"));
	CHECK(writes_of(none, "copy") == 0);
	/* an atomic, a reduction, through in; a cp.async from in writes
	 * shared memory, not in */
	const char *ops[] = { "\tatom.global.add.f32 %f2, [%rd5], %f1;\n", "\tred.global.add.f32 [%rd5], %f1;\n",
		              "\tst.global.f32 [%rd5+4], %f1;\n", "\tdiscard.global.L2 [%rd5], 128;\n" };
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		char *x = xasprintf("%.*s%s%s", (int)(at - acc), acc, ops[i], at);
		CHECK(writes_of(x, "copy") == 3);
		free(x);
	}
	char *cp = xasprintf("%.*s\tcp.async.ca.shared.global [%%rd4], [%%rd5], 16;\n%s", (int)(at - acc), acc, at);
	CHECK(writes_of(cp, "copy") == 2);
	free(cp);
	/* in escapes: stored, passed to a call, its address taken */
	const char *esc[] = { "\tst.shared.u64 [%rd4], %rd5;\n", "\tst.param.b64 [param0], %rd5;\n",
		              "\tmov.u64 %rd8, copy_param_0;\n" };
	for (size_t i = 0; i < sizeof esc / sizeof esc[0]; i++) {
		char *x = xasprintf("%.*s%s%s", (int)(at - acc), acc, esc[i], at);
		CHECK(writes_of(x, "copy") == 3);
		free(x);
	}
	free(none);
	free(acc);
	/* not there: all may be written */
	uint64_t r = 0, w = 0;
	char *why = NULL;
	CHECK(ptx_param_access(copy_ptx, "nosuch", &r, &w, &why) == -1 && w == ~(uint64_t)0);
	free(why);
}

/* Kernels as NVRTC compiles them (as cuplay does: -lineinfo). */
static const char kernels[] =
	"extern \"C\" __global__ void copy(const float *in, float *out, int n)\n"
	"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = in[i]; }\n"
	"extern \"C\" __global__ void transpose(const float *__restrict__ in, float *__restrict__ out, int n)\n"
	"{\n"
	"  __shared__ float tile[32][33];\n"
	"  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;\n"
	"  for (int j = 0; j < 32; j += 8) if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];\n"
	"  __syncthreads();\n"
	"  x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;\n"
	"  for (int j = 0; j < 32; j += 8) if (x < n && y + j < n) out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];\n"
	"}\n"
	"extern \"C\" __global__ void sum(const float *in, float *out, int n)\n"
	"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(out, in[i]); }\n"
	"extern \"C\" __global__ void axpy(float a, const float *x, float *y, int n)\n"
	"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }\n"
	"extern \"C\" __global__ void vec4(const float4 *in, float4 *out, int n)\n"
	"{ for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = in[i]; }\n"
	"__device__ __noinline__ void put(float *p, float v) { *p = v; }\n"
	"extern \"C\" __global__ void via_call(const float *in, float *out, int n)\n"
	"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) put(out + i, in[i]); }\n"
	"extern \"C\" __global__ void scale_inplace(float *x, float a, int n)\n"
	"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= a; }\n"
	"extern \"C\" __global__ void two_out(const int *in, int *lo, int *hi, int n)\n"
	"{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { lo[i] = in[i] & 0xffff; hi[i] = in[i] >> 16; } }\n"
	"extern \"C\" __global__ void sel(const float *a, float *out, int n, int pick)\n"
	"{ int i = blockIdx.x * blockDim.x + threadIdx.x; const float *src = pick ? a : out; if (i < n) out[i] = src[i] + 1; }\n";

static void widths_of(const char *ptx, const char *entry, int *ld, int *st)
{
	char *why = NULL;
	if (ptx_access_widths(ptx, entry, "global", ld, st, &why) != 0) {
		fprintf(stderr, "  %s: %s\n", entry, why);
		free(why);
	}
}

/* The widest global access per thread: what a coalesced warp's request
 * needs in 32-byte sectors. */
TEST(widths)
{
	int ld = -1, st = -1;
	widths_of(copy_ptx, "copy", &ld, &st);
	CHECK(ld == 8 && st == 8); /* v2.f32 */
	char *why = NULL;
	CHECK(ptx_access_widths(copy_ptx, "nope", "global", &ld, &st, &why) == -1 && why);
	free(why);
	/* the same statements in shared memory: none there */
	CHECK(ptx_access_widths(copy_ptx, "copy", "shared", &ld, &st, NULL) == 0 && ld == 0 && st == 0);
	/* cp.async: a 16-byte global load request a thread (a warp of them needs
	 * 16 sectors), beside a 4-byte ld.global at the edge; its write into
	 * shared memory is no shared store request; the TMA's bulk copy is no
	 * per-thread access */
	static const char cp_ptx[] =
		".visible .entry stage(\n\t.param .u64 stage_param_0\n)\n{\n"
		"\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\t.reg .f32 %f<2>;\n"
		"\tld.param.u64 %rd1, [stage_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
		"\tld.global.f32 %f1, [%rd2];\n"
		"\tcp.async.cg.shared.global [%r1], [%rd2], 16;\n\tcp.async.commit_group;\n"
		"\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd2, {%r2, %r3}], [%r1];\n"
		"\tret;\n}\n";
	CHECK(ptx_access_widths(cp_ptx, "stage", "global", &ld, &st, NULL) == 0 && ld == 16 && st == 0);
	CHECK(ptx_access_widths(cp_ptx, "stage", "shared", &ld, &st, NULL) == 0 && ld == 0 && st == 0);
}

/* The module's variables a kernel writes: a flag stored, a counter taken
 * by an atomic through a register, an array through an address computed
 * from it, a managed counter; a variable only read is not written. */
static const char state_ptx[] =
	".version 8.0\n.target sm_80\n.address_size 64\n"
	".global .align 4 .u32 done_flag;\n"
	".global .align 4 .u32 finished;\n"
	".global .align 4 .b8 acc[4096];\n"
	".global .attribute(.managed) .align 4 .u32 mcount;\n"
	".global .align 4 .u32 ro = 5;\n"
	".global .align 1 .b8 $str[3] = {104, 105, 0};\n"
	".global .align 8 .u64 _ZN2ns3nsvE;\n"
	".visible .entry once(\n\t.param .u64 once_param_0\n)\n{\n"
	"\t.reg .pred %p<6>;\n\t.reg .b32 %r<14>;\n\t.reg .b64 %rd<16>;\n\t.reg .f32 %f<7>;\n"
	"\tld.global.u32 %r4, [done_flag];\n\tsetp.ne.s32 %p1, %r4, 0;\n\t@%p1 bra $L__BB0_9;\n"
	"\tld.global.u32 %r7, [ro];\n"
	"\tmov.u64 %rd10, finished;\n\tatom.global.add.u32 %r8, [%rd10], 1;\n"
	"\tmov.u32 %r11, 1;\n\tst.global.u32 [done_flag], %r11;\n"
	"\tmov.u64 %rd12, acc;\n\tadd.s64 %rd13, %rd12, %rd11;\n\tld.global.f32 %f5, [%rd13];\n"
	"\tst.global.f32 [%rd13], %f6;\n"
	"\tmov.u64 %rd14, mcount;\n\tcvta.global.u64 %rd15, %rd14;\n\tatom.add.u32 %r12, [%rd15], 1;\n"
	"\tst.global.u64 [_ZN2ns3nsvE+0], %rd15;\n"
	"$L__BB0_9:\n\tret;\n}\n"
	".visible .entry reader(\n\t.param .u64 reader_param_0\n)\n{\n"
	"\t.reg .b32 %r<3>;\n\tld.global.u32 %r1, [ro];\n\tld.global.u32 %r2, [done_flag];\n\tret;\n}\n";

TEST(globals)
{
	ptx_var *v = NULL;
	int n = 0;
	CHECK(ptx_global_writes(state_ptx, "once", &v, &n, NULL) == 0);
	CHECK(n == 5);
	if (n == 5) {
		CHECK(strcmp(v[0].name, "done_flag") == 0 && strcmp(v[0].type, "u32") == 0 && v[0].count == 1);
		CHECK(strcmp(v[1].name, "finished") == 0 && !v[1].managed);
		CHECK(strcmp(v[2].name, "acc") == 0 && strcmp(v[2].type, "b8") == 0 && v[2].count == 4096);
		CHECK(strcmp(v[3].name, "mcount") == 0 && v[3].managed);
		CHECK(strcmp(v[4].name, "_ZN2ns3nsvE") == 0 && strcmp(v[4].type, "u64") == 0);
	}
	free(v);
	CHECK(ptx_global_writes(state_ptx, "reader", &v, &n, NULL) == 0 && n == 0 && v == NULL);
	char *why = NULL;
	CHECK(ptx_global_writes(state_ptx, "nope", &v, &n, &why) == -1 && why && strstr(why, "no entry 'nope'"));
	free(why);
	/* values: a float's bits (0f...), a double's (0d...), an integer */
	static const char init_ptx[] =
		".version 8.0\n.target sm_80\n.address_size 64\n"
		".visible .global .align 4 .f32 scale = 0f3FC00000;\n"
		".global .align 8 .f64 big = 0d4004000000000000;\n"
		".global .align 4 .u32 count = 7;\n"
		".visible .entry w()\n{\n\t.reg .b32 %r<2>;\n\t.reg .f32 %f<2>;\n\t.reg .f64 %fd<2>;\n"
		"\tst.global.f32 [scale], %f1;\n\tst.global.f64 [big], %fd1;\n\tred.global.add.u32 [count], 1;\n"
		"\tret;\n}\n";
	CHECK(ptx_global_writes(init_ptx, "w", &v, &n, NULL) == 0 && n == 3);
	if (n == 3) {
		CHECK(v[0].has_init && v[0].init == 1.5 && strcmp(v[0].type, "f32") == 0);
		CHECK(v[1].has_init && v[1].init == 2.5 && strcmp(v[1].type, "f64") == 0);
		CHECK(v[2].has_init && v[2].init == 7);
	}
	free(v);
}

TEST(nvrtc)
{
	static const char *const names[] = { "copy", "transpose", "sum", "axpy", "vec4", "via_call", "scale_inplace",
		                              "two_out", "sel" };
	static const char *const opts[] = { "-arch=sm_90", "-lineinfo" };
	nvrtc_out out;
	memset(&out, 0, sizeof out);
	char *err = NULL;
	if (nvrtc_compile("k.cu", kernels, opts, 2, names, 9, &out, &err) != 0 || !out.ptx) {
		fprintf(stderr, "  compile failed: %s\n", err ? err : "no PTX");
		CHECK(0);
		free(err);
		nvrtc_out_free(&out);
		return;
	}
	/* the pointer parameters' bits (a scalar's bit says nothing) */
	CHECK((reads_of(out.ptx, "copy") & 3) == 1);           /* in */
	CHECK((reads_of(out.ptx, "transpose") & 3) == 1);      /* in; out only written */
	CHECK((reads_of(out.ptx, "sum") & 3) == 3);            /* atomicAdd reads out */
	CHECK((reads_of(out.ptx, "axpy") & 6) == 6);           /* x and y */
	CHECK((reads_of(out.ptx, "vec4") & 3) == 1);
	CHECK((reads_of(out.ptx, "via_call") & 3) == 3);       /* out passed to a call */
	CHECK((reads_of(out.ptx, "scale_inplace") & 1) == 1);  /* x read and written */
	CHECK((reads_of(out.ptx, "two_out") & 7) == 1);        /* lo and hi only written */
	CHECK((reads_of(out.ptx, "sel") & 3) == 3);            /* out read when pick is 0 */
	CHECK((writes_of(out.ptx, "copy") & 3) == 2);          /* out, never in */
	CHECK((writes_of(out.ptx, "transpose") & 3) == 2);
	CHECK((writes_of(out.ptx, "sum") & 3) == 2);           /* atomicAdd writes out */
	CHECK((writes_of(out.ptx, "axpy") & 6) == 4);          /* y, not x */
	CHECK((writes_of(out.ptx, "via_call") & 3) == 2);      /* out passed to a call; in[i] a value */
	CHECK((writes_of(out.ptx, "scale_inplace") & 1) == 1);
	CHECK((writes_of(out.ptx, "two_out") & 7) == 6);       /* lo and hi */
	int ld = 0, st = 0;
	widths_of(out.ptx, "copy", &ld, &st);
	CHECK(ld == 4 && st == 4);
	widths_of(out.ptx, "vec4", &ld, &st);
	CHECK(ld == 16 && st == 16);
	nvrtc_out_free(&out);
}

/* The bytes the module's variables declare: four u32, 4096 bytes, a u32
 * with a value, a u64 (strings left out); a hoard past 4 GiB counted whole;
 * no PTX: -1 */
TEST(global_bytes)
{
	uint64_t b = 1;
	CHECK(ptx_global_bytes(state_ptx, &b) == 0 && b == 4 + 4 + 4096 + 4 + 4 + 8);
	static const char hoard_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
		".global .align 4 .b8 stash[20971520000];\n.global .align 4 .u32 n;\n";
	CHECK(ptx_global_bytes(hoard_ptx, &b) == 0 && b == 20971520000ull + 4);
	CHECK(ptx_global_bytes(NULL, &b) == -1 && b == 0);
}

int main(void)
{
	RUN(written);
	RUN(writes);
	RUN(widths);
	RUN(globals);
	RUN(global_bytes);
	char *err = NULL;
	if (nvrtc_load(&err) != 0) {
		printf("ptxread: skipped the NVRTC tests: %s\n", err);
		free(err);
	} else {
		RUN(nvrtc);
	}
	return test_report("ptxread");
}
