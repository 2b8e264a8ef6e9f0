/* gpufill.c: random inputs written on the GPU. The random stream of
 * src/check/buffer.c is counter based (element i of seed s depends on s
 * and i only), so a kernel writes the very bits the host copy holds, and a
 * new random input needs no upload. The kernels are PTX written here, old
 * enough for every driver cuplay supports; the driver JIT-compiles them
 * for the device once per worker. */
#include "gpufill.h"

#include "buffer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Thread t of the grid writes elements t, t + threads, ... (64-bit
 * indices, any n): r = mix64(seed + (i + 1) * 0x9e3779b97f4a7c15), then
 * STORE converts r as buffer.c does for the type and writes element i of
 * dst (%rd1); %rd8, %rd9, %r5, %f1, %fd1 and %h1 are its scratch. */
#define FILL_ENTRY(name, store)                                                                   \
	".visible .entry cuplay_fill_" name "(.param .u64 dst, .param .u64 n, .param .u64 seed)\n{\n"   \
	"\t.reg .pred %p<2>;\n\t.reg .b16 %h<2>;\n\t.reg .b32 %r<8>;\n\t.reg .f32 %f<2>;\n"           \
	"\t.reg .f64 %fd<2>;\n\t.reg .b64 %rd<12>;\n"                                                 \
	"\tld.param.u64 %rd1, [dst];\n\tld.param.u64 %rd2, [n];\n\tld.param.u64 %rd3, [seed];\n"     \
	"\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %ntid.x;\n\tmov.u32 %r3, %tid.x;\n"                \
	"\tmov.u32 %r4, %nctaid.x;\n"                                                                 \
	"\tmul.wide.u32 %rd4, %r1, %r2;\n\tcvt.u64.u32 %rd5, %r3;\n\tadd.s64 %rd4, %rd4, %rd5;\n"    \
	"\tmul.wide.u32 %rd5, %r4, %r2;\n"                                                            \
	"\tsetp.ge.u64 %p1, %rd4, %rd2;\n\t@%p1 bra FILL_DONE_" name ";\n"                            \
	"FILL_LOOP_" name ":\n"                                                                       \
	"\tadd.s64 %rd6, %rd4, 1;\n\tmul.lo.u64 %rd6, %rd6, 0x9E3779B97F4A7C15;\n"                   \
	"\tadd.s64 %rd6, %rd6, %rd3;\n"                                                               \
	"\tshr.u64 %rd7, %rd6, 30;\n\txor.b64 %rd6, %rd6, %rd7;\n"                                    \
	"\tmul.lo.u64 %rd6, %rd6, 0xBF58476D1CE4E5B9;\n"                                              \
	"\tshr.u64 %rd7, %rd6, 27;\n\txor.b64 %rd6, %rd6, %rd7;\n"                                    \
	"\tmul.lo.u64 %rd6, %rd6, 0x94D049BB133111EB;\n"                                              \
	"\tshr.u64 %rd7, %rd6, 31;\n\txor.b64 %rd6, %rd6, %rd7;\n"                                    \
	store                                                                                         \
	"\tadd.s64 %rd4, %rd4, %rd5;\n\tsetp.lt.u64 %p1, %rd4, %rd2;\n\t@%p1 bra FILL_LOOP_" name ";\n" \
	"FILL_DONE_" name ":\n\tret;\n}\n"

/* &dst[i] in %rd9 for elements of 2^shift bytes */
#define FILL_ADDR(shift) "\tshl.b64 %rd9, %rd4, " #shift ";\n\tadd.s64 %rd9, %rd1, %rd9;\n"

/* The conversions are exact: a float of (r >> 40) * 2^-23 - 1 has 24
 * significant bits at most (likewise double with 53, half with 11 and
 * bfloat16 with 8), so the explicit .rn operations (never contracted into
 * an fma) give what the host's double arithmetic gives, and a bfloat16
 * that is exact is the top half of its float. */
