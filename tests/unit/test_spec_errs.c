/* test_spec_errs.c: a kernel file's header errors, all at once, each at its
 * line, capped; a kernel's parameters and the buffers checked by name before
 * anything compiles; the nearest name a "did you mean" offers. */
#include "spec.h"
#include "test.h"
#include "util.h"

#include <stdlib.h>

#define PATH "kernels_src/t.cu"

/* The error of parsing src, or NULL when it parses (the spec is freed). */
static char *parse_err(const char *src)
{
	spec s;
	char *err = NULL;
	if (spec_parse(PATH, src, &s, &err) == 0) {
		spec_free(&s);
		return NULL;
	}
	return err;
}

#define EXPECT_ERR(src, msg) do { \
	char *e_ = parse_err(src); \
	CHECK_STREQ(e_, (msg)); \
	free(e_); \
} while (0)

#define EXPECT_OK(src) do { \
	char *e_ = parse_err(src); \
	CHECK_STREQ(e_ ? e_ : "ok", "ok"); \
	free(e_); \
} while (0)

#define KCOPY "__global__ void k(int n, const float *x, float *y) {}\n"

/* three independent mistakes: each said, in the order of their lines */
TEST(every_error_at_once)
{
	EXPECT_ERR("//@ param n = 1024\n"                 /* 1 */
	           "//@ bufer q float[n] random\n"         /* 2 */
	           "//@ buffer x float[n] random\n"        /* 3 */
	           "//@ buffer y float[n] output\n"        /* 4 */
	           "//@ buffer zz float[n] random\n"       /* 5 */
	           "//@ define BLOCK = 256\n"              /* 6 */
	           "//@ grid cdiv(n, BLOCK_SIZE)\n"        /* 7 */
	           "//@ block BLOCK\n" KCOPY,              /* 8, 9 */
	           PATH ":2:5: unknown directive 'bufer' (known: define, param, buffer, global, grid, block, cluster, "
	           "smem, bytes, flops, check, link, include, kernel, streams, arch, sequence, tensormap); did you "
	           "mean 'buffer'?\n"
	           PATH ":5:12: buffer 'zz' is a parameter of no kernel: a buffer is passed to the kernel parameters "
	           "of its name (rename it, or remove its line)\n"
	           PATH ":7:18: unknown name 'BLOCK_SIZE' in grid (defines and params: n, BLOCK); did you mean "
	           "'BLOCK'?");
	/* two line errors and one of the whole file, sorted by line */
	EXPECT_ERR("//@ param n = 10\n//@ buffer x float[n] random\n//@ buffer y float[n] output\n"
	           "//@ grid 1\n//@ block 1\n//@ smem\n//@ check y = copy(x) tol -1\n"
	           "//@ bytes n * W\n" KCOPY,
	           PATH ":6:9: expected an expression after 'smem'\n"
	           PATH ":7:27: expected a positive number after 'tol'\n"
	           PATH ":8:15: unknown name 'W' in bytes (defines and params: n); did you mean 'n'?");
}

/* what a failed line would have given is not an error of its own */
TEST(no_error_follows_from_another)
{
	/* the buffer x of a misspelt line: no "parameter 'x' has no buffer" */
	EXPECT_ERR("//@ param n = 10\n//@ bufer x float[n]\n//@ buffer y float[n] output\n//@ grid 1\n//@ block 1\n"
	           KCOPY,
	           PATH ":2:5: unknown directive 'bufer' (known: define, param, buffer, global, grid, block, cluster, "
	           "smem, bytes, flops, check, link, include, kernel, streams, arch, sequence, tensormap); did you "
	           "mean 'buffer'?");
	/* a misspelt grid line: no "kernel 'k' has no grid" */
	EXPECT_ERR("//@ param n = 10\n//@ buffer x float[n]\n//@ buffer y float[n] output\n//@ gird 1\n//@ block 1\n"
	           KCOPY,
	           PATH ":4:5: unknown directive 'gird' (known: define, param, buffer, global, grid, block, cluster, "
	           "smem, bytes, flops, check, link, include, kernel, streams, arch, sequence, tensormap); did you "
	           "mean 'grid'?");
	/* a param line that fails: its name is not unknown elsewhere */
	EXPECT_ERR("//@ param n = \n//@ buffer x float[n]\n//@ buffer y float[n] output\n//@ grid n\n//@ block 1\n"
	           KCOPY,
	           PATH ":1:14: expected an expression after '='");
	/* one missing buffer named in a check and by a parameter: said once */
	EXPECT_ERR("//@ param n = 10\n//@ buffer x float[n]\n//@ buffer yy float[n] output\n//@ grid 1\n//@ block 1\n"
	           "//@ check y = copy(x)\n" KCOPY,
	           PATH ":6:11: unknown buffer 'y' in check (buffers: x, yy); did you mean 'yy'?");
	/* an unknown name used twice: said at its first use */
	EXPECT_ERR("//@ param n = 10\n//@ buffer x float[n]\n//@ buffer y float[n] output\n//@ grid cdiv(n, B)\n"
	           "//@ block B\n" KCOPY,
	           PATH ":4:18: unknown name 'B' in grid (defines and params: n); did you mean 'n'?");
}