const char fill_ptx[] =
	".version 6.0\n.target sm_50\n.address_size 64\n"
	/* FP8: (r >> 59) / 16 - 1 in e4m3 and (r >> 60) / 8 - 1 in e5m2, looked
	 * up (what buffer.c's float_to_e4m3 and float_to_e5m2 give; test_fill
	 * holds the two to the same bytes): no FP8 instruction before sm_89 */
	".const .align 1 .b8 cuplay_e4m3[32] = {184, 183, 182, 181, 180, 179, 178, 177, 176, 174, 172, 170, 168, 164, 160, 152, 0, 24, 32, 36, 40, 42, 44, 46, 48, 49, 50, 51, 52, 53, 54, 55};\n"
	".const .align 1 .b8 cuplay_e5m2[16] = {188, 187, 186, 185, 184, 182, 180, 176, 0, 48, 52, 54, 56, 57, 58, 59};\n"
	FILL_ENTRY("f32",
		"\tshr.u64 %rd8, %rd6, 40;\n\tcvt.rn.f32.u64 %f1, %rd8;\n"
		"\tmul.rn.f32 %f1, %f1, 0f34000000;\n\tsub.rn.f32 %f1, %f1, 0f3F800000;\n"
		FILL_ADDR(2) "\tst.global.f32 [%rd9], %f1;\n")
	FILL_ENTRY("f64",
		"\tshr.u64 %rd8, %rd6, 11;\n\tcvt.rn.f64.u64 %fd1, %rd8;\n"
		"\tmul.rn.f64 %fd1, %fd1, 0d3CB0000000000000;\n\tsub.rn.f64 %fd1, %fd1, 0d3FF0000000000000;\n"
		FILL_ADDR(3) "\tst.global.f64 [%rd9], %fd1;\n")
	FILL_ENTRY("b32", /* int, unsigned: the top 32 bits */
		"\tshr.u64 %rd8, %rd6, 32;\n\tcvt.u32.u64 %r5, %rd8;\n"
		FILL_ADDR(2) "\tst.global.u32 [%rd9], %r5;\n")
	FILL_ENTRY("s64", /* long: the top 32 bits as an int, sign-extended */
		"\tshr.u64 %rd8, %rd6, 32;\n\tcvt.u32.u64 %r5, %rd8;\n\tcvt.s64.s32 %rd8, %r5;\n"
		FILL_ADDR(3) "\tst.global.u64 [%rd9], %rd8;\n")
	FILL_ENTRY("u64", /* the top 32 bits, zero-extended */
		"\tshr.u64 %rd8, %rd6, 32;\n"
		FILL_ADDR(3) "\tst.global.u64 [%rd9], %rd8;\n")
	FILL_ENTRY("b16", /* 16-bit integers: the top 16 bits */
		"\tshr.u64 %rd8, %rd6, 48;\n\tcvt.u16.u64 %h1, %rd8;\n"
		FILL_ADDR(1) "\tst.global.u16 [%rd9], %h1;\n")
	FILL_ENTRY("b8", /* 8-bit integers: the top 8 bits */
		"\tshr.u64 %rd8, %rd6, 56;\n\tcvt.u16.u64 %h1, %rd8;\n"
		"\tadd.s64 %rd9, %rd1, %rd4;\n\tst.global.u8 [%rd9], %h1;\n")
	FILL_ENTRY("f16",
		"\tshr.u64 %rd8, %rd6, 53;\n\tcvt.rn.f32.u64 %f1, %rd8;\n"
		"\tmul.rn.f32 %f1, %f1, 0f3A800000;\n\tsub.rn.f32 %f1, %f1, 0f3F800000;\n"
		"\tcvt.rn.f16.f32 %h1, %f1;\n"
		FILL_ADDR(1) "\tst.global.b16 [%rd9], %h1;\n")
	FILL_ENTRY("bf16",
		"\tshr.u64 %rd8, %rd6, 56;\n\tcvt.rn.f32.u64 %f1, %rd8;\n"
		"\tmul.rn.f32 %f1, %f1, 0f3C000000;\n\tsub.rn.f32 %f1, %f1, 0f3F800000;\n"
		"\tmov.b32 %r5, %f1;\n\tshr.u32 %r5, %r5, 16;\n\tcvt.u16.u32 %h1, %r5;\n"
		FILL_ADDR(1) "\tst.global.b16 [%rd9], %h1;\n")
	FILL_ENTRY("e4m3",
		"\tshr.u64 %rd8, %rd6, 59;\n\tmov.u64 %rd10, cuplay_e4m3;\n\tadd.s64 %rd10, %rd10, %rd8;\n"
		"\tld.const.u8 %h1, [%rd10];\n\tadd.s64 %rd9, %rd1, %rd4;\n\tst.global.u8 [%rd9], %h1;\n")
	FILL_ENTRY("e5m2",
		"\tshr.u64 %rd8, %rd6, 60;\n\tmov.u64 %rd10, cuplay_e5m2;\n\tadd.s64 %rd10, %rd10, %rd8;\n"
		"\tld.const.u8 %h1, [%rd10];\n\tadd.s64 %rd9, %rd1, %rd4;\n\tst.global.u8 [%rd9], %h1;\n");

/* The kernels, in the order of fill_names. */
enum { FK_F32, FK_F64, FK_B32, FK_S64, FK_U64, FK_B16, FK_B8, FK_F16, FK_BF16, FK_E4M3, FK_E5M2 };
static const char *const fill_names[FILL_KERNELS] = {
	"cuplay_fill_f32", "cuplay_fill_f64", "cuplay_fill_b32", "cuplay_fill_s64", "cuplay_fill_u64",
	"cuplay_fill_b16", "cuplay_fill_b8", "cuplay_fill_f16", "cuplay_fill_bf16", "cuplay_fill_e4m3",
	"cuplay_fill_e5m2",
};
_Static_assert(FK_E5M2 + 1 == FILL_KERNELS, "one name a kernel");

int fill_kernel_of(dtype t)
{
	switch (dtype_scalar(t)) {
	case DT_FLOAT: return FK_F32;
	case DT_DOUBLE: return FK_F64;
	case DT_INT: case DT_UNSIGNED: return FK_B32;
	case DT_LONG: return FK_S64;
	case DT_U64: return FK_U64;
	case DT_I16: case DT_U16: return FK_B16;
	case DT_I8: case DT_U8: return FK_B8;
	case DT_HALF: return FK_F16;
	case DT_BF16: return FK_BF16;
	case DT_E4M3: return FK_E4M3;
	case DT_E5M2: return FK_E5M2;
	default: return -1;
	}
}

const char *fill_kernel_name(int k)
{
	return k >= 0 && k < FILL_KERNELS ? fill_names[k] : NULL;
}

/* Whether the host asked for the way before: CUPLAY_FILL_HOST=1, or
 * CUPLAY_PAGEABLE=1 (every fast path of the data off). */
static int fill_off_by_env(void)
{
	const char *names[] = { "CUPLAY_FILL_HOST", "CUPLAY_PAGEABLE" };
	for (size_t i = 0; i < ARRAY_LEN(names); i++) {
		const char *v = getenv(names[i]);
		if (v && v[0] && strcmp(v, "0") != 0)
			return 1;
	}
	return 0;
}

void fill_load(gpufill *f)
{
	int state = -1;
	if (fill_off_by_env()) {
		snprintf(f->why, sizeof f->why, "off (CUPLAY_FILL_HOST or CUPLAY_PAGEABLE)");
	} else {
		CUresult e = cu.ModuleLoadData(&f->mod, fill_ptx);
		const char *call = "cuModuleLoadData";
		for (int k = 0; e == CUDA_SUCCESS && k < FILL_KERNELS; k++)
			if ((e = cu.ModuleGetFunction(&f->fn[k], f->mod, fill_names[k])) != CUDA_SUCCESS) {
				call = "cuModuleGetFunction";
				(void)cu.ModuleUnload(f->mod); /* the error said is the lookup's */
			}
		if (e == CUDA_SUCCESS)
			state = 1;
		else
			snprintf(f->why, sizeof f->why, "%s failed: %s", call, cu_errstr(e));
	}
	if (state == 1)
		w_trace(NULL, "start-up: the GPU fill kernels loaded");
	else
		w_trace(NULL, "start-up: no GPU fill (%s): random inputs go up from their host copies", f->why);
	pthread_mutex_lock(&f->mu);
	f->state = state;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
}

void fill_none(gpufill *f)
{
	pthread_mutex_lock(&f->mu);
	f->state = -1;
	snprintf(f->why, sizeof f->why, "no context");
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
}

void fill_init(gpufill *f, int sm_count)
{
	memset(f, 0, sizeof *f);
	f->sm_count = sm_count;
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
}

void fill_free(gpufill *f)
{
	if (f->state == 1)
		(void)cu.ModuleUnload(f->mod); /* at the worker's end: nothing left to tell */
	f->state = 0;
	pthread_cond_destroy(&f->cv);
	pthread_mutex_destroy(&f->mu);
}

/* The kernels once fill_load is done with them; 0 when they are there. */
static int fill_wait(gpufill *f)
{
	pthread_mutex_lock(&f->mu);
	while (f->state == 0)
		pthread_cond_wait(&f->cv, &f->mu);
	int ok = f->state == 1;
	pthread_mutex_unlock(&f->mu);
	return ok ? 0 : -1;
}

int fill_random(wrun *r, gpufill *f, int i, CUdeviceptr dst)
{
	const plan_buf *pb = &r->p->bufs[i];
	int k = fill_kernel_of(pb->type);
	if (pb->init != INIT_RANDOM || pb->managed || pb->global || k < 0)
		return 1;
	if (fill_wait(f) != 0)
		return 1;
	unsigned long long n = (unsigned long long)pb->count * (unsigned long long)dtype_lanes(pb->type);
	unsigned long long seed = buffer_seed(r->p->seed, pb->name);
	if (n == 0)
		return 0;
	unsigned long long want = (n + 255) / 256;
	unsigned long long most = f->sm_count > 0 ? (unsigned long long)f->sm_count * 16 : 1024;
	unsigned int blocks = (unsigned int)(want < most ? want : most);
	void *args[] = { &dst, &n, &seed };
	char what[128];
	snprintf(what, sizeof what, "the GPU fill of buffer '%s'", pb->name);
	CUresult e = cu.LaunchKernel(f->fn[k], blocks, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
	if (e != CUDA_SUCCESS && !cu_is_sticky(e)) { /* nothing was written: the upload does it */
		w_trace(r, "%s was not launched (%s): uploaded instead", what, cu_errstr(e));
		return 1;
	}
	/* waited for here, so that a fault is this fill's and not the next kernel's */
	if (w_ck(r, e, what) != 0 || w_ck(r, cu.StreamSynchronize(NULL), what) != 0)
		return -1;
	w_trace(r, "filled '%s' on the GPU (%.1f MiB)", pb->name,
	        (double)(pb->count * dtype_size(pb->type)) / (double)MiB);
	return 0;
}