/* at most SPEC_MAX_ERRORS (10) said; the line where the rest start */
TEST(errors_capped)
{
	sbuf src = {0}, want = {0};
	for (int i = 1; i <= 14; i++) {
		sb_printf(&src, "//@ bogus%d\n", i);
		if (i <= 10)
			sb_printf(&want, PATH ":%d:5: unknown directive 'bogus%d' (known: define, param, buffer, global, "
			          "grid, block, cluster, smem, bytes, flops, check, link, include, kernel, streams, arch, "
			          "sequence, tensormap)\n", i, i);
	}
	sb_puts(&want, PATH ":11: more errors from this line on: too many (10 shown), the rest of the header not read");
	EXPECT_ERR(src.s, want.s);
	sb_free(&src);
	sb_free(&want);
	/* under the cap, every one */
	char *e = parse_err("//@ bogus1\n//@ bogus2\n//@ bogus3\n");
	int lines = 0;
	for (const char *p = e; p && *p; p++)
		lines += *p == '\n';
	CHECK(e && lines == 2 && strstr(e, PATH ":3:5: unknown directive 'bogus3'"));
	free(e);
}

/* a kernel's parameters bind by name, checked when the file is read */
TEST(parameters_before_compile)
{
	/* a buffer named yy for a parameter y: at the parameter, with the
	 * likely name, and not again as a buffer no kernel takes */
	EXPECT_ERR("//@ param n = 10\n//@ buffer x float[n]\n//@ buffer yy float[n] output\n//@ grid 1\n//@ block 1\n"
	           KCOPY,
	           PATH ":6:49: kernel 'k' parameter 'y' has no buffer: declare '//@ buffer y TYPE[COUNT]' (buffers: "
	           "x, yy); did you mean 'yy'?");
	/* a number without a param */
	EXPECT_ERR("//@ param N = 10\n//@ buffer x float[N]\n//@ buffer y float[N] output\n//@ grid 1\n//@ block 1\n"
	           KCOPY,
	           PATH ":6:23: kernel 'k' parameter 'n' has no '//@ param': declare '//@ param n = VALUE' (params: N); "
	           "did you mean 'N'?");
	/* a buffer that no kernel takes */
	EXPECT_ERR("//@ param n = 10\n//@ buffer x float[n]\n//@ buffer y float[n] output\n//@ buffer tmp float[n]\n"
	           "//@ grid 1\n//@ block 1\n" KCOPY,
	           PATH ":4:12: buffer 'tmp' is a parameter of no kernel: a buffer is passed to the kernel parameters "
	           "of its name (rename it, or remove its line)");
	/* one missing name in two kernels: said once */
	EXPECT_ERR("//@ param n = 10\n//@ buffer x float[n] output\n//@ grid 1\n//@ block 1\n"
	           "__global__ void a(int n, float *x, float *w) {}\n__global__ void b(int n, float *w) {}\n",
	           PATH ":5:43: kernel 'a' parameter 'w' has no buffer: declare '//@ buffer w TYPE[COUNT]' (buffers: "
	           "x); did you mean 'x'?");
	/* what is not an error: a buffer a tensormap or a check takes, a
	 * global, a skipped kernel's or a template's parameters */
	EXPECT_OK("//@ param n = 4096\n//@ buffer x float[n] random\n//@ buffer y int[n] output\n"
	          "//@ tensormap tm = x[64, 64] box 16, 16\n//@ grid 1\n//@ block 32\n"
	          "__global__ void k(int n, const __grid_constant__ CUtensorMap tm, int *y) {}\n");
	EXPECT_OK("//@ param n = 10\n//@ buffer x float[n]\n//@ buffer y float[n] output\n//@ buffer ref float[n]\n"
	          "//@ global g float[4] zero\n//@ grid 1\n//@ block 1\n//@ check y = copy(ref)\n" KCOPY);
	EXPECT_OK("//@ param n = 10\n//@ buffer x float[n]\n//@ buffer y float[n] output\n//@ grid 1\n//@ block 1\n"
	          "//@ kernel other skip\n" KCOPY "__global__ void other(float *q, int m) {}\n"
	          "template <int B> __global__ void t(float *r) {}\n");
}

/* the nearest name: a whole '_' part of the other counts as near */
TEST(nearest)
{
	static const char *const names[] = { "n", "BLOCK", "TILE_SIZE", "transpose_tiled" };
	CHECK_STREQ(nearest_name("BLOCK_SIZE", names, 4), "BLOCK");
	CHECK_STREQ(nearest_name("block_size", names, 4), "BLOCK");
	CHECK_STREQ(nearest_name("TILE", names, 4), "TILE_SIZE");
	CHECK_STREQ(nearest_name("SIZE", names, 4), "TILE_SIZE");
	CHECK_STREQ(nearest_name("N", names, 4), "n");
	CHECK_STREQ(nearest_name("transpose_t", names, 4), "transpose_tiled");
	/* not a whole part, or too short a part: no suggestion */
	CHECK(nearest_name("OCK_SIZE", names, 4) == NULL);
	CHECK(nearest_name("BLOCKS_PER_SM", names, 4) == NULL);
	CHECK(nearest_name("XY_BLOCK_Z", names, 4) == NULL);
	/* one letter: of the names as near, the one it starts */
	static const char *const xyy[] = { "x", "yy" };
	CHECK_STREQ(nearest_name("y", xyy, 2), "yy");
	static const char *const two[] = { "in", "out" };
	CHECK(nearest_name("in_tile", two, 2) == NULL);
}

int main(void)
{
	RUN(every_error_at_once);
	RUN(no_error_follows_from_another);
	RUN(errors_capped);
	RUN(parameters_before_compile);
	RUN(nearest);
	return test_report("spec_errs");
}
