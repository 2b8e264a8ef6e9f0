/* test_spec.c: the //@ header parser and kernel discovery. */
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

#define EXPECT_SPEC_ERR(src, msg) do { \
	char *e_ = parse_err(src); \
	CHECK_STREQ(e_, (msg)); \
	free(e_); \
} while (0)

#define EXPECT_SPEC_OK(src) do { \
	char *e_ = parse_err(src); \
	CHECK_STREQ(e_ ? e_ : "ok", "ok"); \
	free(e_); \
} while (0)

static int starts_with(const char *s, const char *p)
{
	return s && strncmp(s, p, strlen(p)) == 0;
}

static int ends_with(const char *s, const char *p)
{
	size_t n = s ? strlen(s) : 0, m = strlen(p);
	return s && n >= m && strcmp(s + n - m, p) == 0;
}

/* ---- a whole file ---- */

static const char transpose_src[] =
	"// transpose.cu: matrix transpose, naive vs shared tile\n"            /* 1 */
	"#include \"common.cuh\"\n"                                            /* 2 */
	"//@ define TILE_SIZE = 32      // compile time: -DTILE_SIZE=32\n"     /* 3 */
	"//@ define PAD = 1\n"                                                 /* 4 */
	"//@ param  N = 4096            // run time\n"                         /* 5 */
	"//@ param alpha = -2.5\n"                                             /* 6 */
	"//@ buffer in  float[N*N] random\n"                                   /* 7 */
	"//@ buffer out float[N*N] poison output\n"                            /* 8 */
	"//@ grid  cdiv(N, TILE_SIZE), cdiv(N, TILE_SIZE)\n"                   /* 9 */
	"//@ block TILE_SIZE, TILE_SIZE\n"                                     /* 10 */
	"//@ bytes 2 * N * N * 4        // counted for GB/s\n"                 /* 11 */
	"//@ check out = transpose(in, N, N)\n"                                /* 12 */
	"//@ kernel transpose_naive block TILE_SIZE, 8\n"                      /* 13 */
	"\n"                                                                   /* 14 */
	"__global__ void transpose_naive(const float *in, float *out, int N)\n" /* 15 */
	"{\n"                                                                  /* 16 */
	"}\n"                                                                  /* 17 */
	"__global__ void transpose_tiled(const float *in, float *out, int N) {}\n"; /* 18 */

TEST(whole_file)
{
	spec s;
	char *err = NULL;
	CHECK(spec_parse(PATH, transpose_src, &s, &err) == 0);
	CHECK(err == NULL);
	CHECK_STREQ(s.path, PATH);
	CHECK_STREQ(s.src, transpose_src);
	CHECK(s.src != transpose_src);
	CHECK_STREQ(s.summary, "transpose.cu: matrix transpose, naive vs shared tile");
	CHECK(s.nincludes == 1);
	CHECK_STREQ(s.includes[0], "common.cuh");
	CHECK(s.nlinks == 0);

	CHECK(s.nvars == 4);
	CHECK_STREQ(s.vars[0].name, "TILE_SIZE");
	CHECK(s.vars[0].is_define);
	CHECK_STREQ(s.vars[0].value.text, "32"); /* comment and blanks gone */
	CHECK(s.vars[0].line == 3 && s.vars[0].col == 12);
	CHECK(s.vars[0].value.line == 3 && s.vars[0].value.col == 24);
	CHECK_STREQ(s.vars[2].name, "N");
	CHECK(!s.vars[2].is_define);
	CHECK_STREQ(s.vars[2].value.text, "4096");
	CHECK(s.vars[2].col == 12);
	CHECK_STREQ(s.vars[3].value.text, "-2.5");
	CHECK(spec_var_find(&s, "PAD") == &s.vars[1]);
	CHECK(spec_var_find(&s, "pad") == NULL);

	CHECK(s.nbufs == 2);
	CHECK_STREQ(s.bufs[0].name, "in");
	CHECK(s.bufs[0].type == DT_FLOAT);
	CHECK_STREQ(s.bufs[0].count.text, "N*N");
	CHECK(s.bufs[0].count.line == 7 && s.bufs[0].count.col == 22);
	CHECK(s.bufs[0].init == INIT_RANDOM && !s.bufs[0].output && !s.bufs[0].managed);
	CHECK(s.bufs[0].line == 7 && s.bufs[0].col == 12);
	CHECK(s.bufs[1].init == INIT_POISON && s.bufs[1].output);
	CHECK(spec_buffer_find(&s, "out") == 1);
	CHECK(spec_buffer_find(&s, "nope") == -1);

	const spec_launch *b = &s.base;
	CHECK(b->ngrid == 2 && b->nblock == 2);
	CHECK_STREQ(b->grid[0].text, "cdiv(N, TILE_SIZE)");
	CHECK(b->grid[0].line == 9 && b->grid[0].col == 11);
	CHECK_STREQ(b->grid[1].text, "cdiv(N, TILE_SIZE)");
	CHECK(b->grid[1].col == 31);
	CHECK_STREQ(b->block[1].text, "TILE_SIZE");
	CHECK(b->block[1].col == 22);
	CHECK_STREQ(b->bytes.text, "2 * N * N * 4");
	CHECK(b->smem.text == NULL && b->flops.text == NULL);
	CHECK(b->nchecks == 1);
	CHECK_STREQ(b->checks[0].out, "out");
	CHECK_STREQ(b->checks[0].ref, "transpose");
	CHECK(!b->checks[0].is_kernel && !b->checks[0].none);
	CHECK(b->checks[0].nargs == 3);
	CHECK_STREQ(b->checks[0].args[0].text, "in");
	CHECK_STREQ(b->checks[0].args[2].text, "N");
	CHECK(b->checks[0].args[1].col == 31);
	CHECK(b->checks[0].tol == 0);
	CHECK(b->checks[0].line == 12 && b->checks[0].col == 11);

	CHECK(s.nkernels == 2);
	CHECK(spec_kernel_find(&s, "transpose_tiled") == 1);
	CHECK(spec_kernel_find(&s, "transpose") == -1);
	const spec_kernel *k = &s.kernels[0];
	CHECK_STREQ(k->name, "transpose_naive");
	CHECK(k->line == 15 && k->col == 17);
	CHECK(k->nparams == 3);
	CHECK(k->over.nblock == 2 && k->over.ngrid == 0 && k->over.nchecks == -1);
	CHECK_STREQ(k->over.block[1].text, "8");
	spec_free(&s);
	CHECK(s.nkernels == 0 && s.path == NULL);
}

/* ---- kernel discovery ---- */

static const char tricky_src[] =
	"// tricky.cu: discovery\n"                                                   /* 1 */
	"#include \"helpers.cuh\"\n"                                                  /* 2 */
	"#include <cuda_fp16.h>\n"                                                    /* 3 */
	"#define KERNEL(n) __global__ void n(int x) {} \\\n"                          /* 4 */
	"    __global__ void continued(int y) {}\n"                                   /* 5 */
	"/* __global__ void in_block_comment(int a) {} */\n"                          /* 6 */
	"// __global__ void in_line_comment(int a) {}\n"                              /* 7 */
	"static const char *msg = \"__global__ void in_string(int a) {}\";\n"         /* 8 */
	"static const char q = '\"'; static const int big = 1'000'000;\n"             /* 9 */
	"__global__ void proto(float *x);\n"                                          /* 10 */
	"template <typename T, int B = (3 > 2)>\n"                                    /* 11 */
	"__global__ void tmpl(T *x, int n) {}\n"                                      /* 12 */
	"extern \"C\" __global__ void __launch_bounds__(256) lb_after(float *x)\n"    /* 13 */
	"{\n"                                                                         /* 14 */
	"}\n"                                                                         /* 15 */
	"static __global__ __launch_bounds__(128, 2) void lb_before(\n"               /* 16 */
	"    const float* __restrict__ in,\n"                                         /* 17 */
	"    float *out, int n) { }\n"                                                /* 18 */
	"template <int N> __device__ int helper(int v) { return v * N; }\n"           /* 19 */
	"__global__ void after_template_helper(void) {}\n"                            /* 20 */
	"__global__ void proto(float *x) { }\n"                                       /* 21 */
	"__global__ void lb_after(double *y) { }\n"                                   /* 22 */
	"const char *raw = R\"x(__global__ void in_raw(int a) {} )\" )x\";\n"         /* 23 */
	"#include \"helpers.cuh\"\n"                                                  /* 24 */
	"#include \"more/other.h\" // second\n";                                      /* 25 */

TEST(discovery)
{
	spec s;
	char *err = NULL;
	/* grid, block and the parameters' names so that the file is complete */
	sbuf src = {0};
	sb_puts(&src, tricky_src);
	sb_puts(&src, "//@ grid 1\n//@ block 1\n//@ param n = 1\n//@ buffer x float[1]\n//@ buffer in float[1]\n"
	        "//@ buffer out float[1]\n");
	CHECK(spec_parse(PATH, src.s, &s, &err) == 0);
	sb_free(&src);
	if (err)
		fprintf(stderr, "  %s\n", err);
	CHECK(s.nkernels == 5);
	if (s.nkernels != 5) {
		spec_free(&s);
		return;
	}
	CHECK_STREQ(s.kernels[0].name, "tmpl");
	CHECK(s.kernels[0].is_template);
	CHECK(s.kernels[0].line == 12 && s.kernels[0].col == 17);
	CHECK(s.kernels[0].nparams == 2);
	CHECK_STREQ(s.kernels[0].params[0].type, "T*");
	CHECK(s.kernels[0].params[0].kind == ARG_PTR && !s.kernels[0].params[0].elem_known);

	CHECK_STREQ(s.kernels[1].name, "lb_after");
	CHECK(!s.kernels[1].is_template);
	CHECK(s.kernels[1].line == 13 && s.kernels[1].col == 51);
	CHECK(s.kernels[1].nparams == 1);
	CHECK_STREQ(s.kernels[1].params[0].type, "float*"); /* the first definition wins */

	const spec_kernel *k = &s.kernels[2];
	CHECK_STREQ(k->name, "lb_before");
	CHECK(k->line == 16 && k->col == 50);
	CHECK(k->nparams == 3);
	CHECK_STREQ(k->params[0].type, "const float* __restrict__");
	CHECK_STREQ(k->params[0].name, "in");
	CHECK(k->params[0].line == 17 && k->params[0].col == 31);
	CHECK(k->params[0].kind == ARG_PTR && k->params[0].elem_known && k->params[0].elem == DT_FLOAT);
	CHECK_STREQ(k->params[1].name, "out");
	CHECK(k->params[1].line == 18 && k->params[1].col == 12);
	CHECK_STREQ(k->params[2].type, "int");
	CHECK(k->params[2].line == 18 && k->params[2].col == 21);
	CHECK(k->params[2].kind == ARG_I32);

	CHECK_STREQ(s.kernels[3].name, "after_template_helper");
	CHECK(!s.kernels[3].is_template); /* the template<> belonged to helper */
	CHECK(s.kernels[3].nparams == 0);
	CHECK_STREQ(s.kernels[4].name, "proto"); /* the definition, not the prototype */
	CHECK(s.kernels[4].line == 21);

	CHECK(s.nincludes == 2);
	CHECK_STREQ(s.includes[0], "helpers.cuh");
	CHECK_STREQ(s.includes[1], "more/other.h");
	CHECK_STREQ(s.summary, "tricky.cu: discovery");
	spec_free(&s);
}

TEST(param_kinds)
{
	static const char src[] =
		"//@ grid 1\n//@ block 1\n"
		"__global__ void k(int a, unsigned b, unsigned int c, uint32_t d, int32_t e,\n"
		"  long f, long long g, long int h, int64_t i, const long long int j,\n"
		"  size_t k, std::size_t l, uint64_t m, unsigned long n, unsigned long long o, long unsigned p,\n"
		"  float q, double r, const float s, char t, short u, bool v, float4 w, unsigned char x,\n"
		"  float *A, const double* __restrict__ B, int *C, unsigned* D, long *E, int64_t *F,\n"
		"  float4* G, size_t *H, float **I, float J[], const int & K, int = 3)\n"
		"{ }\n"
		"//@ kernel k skip\n"; /* its parameters are bound nowhere */
	static const struct { const char *type, *name; arg_kind kind; int elem_known; dtype elem; } want[] = {
		{ "int", "a", ARG_I32, 0, 0 },
		{ "unsigned", "b", ARG_U32, 0, 0 },
		{ "unsigned int", "c", ARG_U32, 0, 0 },
		{ "uint32_t", "d", ARG_U32, 0, 0 },
		{ "int32_t", "e", ARG_I32, 0, 0 },
		{ "long", "f", ARG_I64, 0, 0 },
		{ "long long", "g", ARG_I64, 0, 0 },
		{ "long int", "h", ARG_I64, 0, 0 },
		{ "int64_t", "i", ARG_I64, 0, 0 },
		{ "const long long int", "j", ARG_I64, 0, 0 },
		{ "size_t", "k", ARG_U64, 0, 0 },
		{ "std::size_t", "l", ARG_U64, 0, 0 },
		{ "uint64_t", "m", ARG_U64, 0, 0 },
		{ "unsigned long", "n", ARG_U64, 0, 0 },
		{ "unsigned long long", "o", ARG_U64, 0, 0 },
		{ "long unsigned", "p", ARG_U64, 0, 0 },
		{ "float", "q", ARG_F32, 0, 0 },
		{ "double", "r", ARG_F64, 0, 0 },
		{ "const float", "s", ARG_F32, 0, 0 },
		{ "char", "t", ARG_NONE, 0, 0 },
		{ "short", "u", ARG_NONE, 0, 0 },
		{ "bool", "v", ARG_NONE, 0, 0 },
		{ "float4", "w", ARG_NONE, 0, 0 },
		{ "unsigned char", "x", ARG_NONE, 0, 0 },
		{ "float*", "A", ARG_PTR, 1, DT_FLOAT },
		{ "const double* __restrict__", "B", ARG_PTR, 1, DT_DOUBLE },
		{ "int*", "C", ARG_PTR, 1, DT_INT },
		{ "unsigned*", "D", ARG_PTR, 1, DT_UNSIGNED },
		{ "long*", "E", ARG_PTR, 1, DT_LONG },
		{ "int64_t*", "F", ARG_PTR, 1, DT_LONG },
		{ "float4*", "G", ARG_PTR, 1, DT_FLOAT4 },
		{ "size_t*", "H", ARG_PTR, 1, DT_U64 },
		{ "float**", "I", ARG_PTR, 0, 0 },
		{ "float*", "J", ARG_PTR, 1, DT_FLOAT },
		{ "const int&", "K", ARG_NONE, 0, 0 },
		{ "int", "", ARG_I32, 0, 0 }, /* unnamed, with a default */
	};
	spec s;
	char *err = NULL;
	CHECK(spec_parse(PATH, src, &s, &err) == 0);
	CHECK(s.nkernels == 1);
	int n = (int)(sizeof want / sizeof want[0]);
	CHECK(s.nkernels == 1 && s.kernels[0].nparams == n);
	for (int i = 0; s.nkernels == 1 && i < n && i < s.kernels[0].nparams; i++) {
		const kparam *p = &s.kernels[0].params[i];
		CHECK_STREQ(p->type, want[i].type);
		CHECK_STREQ(p->name, want[i].name);
		CHECK(p->kind == want[i].kind);
		CHECK(p->elem_known == want[i].elem_known);
		if (want[i].elem_known)
			CHECK(p->elem == want[i].elem);
		if (p->kind != want[i].kind)
			fprintf(stderr, "  param %d '%s': kind %s, want %s\n", i, p->name,
			        arg_kind_name(p->kind), arg_kind_name(want[i].kind));
	}
	spec_free(&s);
}

TEST(discovery_edges)
{
	spec s;
	char *err = NULL;
	/* CRLF line ends; a //@ line must start its line; no kernels at all is fine */
	CHECK(spec_parse(PATH, "//@ param N = 4\r\nint x = 1; //@ param M = 2\r\n", &s, &err) == 0);
	CHECK(s.nvars == 1 && s.nkernels == 0);
	CHECK_STREQ(s.vars[0].value.text, "4");
	CHECK(s.summary == NULL);
	spec_free(&s);

	CHECK(spec_parse(PATH, "", &s, &err) == 0);
	CHECK(s.nkernels == 0 && s.nvars == 0 && s.base.nchecks == -1);
	spec_free(&s);

	/* indented //@ lines, a bare //@, and a summary after blank comment lines */
	CHECK(spec_parse(PATH, "//\n//@\n   //@ grid 1\n\t//@ block 2\n// the summary \n"
	                 "__global__ void k(void) {}\n", &s, &err) == 0);
	CHECK(s.base.ngrid == 1 && s.base.nblock == 1);
	CHECK(s.base.block[0].col == 12);
	CHECK_STREQ(s.summary, "the summary");
	CHECK(s.nkernels == 1 && s.kernels[0].nparams == 0);
	spec_free(&s);

	/* an unterminated comment hides everything after it; not an error */
	CHECK(spec_parse(PATH, "/* open\n__global__ void k(int n) {}\n", &s, &err) == 0);
	CHECK(s.nkernels == 0);
	spec_free(&s);
	CHECK(err == NULL);
}

/* ---- header errors ---- */

TEST(directive_errors)
{
	EXPECT_SPEC_ERR("//@ defne X = 1\n",
		PATH ":1:5: unknown directive 'defne' (known: define, param, buffer, global, grid, block, cluster, smem, "
		"bytes, flops, check, link, include, kernel, streams, arch, sequence, tensormap); did you mean 'define'?");
	EXPECT_SPEC_ERR("\n//@ frobnicate\n",
		PATH ":2:5: unknown directive 'frobnicate' (known: define, param, buffer, global, grid, block, cluster, smem, "
		"bytes, flops, check, link, include, kernel, streams, arch, sequence, tensormap)");
	EXPECT_SPEC_ERR("//@ 42\n",
		PATH ":1:5: expected a directive after '//@' (known: define, param, buffer, global, grid, block, cluster, smem, "
		"bytes, flops, check, link, include, kernel, streams, arch, sequence, tensormap)");
	EXPECT_SPEC_ERR("//@ Define X = 1\n",
		PATH ":1:5: unknown directive 'Define' (known: define, param, buffer, global, grid, block, cluster, smem, "
		"bytes, flops, check, link, include, kernel, streams, arch, sequence, tensormap); did you mean 'define'?");
}

TEST(var_errors)
{
	EXPECT_SPEC_ERR("//@ param N = 1\n//@ define N = 2\n",
		PATH ":2:12: duplicate name 'N' (already a param at line 1)");
	EXPECT_SPEC_ERR("//@ buffer N float[4]\n//@ param N = 2\n",
		PATH ":2:11: duplicate name 'N' (already a buffer at line 1)");
	EXPECT_SPEC_ERR("//@ define A = 1\n//@ buffer A int[4]\n",
		PATH ":2:12: duplicate name 'A' (already a define at line 1)");
	EXPECT_SPEC_ERR("//@ param N 2\n", PATH ":1:13: expected '=' after param name 'N'");
	EXPECT_SPEC_ERR("//@ param N =\n", PATH ":1:14: expected an expression after '='");
	EXPECT_SPEC_ERR("//@ param N =   // nothing\n", PATH ":1:14: expected an expression after '='");
	EXPECT_SPEC_ERR("//@ param = 3\n", PATH ":1:11: expected a name after 'param'");
	EXPECT_SPEC_ERR("//@ define 3 = 3\n", PATH ":1:12: expected a name after 'define'");
}

TEST(define_clash)
{
	EXPECT_SPEC_ERR("//@ define N = 1024\n__global__ void vadd(float *a, int N) {}\n"
	                "//@ buffer a float[N]\n//@ grid 1\n//@ block 1\n",
		PATH ":1:12: define 'N' is also a parameter of kernel 'vadd': declare it with '//@ param' "
		"(a define becomes a -D macro and would rewrite the parameter)");
	/* the kernels are known before the header is read: a define above or below them */
	EXPECT_SPEC_ERR("__global__ void a(int x) {}\n__global__ void b(float *alpha) {}\n"
	                "//@ grid 1\n//@ block 1\n//@ define alpha = 2\n//@ param x = 1\n",
		PATH ":5:12: define 'alpha' is also a parameter of kernel 'b': declare it with '//@ param' "
		"(a define becomes a -D macro and would rewrite the parameter)");
	EXPECT_SPEC_ERR("//@ define vadd = 1\n__global__ void vadd(float *a) {}\n"
	                "//@ buffer a float[1]\n//@ grid 1\n//@ block 1\n",
		PATH ":1:12: define 'vadd' is also the name of a kernel (a define becomes a -D macro and "
		"would rewrite it)");
	/* a param of the same name is what binds */
	EXPECT_SPEC_OK("//@ param N = 1024\n//@ buffer a float[N]\n//@ grid 1\n//@ block 1\n"
	               "__global__ void vadd(float *a, int N) {}\n");
}

TEST(globals)
{
	spec s;
	char *err = NULL;
	CHECK(spec_parse(PATH,
		"//@ param R = 4\n"
		"//@ global w float[5] {0.5, -1, 2e-3, 4 , 5}\n"
		"//@ global g float value(2)\n"
		"//@ global t int zero output\n"
		"//@ global v half2[R] random\n"
		"//@ global one float{7}\n", &s, &err) == 0);
	CHECK(s.nbufs == 5);
	CHECK(s.bufs[0].global && s.bufs[0].init == INIT_LIST && s.bufs[0].nlist == 5);
	CHECK(s.bufs[0].nlist == 5 && s.bufs[0].list[1] == -1 && s.bufs[0].list[2] == 2e-3 && s.bufs[0].list[4] == 5);
	CHECK(s.bufs[1].global && s.bufs[1].init == INIT_VALUE && s.bufs[1].init_value == 2);
	CHECK_STREQ(s.bufs[1].count.text, "1");
	CHECK(s.bufs[2].global && s.bufs[2].output && s.bufs[2].type == DT_INT);
	CHECK(s.bufs[3].type == DT_HALF2);
	CHECK_STREQ(s.bufs[3].count.text, "R");
	CHECK(s.bufs[4].init == INIT_LIST && s.bufs[4].nlist == 1 && s.bufs[4].list[0] == 7);
	spec_free(&s);
	EXPECT_SPEC_ERR("//@ global w float[2] {1, 2\n", PATH ":1:28: expected ',' or '}' after value 2 of 'w'");
	EXPECT_SPEC_ERR("//@ global w float[2] {1, x}\n", PATH ":1:27: expected a number in the values of 'w', not 'x'");
	EXPECT_SPEC_ERR("//@ global w float[2] {}\n", PATH ":1:24: expected a number in the values of 'w', not '}'");
	EXPECT_SPEC_ERR("//@ global w float[2] zero {1, 2}\n", PATH ":1:28: global 'w' has two inits, 'zero' and a list");
	EXPECT_SPEC_ERR("//@ global w float managed\n", PATH ":1:20: a global cannot be 'managed': it lives in the module");
	EXPECT_SPEC_ERR("//@ global w float prefetch\n", PATH ":1:20: a global cannot be 'prefetch': it lives in the module");
	EXPECT_SPEC_ERR("//@ buffer x float[4] random prefetch\n",
		PATH ":1:38: buffer 'x' has 'prefetch' without 'managed': only unified memory is prefetched");
	EXPECT_SPEC_ERR("//@ buffer w float[2] {1, 2}\n",
		PATH ":1:23: unexpected '{' in buffer 'w' (expected random, zero, one, iota, value(X), poison, output, managed or host)");
	/* the lines `info` and a first run give for state a kernel keeps */
	EXPECT_SPEC_OK("//@ global done unsigned zero output\n//@ global acc float[4194304] zero output\n"
	               "//@ global total uint64 value(3) output\n");
	EXPECT_SPEC_ERR("//@ global done unsigned zero\n//@ global acc float[4194304] zero ouptut\n",
		PATH ":2:36: unknown word 'ouptut' in global 'acc' (expected: random, zero, one, iota, value, poison, "
		"output); did you mean 'output'?");
	EXPECT_SPEC_ERR("//@ global w flot\n",
		PATH ":1:14: unknown global type 'flot' (known: float, double, int, unsigned, long, half, "
		"bfloat16, int8, uint8, int16, uint16, uint64, fp8_e4m3, fp8_e5m2, float2, float4, double2, int2, int4, uint2, "
		"uint4, half2, bfloat162, char4, uchar4); did you mean 'float'?");
}

TEST(buffers)
{
	spec s;
	char *err = NULL;
	CHECK(spec_parse(PATH,
		"//@ buffer a float[4]\n"
		"//@ buffer b double[4] zero\n"
		"//@ buffer c int[4] output\n"
		"//@ buffer d unsigned[4] managed output\n"
		"//@ buffer e long[4] output iota\n"
		"//@ buffer f float[4] value(-2.5) managed\n"
		"//@ buffer g float[ 2 * (3 + 1) ] value( 1e-3 )\n"
		"//@ buffer h int[4] one output managed\n"
		"//@ buffer i float[4] managed\n", &s, &err) == 0);
	CHECK(s.nbufs == 9);
	CHECK(s.bufs[0].init == INIT_RANDOM && !s.bufs[0].output);
	CHECK(s.bufs[1].init == INIT_ZERO && s.bufs[1].type == DT_DOUBLE);
	CHECK(s.bufs[2].init == INIT_POISON && s.bufs[2].output && s.bufs[2].type == DT_INT);
	CHECK(s.bufs[3].init == INIT_POISON && s.bufs[3].output && s.bufs[3].managed);
	CHECK(s.bufs[3].type == DT_UNSIGNED);
	CHECK(s.bufs[4].init == INIT_IOTA && s.bufs[4].output && s.bufs[4].type == DT_LONG);
	CHECK(s.bufs[5].init == INIT_VALUE && s.bufs[5].init_value == -2.5 && s.bufs[5].managed);
	CHECK_STREQ(s.bufs[6].count.text, "2 * (3 + 1)");
	CHECK(s.bufs[6].count.col == 21);
	CHECK(s.bufs[6].init == INIT_VALUE && s.bufs[6].init_value == 1e-3);
	CHECK(s.bufs[7].init == INIT_ONE && s.bufs[7].output && s.bufs[7].managed);
	CHECK(s.bufs[8].init == INIT_RANDOM && s.bufs[8].managed);
	spec_free(&s);

	EXPECT_SPEC_ERR("//@ buffer x float N\n", PATH ":1:20: expected '[' after buffer type 'float'");
	EXPECT_SPEC_ERR("//@ buffer x flaot[N]\n",
		PATH ":1:14: unknown buffer type 'flaot' (known: float, double, int, unsigned, long, half, "
		"bfloat16, int8, uint8, int16, uint16, uint64, fp8_e4m3, fp8_e5m2, float2, float4, double2, int2, int4, uint2, "
		"uint4, half2, bfloat162, char4, uchar4); "
		"did you mean 'float'?");
	EXPECT_SPEC_ERR("//@ buffer x\n",
		PATH ":1:13: expected a type after buffer name 'x' (float, double, int, half, int8, float4, "
		"...: 'help buffers')");
	EXPECT_SPEC_ERR("//@ buffer\n", PATH ":1:11: expected a name after 'buffer'");
	EXPECT_SPEC_ERR("//@ buffer x float[N\n", PATH ":1:21: expected ']' after the size of buffer 'x'");
	EXPECT_SPEC_ERR("//@ buffer x float[ ]\n", PATH ":1:21: expected the size of buffer 'x' inside '[]'");
	EXPECT_SPEC_ERR("//@ buffer x float[N] rando\n",
		PATH ":1:23: unknown word 'rando' in buffer 'x' (expected: random, zero, one, iota, value, "
		"poison, output, managed, prefetch, host, pinned, scratch); did you mean 'random'?");
	EXPECT_SPEC_ERR("//@ buffer x float[N] zero one\n",
		PATH ":1:28: buffer 'x' has two inits, 'zero' and 'one'");
	EXPECT_SPEC_ERR("//@ buffer x float[N] output output\n",
		PATH ":1:30: duplicate 'output' in buffer 'x'");
	EXPECT_SPEC_ERR("//@ buffer x float[N] value\n", PATH ":1:28: expected '(' after 'value'");
	EXPECT_SPEC_ERR("//@ buffer x float[N] value(abc)\n",
		PATH ":1:29: expected a number inside 'value(...)'");
	EXPECT_SPEC_ERR("//@ buffer x float[N] value(1\n", PATH ":1:30: expected ')' after 'value(1'");
	EXPECT_SPEC_ERR("//@ buffer x float[N] , zero\n",
		PATH ":1:23: unexpected ',' in buffer 'x' (expected random, zero, one, iota, value(X), "
		"poison, output, managed or host)");
}

TEST(launch_lines)
{
	spec s;
	char *err = NULL;
	CHECK(spec_parse(PATH, "//@ grid  cdiv(N, 4), 2\n//@ block 8,8,4\n//@ smem 4 * 256\n"
	                 "//@ flops 2*N   // per element\n//@ link cudadevrt\n//@ param N = 8\n", &s, &err) == 0);
	CHECK(s.base.ngrid == 2);
	CHECK_STREQ(s.base.grid[0].text, "cdiv(N, 4)");
	CHECK(s.base.grid[0].col == 11 && s.base.grid[1].col == 23);
	CHECK(s.base.nblock == 3);
	CHECK_STREQ(s.base.block[2].text, "4");
	CHECK(s.base.block[2].col == 15);
	CHECK_STREQ(s.base.smem.text, "4 * 256");
	CHECK(s.base.smem.line == 3 && s.base.smem.col == 10);
	CHECK_STREQ(s.base.flops.text, "2*N");
	CHECK(s.nlinks == 1);
	CHECK_STREQ(s.links[0], "cudadevrt");
	spec_free(&s);

	EXPECT_SPEC_ERR("//@ grid\n", PATH ":1:9: expected an expression after 'grid'");
	EXPECT_SPEC_ERR("//@ smem   // later\n", PATH ":1:9: expected an expression after 'smem'");
	EXPECT_SPEC_ERR("//@ grid 1, 2, 3, 4\n", PATH ":1:19: too many dimensions in 'grid' (at most 3)");
	EXPECT_SPEC_ERR("//@ block 1, , 3\n", PATH ":1:14: expected an expression before ','");
	EXPECT_SPEC_ERR("//@ grid 1,\n", PATH ":1:12: expected an expression after ','");
	EXPECT_SPEC_ERR("//@ grid 1\n//@ grid 2\n", PATH ":2:5: duplicate 'grid' line (first at line 1)");
	EXPECT_SPEC_ERR("//@ bytes 1\n\n//@ bytes 2\n", PATH ":3:5: duplicate 'bytes' line (first at line 1)");
	EXPECT_SPEC_ERR("//@ link cudart\n", PATH ":1:10: unknown link library 'cudart' (known: cudadevrt)");
	EXPECT_SPEC_ERR("//@ link\n", PATH ":1:9: expected a library name after 'link' (known: cudadevrt)");
	EXPECT_SPEC_ERR("//@ link cudadevrt, x\n", PATH ":1:19: unexpected ',' after 'link'");
}

/* ---- checks ---- */

#define PRE \
	"//@ param N = 16\n"                       /* 1 */ \
	"//@ buffer a float[N] output\n"           /* 2 */ \
	"//@ buffer b float[N] output\n"           /* 3 */ \
	"//@ buffer c float[N] output\n"           /* 4 */ \
	"//@ grid N\n"                             /* 5 */ \
	"//@ block 1\n"                            /* 6 */
#define KERNELS \
	"__global__ void vadd(float *a, float *b, float *c, int N) {}\n" \
	"__global__ void other(float *a, float *b, float *c, int N) {}\n"

TEST(checks)
{
	spec s;
	char *err = NULL;
	CHECK(spec_parse(PATH, PRE
		"//@ check c = add(a, b) tol 1e-3\n"   /* 7 */
		"//@ check a = copy( b )\n"            /* 8 */
		"//@ check b = other\n"                /* 9 */
		"//@ kernel other check c = vadd tol 0.5\n"
		"//@ kernel other check a = scale(b, 2 * N)\n"
		KERNELS, &s, &err) == 0);
	if (err)
		fprintf(stderr, "  %s\n", err);
	CHECK(s.base.nchecks == 3);
	CHECK(s.base.checks[0].tol == 1e-3);
	CHECK(s.base.checks[0].nargs == 2);
	CHECK_STREQ(s.base.checks[1].out, "a");
	CHECK_STREQ(s.base.checks[1].args[0].text, "b");
	CHECK(s.base.checks[1].args[0].col == 21);
	CHECK(s.base.checks[2].is_kernel && s.base.checks[2].nargs == 0);
	CHECK_STREQ(s.base.checks[2].ref, "other");
	const spec_launch *o = &s.kernels[1].over;
	CHECK(o->nchecks == 2);
	CHECK(o->checks[0].is_kernel && o->checks[0].tol == 0.5);
	CHECK_STREQ(o->checks[1].ref, "scale");
	CHECK_STREQ(o->checks[1].args[1].text, "2 * N");
	spec_free(&s);

	/* check none, in the file and for one kernel */
	CHECK(spec_parse(PATH, PRE "//@ check none\n//@ kernel vadd check c = add(a, b)\n" KERNELS,
	                 &s, &err) == 0);
	CHECK(s.base.nchecks == 0);
	CHECK(s.kernels[0].over.nchecks == 1);
	CHECK(s.kernels[1].over.nchecks == -1);
	spec_free(&s);
}

TEST(check_errors)
{
	char *e = parse_err(PRE "//@ check c = ad(a, b)\n" KERNELS);
	CHECK(starts_with(e, PATH ":7:15: unknown reference 'ad' (known: copy, add, "));
	CHECK(ends_with(e, "); did you mean 'add'?"));
	free(e);
	EXPECT_SPEC_ERR(PRE "//@ check c = add(a)\n" KERNELS,
		PATH ":7:15: 'add' takes 2 arguments, not 1: add(a, b)");
	EXPECT_SPEC_ERR(PRE "//@ check c = copy()\n" KERNELS,
		PATH ":7:15: 'copy' takes 1 argument, not 0: copy(in)");
	EXPECT_SPEC_ERR(PRE "//@ check c = add(a, bb)\n" KERNELS,
		PATH ":7:22: unknown buffer 'bb' for argument 2 of add(a, b) (buffers: a, b, c); "
		"did you mean 'b'?");
	EXPECT_SPEC_ERR(PRE "//@ check c = add(a, b+1)\n" KERNELS,
		PATH ":7:22: expected a buffer for argument 2 of add(a, b), found 'b+1'");
	EXPECT_SPEC_ERR(PRE "//@ check c = scale(a, b)\n" KERNELS,
		PATH ":7:24: argument 2 of scale(a, alpha) is a number, but 'b' is a buffer");
	EXPECT_SPEC_ERR(PRE "//@ check cc = add(a, b)\n" KERNELS,
		PATH ":7:11: unknown buffer 'cc' in check (buffers: a, b, c); did you mean 'c'?");
	EXPECT_SPEC_ERR(PRE "//@ check c = othr\n" KERNELS,
		PATH ":7:15: unknown kernel 'othr' in check (kernels: vadd, other); did you mean 'other'?");
	EXPECT_SPEC_ERR(PRE "//@ check c = sum\n" KERNELS,
		PATH ":7:15: reference 'sum' needs its arguments: sum(in)");
	EXPECT_SPEC_ERR(PRE "//@ check c add(a, b)\n" KERNELS,
		PATH ":7:13: expected '=' after check output 'c'");
	EXPECT_SPEC_ERR(PRE "//@ check c =\n" KERNELS,
		PATH ":7:14: expected a reference or a kernel name after '='");
	EXPECT_SPEC_ERR(PRE "//@ check c = add(a, b) tol\n" KERNELS,
		PATH ":7:28: expected a positive number after 'tol'");
	EXPECT_SPEC_ERR(PRE "//@ check c = add(a, b) tol -1\n" KERNELS,
		PATH ":7:29: expected a positive number after 'tol'");
	EXPECT_SPEC_ERR(PRE "//@ check c = add(a, b) within 1\n" KERNELS,
		PATH ":7:25: unexpected 'within' after check (expected 'tol X' or the end of the line)");
	EXPECT_SPEC_ERR(PRE "//@ check c = add(a, b) tol 1 2\n" KERNELS,
		PATH ":7:31: unexpected '2' after check");
	EXPECT_SPEC_ERR(PRE "//@ check c = add(a, b\n" KERNELS,
		PATH ":7:23: expected ')' after the arguments of 'add'");
	EXPECT_SPEC_ERR(PRE "//@ check c = add(a, )\n" KERNELS,
		PATH ":7:22: expected an expression after ','");
	EXPECT_SPEC_ERR(PRE "//@ check\n" KERNELS,
		PATH ":7:10: expected an output buffer or 'none' after 'check'");
	EXPECT_SPEC_ERR(PRE "//@ check none\n//@ check c = add(a, b)\n" KERNELS,
		PATH ":8:5: check conflicts with 'check none' at line 7");
	EXPECT_SPEC_ERR(PRE "//@ check c = add(a, b)\n//@ check none\n" KERNELS,
		PATH ":8:11: 'check none' conflicts with the check at line 7");
	EXPECT_SPEC_ERR(PRE "//@ kernel vadd check c = vadd\n" KERNELS,
		PATH ":7:23: kernel 'vadd' cannot be checked against itself");
	/* buffers may be declared after the check that names them */
	EXPECT_SPEC_OK("//@ grid 1\n//@ block 1\n//@ check out = copy(in)\n"
	               "//@ buffer in float[4]\n//@ buffer out float[4] output\n"
	               "__global__ void k(float *in, float *out) {}\n");
	/* at most SPEC_MAX_CHECKS */
	sbuf src = {0};
	sb_puts(&src, PRE);
	for (int i = 0; i <= SPEC_MAX_CHECKS; i++)
		sb_puts(&src, "//@ check c = add(a, b)\n");
	sb_puts(&src, KERNELS);
	EXPECT_SPEC_ERR(src.s, PATH ":15:5: too many checks (at most 8)");
	sb_free(&src);
}

/* ---- per-kernel overrides ---- */

static const char over_src[] =
	"//@ param N = 16\n"                           /* 1 */
	"//@ buffer in float[N]\n"                     /* 2 */
	"//@ buffer out float[N] output\n"             /* 3 */
	"//@ grid N\n"                                 /* 4 */
	"//@ block 1, 1\n"                             /* 5 */
	"//@ smem 0\n"                                 /* 6 */
	"//@ check out = copy(in)\n"                   /* 7 */
	"//@ kernel b block 32        // whole block\n" /* 8 */
	"//@ kernel b smem 128\n"                      /* 9 */
	"//@ kernel b check none\n"                    /* 10 */
	"//@ kernel c check out = a tol 1e-3\n"        /* 11 */
	"//@ kernel c bytes 8 * N\n"                   /* 12 */
	"//@ kernel d skip\n"                          /* 13 */
	"//@ kernel e grid 1\n"                        /* 14 */
	"//@ kernel e cluster 2, 1\n"                  /* 15 */
	"__global__ void a(float *in, float *out, int N) {}\n"
	"__global__ void b(float *in, float *out, int N) {}\n"
	"__global__ void c(float *in, float *out, int N) {}\n"
	"__global__ void d(float *in, float *out) {}\n"
	"__global__ void e(float *in, float *out) {}\n";

/* Every name an expression uses is declared, checked when the file is read
 * (before any compile); the nearest name is suggested among defines and
 * params alike; a check compares an output. */
TEST(names_and_outputs)
{
#define NPRE "//@ define BLOCK = 256\n//@ param n = 1000\n//@ buffer x float[n] random\n" \
	"//@ buffer yy float[n] output\n"
#define NK "__global__ void k(int n, const float *x, float *yy) {}\n"
	EXPECT_SPEC_ERR(NPRE "//@ grid cdiv(n, BLOK)\n//@ block BLOCK\n" NK,
		PATH ":5:18: unknown name 'BLOK' in grid (defines and params: BLOCK, n); did you mean 'BLOCK'?");
	EXPECT_SPEC_ERR(NPRE "//@ grid cdiv(N, BLOCK)\n//@ block BLOCK\n" NK,
		PATH ":5:15: unknown name 'N' in grid (defines and params: BLOCK, n); did you mean 'n'?");
	EXPECT_SPEC_ERR(NPRE "//@ grid 1\n//@ block BLOCK\n//@ smem BLCK * 4\n" NK,
		PATH ":7:10: unknown name 'BLCK' in smem (defines and params: BLOCK, n); did you mean 'BLOCK'?");
	EXPECT_SPEC_ERR(NPRE "//@ grid 1\n//@ block 1\n//@ kernel k block BLOCKS\n" NK,
		PATH ":7:20: unknown name 'BLOCKS' in block (defines and params: BLOCK, n); did you mean 'BLOCK'?");
	EXPECT_SPEC_ERR("//@ param n = 10\n//@ buffer x float[m] output\n//@ grid 1\n//@ block 1\n"
	                "__global__ void k(int n, float *x) {}\n",
		PATH ":2:20: unknown name 'm' in buffer size (defines and params: n); did you mean 'n'?");
	/* device facts, functions, numbers, buffers in a check's arguments */
	EXPECT_SPEC_OK(NPRE "//@ grid min(SM_COUNT * 4, cdiv(n, BLOCK))\n//@ block BLOCK\n"
		"//@ bytes 2.5e3 + 0x10 * WARP_SIZE\n//@ check yy = scale(x, 2)\n" NK);
	/* a renamed buffer: the nearest name is the one that starts alike */
	EXPECT_SPEC_ERR(NPRE "//@ grid 1\n//@ block 1\n//@ check y = copy(x)\n" NK,
		PATH ":7:11: unknown buffer 'y' in check (buffers: x, yy); did you mean 'yy'?");
	EXPECT_SPEC_ERR(NPRE "//@ grid 1\n//@ block 1\n//@ check x = copy(yy)\n" NK,
		PATH ":7:11: check of 'x', which is not marked output: add 'output' to its buffer line (line 3); "
		"only an output is reset before each run and copied back, so this check could pass on what an "
		"earlier run wrote");
#undef NPRE
#undef NK
}

TEST(overrides)
{
	spec s;
	char *err = NULL;
	CHECK(spec_parse(PATH, over_src, &s, &err) == 0);
	if (err)
		fprintf(stderr, "  %s\n", err);
	spec_launch l;

	spec_effective(&s, 0, &l); /* a: the file's lines */
	CHECK(l.ngrid == 1 && l.nblock == 2);
	CHECK_STREQ(l.smem.text, "0");
	CHECK(l.nchecks == 1);
	CHECK_STREQ(l.checks[0].ref, "copy");

	spec_effective(&s, 1, &l); /* b: block, smem and checks replaced */
	CHECK(l.nblock == 1);
	CHECK_STREQ(l.block[0].text, "32");
	CHECK(l.block[0].text == s.kernels[1].over.block[0].text); /* aliases the spec */
	CHECK(l.block[0].line == 8 && l.block[0].col == 20);
	CHECK_STREQ(l.smem.text, "128");
	CHECK(l.nchecks == 0);
	CHECK_STREQ(l.grid[0].text, "N");

	spec_effective(&s, 2, &l); /* c: its own check and bytes */
	CHECK(l.nchecks == 1 && l.checks[0].is_kernel && l.checks[0].tol == 1e-3);
	CHECK_STREQ(l.checks[0].ref, "a");
	CHECK_STREQ(l.bytes.text, "8 * N");
	CHECK(l.nblock == 2);

	CHECK(s.kernels[3].skip && !s.kernels[0].skip);
	spec_effective(&s, 4, &l); /* e: grid and a cluster of its own */
	CHECK_STREQ(l.grid[0].text, "1");
	CHECK(l.ngrid == 1 && l.nblock == 2);
	CHECK(l.ncluster == 2);
	CHECK_STREQ(l.cluster[0].text, "2");
	CHECK(l.cluster[0].line == 15 && l.cluster[0].col == 22);
	spec_effective(&s, 0, &l); /* a: no cluster */
	CHECK(l.ncluster == 0);
	spec_free(&s);
}

TEST(override_errors)
{
	EXPECT_SPEC_ERR(PRE "//@ kernel vad block 2\n" KERNELS,
		PATH ":7:12: unknown kernel 'vad' (kernels: vadd, other); did you mean 'vadd'?");
	EXPECT_SPEC_ERR("//@ kernel k grid 1\n",
		PATH ":1:12: unknown kernel 'k' (no __global__ functions in the file)");
	EXPECT_SPEC_ERR(PRE "//@ kernel vadd blok 2\n" KERNELS,
		PATH ":7:17: unknown override 'blok' for kernel 'vadd' (known: grid, block, cluster, smem, bytes, "
		"flops, check, skip); did you mean 'block'?");
	EXPECT_SPEC_ERR(PRE "//@ kernel vadd param N = 2\n" KERNELS,
		PATH ":7:17: unknown override 'param' for kernel 'vadd' (known: grid, block, cluster, smem, bytes, "
		"flops, check, skip)");
	EXPECT_SPEC_ERR(PRE "//@ kernel vadd\n" KERNELS,
		PATH ":7:16: expected an override after kernel name 'vadd' (grid, block, cluster, smem, bytes, "
		"flops, check or skip)");
	EXPECT_SPEC_ERR(PRE "//@ kernel\n" KERNELS, PATH ":7:11: expected a kernel name after 'kernel'");
	EXPECT_SPEC_ERR(PRE "//@ kernel vadd skip now\n" KERNELS, PATH ":7:22: unexpected 'now' after 'skip'");
	EXPECT_SPEC_ERR(PRE "//@ kernel vadd block 2\n//@ kernel vadd block 4\n" KERNELS,
		PATH ":8:17: duplicate 'block' override for kernel 'vadd' (first at line 7)");
	EXPECT_SPEC_ERR(PRE "//@ kernel vadd check none\n//@ kernel vadd check c = other\n" KERNELS,
		PATH ":8:17: check conflicts with 'check none' at line 7");
	EXPECT_SPEC_ERR(PRE "//@ kernel vadd cluster 2, 1, 1, 1\n" KERNELS,
		PATH ":7:34: too many dimensions in 'cluster' (at most 3)");
	EXPECT_SPEC_ERR(PRE "//@ kernel vadd cluster 2\n//@ kernel vadd cluster 4\n" KERNELS,
		PATH ":8:17: duplicate 'cluster' override for kernel 'vadd' (first at line 7)");
	/* the same line for two kernels is fine */
	EXPECT_SPEC_OK(PRE "//@ kernel vadd block 2\n//@ kernel other block 4\n" KERNELS);
}

TEST(missing_geometry)
{
	EXPECT_SPEC_ERR("//@ block 32\n__global__ void k(void) {}\n",
		PATH ":2:17: kernel 'k' has no grid: add '//@ grid EXPR' or '//@ kernel k grid EXPR'");
	EXPECT_SPEC_ERR("//@ grid 32\n__global__ void k(void) {}\n",
		PATH ":2:17: kernel 'k' has no block: add '//@ block EXPR' or '//@ kernel k block EXPR'");
	EXPECT_SPEC_ERR("//@ block 1\n//@ kernel a grid 1\n"
	                "__global__ void a(void) {}\n__global__ void b(void) {}\n",
		PATH ":4:17: kernel 'b' has no grid: add '//@ grid EXPR' or '//@ kernel b grid EXPR'");
	/* per-kernel geometry, skipped kernels, templates and empty files need none */
	EXPECT_SPEC_OK("//@ kernel a grid 1\n//@ kernel a block 1\n__global__ void a(void) {}\n");
	EXPECT_SPEC_OK("//@ kernel a skip\n__global__ void a(void) {}\n");
	EXPECT_SPEC_OK("template <int B> __global__ void t(float *x) {}\n");
	EXPECT_SPEC_OK("// nothing here yet\n");
	/* a prototype alone is not a kernel */
	EXPECT_SPEC_OK("__global__ void p(float *x);\n");
}

TEST(error_resets_spec)
{
	spec s;
	char *err = xstrdup("stale");
	CHECK(spec_parse(PATH, PRE "//@ check c = add(a, bb)\n" KERNELS, &s, &err) == -1);
	CHECK(starts_with(err, PATH ":7:22: "));
	CHECK(s.path == NULL && s.nkernels == 0 && s.nvars == 0 && s.kernels == NULL);
	spec_free(&s); /* harmless after a failed parse */
	free(err);
	/* err may be NULL */
	CHECK(spec_parse(PATH, "//@ nope\n", &s, NULL) == -1);
}


/* ---- C++ names: namespaces, templates, instantiations ---- */

static const char names_src[] =
	"//@ grid 1\n//@ block 1\n"                                                   /* 1, 2 */
	"namespace course {\n"                                                        /* 3 */
	"__global__ void copy_ns(float *x) {}\n"                                      /* 4 */
	"namespace { __global__ void anon(float *x) {} }\n"                           /* 5 */
	"__global__ void later(float *x);\n"                                          /* 6 */
	"struct S { int v; };\n"                                                      /* 7 */
	"}\n"                                                                         /* 8 */
	"namespace a::b { inline namespace v1 { __global__ void deep(int n) {} } }\n" /* 9 */
	"namespace cg = course;\n"                                                    /* 10 */
	"using namespace course;\n"                                                   /* 11 */
	"__global__ void course::later(float *x) {}\n"                                /* 12 */
	"extern \"C\" { __global__ void plain_c(float *x) {} }\n"                     /* 13 */
	"__global__ void top(float *x) {}\n"                                          /* 14 */
	"template <typename T, int N = 4>\n"                                          /* 15 */
	"__global__ void scale(const T *__restrict__ x, T *y, T alpha, int n) {}\n"   /* 16 */
	"template __global__ void scale<float, 2>(const float *, float *, float, int);\n" /* 17 */
	"extern template __global__ void scale<double, 2>(const double *, double *, double, int);\n"
	"namespace course { template <int B> __global__ void red(float *x) {} }\n"    /* 19 */
	"//@ kernel scale< double , 8 >\n"                                            /* 20 */
	"//@ kernel course::red<BS> block BS\n"                                       /* 21 */
	"//@ define BS = 128\n"                                                       /* 22 */
	"//@ param n = 1\n//@ param alpha = 2\n//@ buffer x float[1]\n//@ buffer y float[1]\n";

TEST(cxx_names)
{
	spec s;
	char *err = NULL;
	CHECK(spec_parse(PATH, names_src, &s, &err) == 0);
	if (err) {
		fprintf(stderr, "  %s\n", err);
		free(err);
		return;
	}
	static const char *const want[] = {
		"course::copy_ns", "course::anon", "a::b::v1::deep", "course::later", "plain_c", "top",
		"scale", "course::red", "scale<float,2>", "scale<double,8>", "course::red<BS>",
	};
	CHECK(s.nkernels == (int)ARRAY_LEN(want));
	for (int i = 0; i < s.nkernels && i < (int)ARRAY_LEN(want); i++)
		CHECK_STREQ(s.kernels[i].name, want[i]);
	if (s.nkernels != (int)ARRAY_LEN(want)) {
		spec_free(&s);
		return;
	}
	CHECK_STREQ(s.kernels[0].base, "copy_ns");
	CHECK_STREQ(s.kernels[3].expr, "course::later");
	CHECK(s.kernels[3].line == 12); /* the definition, outside the namespace */
	CHECK(s.kernels[6].is_template && s.kernels[6].ntparams == 2);
	CHECK_STREQ(s.kernels[6].tparams[0].name, "T");
	CHECK(s.kernels[6].tparams[0].is_type && !s.kernels[6].tparams[1].is_type);
	CHECK(!spec_kernel_launchable(&s, 6));
	/* the explicit instantiation: T replaced in the parameters */
	const spec_kernel *k = &s.kernels[8];
	CHECK(k->tmpl == 6 && k->decl_line == 17 && spec_kernel_launchable(&s, 8));
	CHECK_STREQ(k->params[0].type, "const float* __restrict__");
	CHECK(k->params[0].kind == ARG_PTR && k->params[0].elem_known && k->params[0].elem == DT_FLOAT);
	CHECK(k->params[2].kind == ARG_F32);
	CHECK(k->params[3].kind == ARG_I32);
	/* named in the header, blanks and all */
	k = &s.kernels[9];
	CHECK(k->tmpl == 6 && k->decl_line == 20 && k->decl_col == 12);
	CHECK(k->params[1].kind == ARG_PTR && k->params[1].elem == DT_DOUBLE && k->params[2].kind == ARG_F64);
	/* overrides on an instantiation; its template's apply below them */
	k = &s.kernels[10];
	CHECK(k->tmpl == 7 && k->over.nblock == 1);
	/* finding kernels: exact, blanks ignored, by the last part when unique */
	CHECK(spec_kernel_find(&s, "scale< float,2 >") == 8);
	CHECK(spec_kernel_find(&s, "copy_ns") == 0);
	CHECK(spec_kernel_find(&s, "deep") == 2);
	CHECK(spec_kernel_find(&s, "red<BS>") == 10);
	CHECK(spec_kernel_find(&s, "nothing") == -1);
	CHECK(spec_template_find(&s, "scale<int,1>") == 6);
	CHECK(spec_template_find(&s, "top<1>") == -1);
	spec_free(&s);
}

TEST(cxx_name_errors)
{
	EXPECT_SPEC_ERR("//@ grid 1\n//@ block 1\n"
	                "template <int BS> __global__ void r(float *x) {}\n"
	                "//@ define BS = 256\n",
	                PATH ":4:12: define 'BS' is also a template parameter of kernel 'r': rename one (a define "
	                "becomes a -D macro and would rewrite the template parameter)");
	EXPECT_SPEC_ERR("//@ grid 1\n//@ block 1\n"
	                "template <int B> __global__ void reduce(float *x) {}\n"
	                "//@ kernel reduc<4>\n",
	                PATH ":4:12: unknown kernel template 'reduc' (templates: reduce); did you mean 'reduce'?");
	EXPECT_SPEC_ERR("//@ grid 1\n//@ block 1\n"
	                "__global__ void plain(void) {}\n"
	                "//@ kernel plain<4>\n",
	                PATH ":4:12: kernel 'plain' is not a template: '<...>' gives template arguments");
	EXPECT_SPEC_ERR("//@ grid 1\n//@ block 1\n"
	                "__global__ void plain(void) {}\n"
	                "//@ kernel plain\n",
	                PATH ":4:17: expected an override after kernel name 'plain' (grid, block, cluster, smem, bytes, "
	                "flops, check or skip)");
	EXPECT_SPEC_ERR("//@ include\n", PATH ":1:12: expected a directory after 'include'");
	EXPECT_SPEC_ERR("//@ grid 1\n//@ block 1\n__global__ void k(float *x) { /* caf\xff */ }\n",
	                PATH ":3:37: byte 0xff, which NVRTC takes for the end of the file (is the file saved "
	                "as UTF-8?)");
	char *e = NULL;
	CHECK(spec_text_check(PATH, "ab\ncd\0ef", 8, &e) == -1);
	CHECK_STREQ(e, PATH ":2:3: a NUL byte: the file would end here for the compiler (is it a text file?)");
	free(e);
	spec s;
	e = NULL;
	CHECK(spec_parse(PATH, "//@ include inc \"two words\" /abs\n", &s, &e) == 0);
	CHECK(s.nincdirs == 3);
	if (s.nincdirs == 3) {
		CHECK_STREQ(s.incdirs[0].dir, "inc");
		CHECK(s.incdirs[0].col == 13);
		CHECK_STREQ(s.incdirs[1].dir, "two words");
		CHECK_STREQ(s.incdirs[2].dir, "/abs");
	}
	spec_free(&s);
	free(e);
}

TEST(host_streams)
{
	spec s;
	char *err = NULL;
	const char *src = "//@ param n = 100\n//@ param K = 1\n"
	                  "//@ buffer x float[n] random host\n"
	                  "//@ buffer y float[n] zero output host pinned\n"
	                  "//@ buffer d float[n] one\n"
	                  "//@ grid n\n//@ block 1\n"
	                  "//@ streams K split n   // chunks\n"
	                  "__global__ void k(const float *x, float *y, const float *d, int n) {}\n";
	CHECK(spec_parse(PATH, src, &s, &err) == 0);
	if (err) {
		fprintf(stderr, "  %s\n", err);
		free(err);
		return;
	}
	CHECK(s.bufs[0].host == BUF_HOST_PAGEABLE && s.bufs[1].host == BUF_HOST_PINNED && s.bufs[2].host == BUF_DEVICE);
	CHECK_STREQ(s.streams.text, "K");
	CHECK(s.streams.line == 8 && s.streams.col == 13);
	CHECK_STREQ(s.split, "n");
	CHECK(s.split_line == 8 && s.split_col == 21);
	spec_free(&s);
	EXPECT_SPEC_ERR("//@ buffer x float[4] pinned\n", PATH ":1:23: buffer 'x' has 'pinned' without 'host': only "
	                "host memory is pinned (write 'host pinned')");
	EXPECT_SPEC_ERR("//@ buffer x float[4] host managed\n", PATH ":1:28: buffer 'x' is both 'managed' and 'host': "
	                "unified memory moves by itself, a host buffer is copied (choose one)");
	EXPECT_SPEC_ERR("//@ buffer x float[4] host host\n", PATH ":1:28: duplicate 'host' in buffer 'x'");
	EXPECT_SPEC_ERR("//@ global g float host\n", PATH ":1:20: a global cannot be 'host': it lives in the module");
	EXPECT_SPEC_ERR("//@ streams\n", PATH ":1:12: expected the number of streams after 'streams' "
	                "(streams EXPR split NAME)");
	EXPECT_SPEC_ERR("//@ streams split n\n", PATH ":1:13: expected the number of streams after 'streams' "
	                "(streams EXPR split NAME)");
	EXPECT_SPEC_ERR("//@ streams 4\n", PATH ":1:14: expected 'split NAME' after the number of streams: the "
	                "param that is cut in chunks");
	EXPECT_SPEC_ERR("//@ streams 4 split\n", PATH ":1:20: expected a param name after 'split' (the size that is "
	                "cut in chunks)");
	EXPECT_SPEC_ERR("//@ streams 4 split n m\n", PATH ":1:23: unexpected 'm' after the split param");
	EXPECT_SPEC_ERR("//@ param n = 1\n//@ buffer x float[n] host\n//@ streams 2 split n\n//@ streams 3 split n\n",
	                PATH ":4:5: duplicate 'streams' line (first at line 3)");
	EXPECT_SPEC_ERR("//@ buffer x float[4] host\n//@ streams 2 split n\n", PATH ":2:21: unknown param 'n' after "
	                "'split': declare '//@ param n = VALUE', the size that is cut in chunks");
	EXPECT_SPEC_ERR("//@ define n = 4\n//@ buffer x float[4] host\n//@ streams 2 split n\n", PATH ":3:21: 'n' is a "
	                "define: 'split' cuts a param (each chunk's kernel is given its own)");
	EXPECT_SPEC_ERR("//@ param n = 4\n//@ buffer x float[4]\n//@ streams 2 split n\n", PATH ":3:13: 'streams' "
	                "slices the host buffers, and there is none: add 'host' to the buffers a run copies in and out");
	/* an expression for the count, and a param named like the keyword's neighbours */
	EXPECT_SPEC_OK("//@ param splits = 2\n//@ param n = 4\n//@ buffer x float[n] host\n"
	               "//@ streams min(splits, 8) split n\n");
}


/* ---- sequences ---- */

TEST(sequences)
{
	spec s;
	char *err = NULL;
	const char *src =
		"//@ param N = 100\n"
		"//@ buffer in float[N] random\n"
		"//@ buffer tmp float[N] scratch\n"
		"//@ buffer out float[N] output\n"
		"//@ grid 1\n//@ block 32\n"
		"//@ sequence two = a, b\n"
		"//@ kernel two bytes 8 * N\n"
		"__global__ void a(const float *in, float *tmp) {}\n"
		"__global__ void b(const float *tmp, float *out) {}\n"
		"__global__ void c(const float *in, float *out) {}\n";
	CHECK(spec_parse(PATH, src, &s, &err) == 0);
	int k = spec_kernel_find(&s, "two");
	CHECK(k >= 0 && s.kernels[k].nsteps == 2);
	if (k >= 0 && s.kernels[k].nsteps == 2) {
		CHECK(strcmp(s.kernels[s.kernels[k].steps[0]].name, "a") == 0);
		CHECK(strcmp(s.kernels[s.kernels[k].steps[1]].name, "b") == 0);
		CHECK(s.kernels[k].over.bytes.text && strcmp(s.kernels[k].over.bytes.text, "8 * N") == 0);
		/* `run all`: the sequence and c, not the steps */
		CHECK(spec_kernel_in_all(&s, k));
		CHECK(!spec_kernel_in_all(&s, spec_kernel_find(&s, "a")));
		CHECK(spec_kernel_in_all(&s, spec_kernel_find(&s, "c")));
		CHECK(spec_kernel_launchable(&s, spec_kernel_find(&s, "a"))); /* named, a step runs alone */
	}
	int t = spec_buffer_find(&s, "tmp");
	CHECK(t >= 0 && s.bufs[t].scratch && s.bufs[t].output && s.bufs[t].init == INIT_POISON);
	spec_free(&s);
	CHECK(err == NULL);
	const char *k2 = "__global__ void a(float *x) {}\n__global__ void b(float *x) {}\n";
	char *src2 = xasprintf("//@ buffer x float[4] output\n//@ grid 1\n//@ block 1\n//@ sequence s = a, z\n%s", k2);
	EXPECT_SPEC_ERR(src2, PATH ":4:21: unknown step 'z' in sequence 's' (kernels: a, b); did you mean 'a'?");
	free(src2);
	src2 = xasprintf("//@ buffer x float[4] output\n//@ grid 1\n//@ block 1\n//@ sequence a = b\n%s", k2);
	EXPECT_SPEC_ERR(src2, PATH ":4:14: 'a' is already a kernel or a sequence of this file");
	free(src2);
	src2 = xasprintf("//@ buffer x float[4] output\n//@ grid 1\n//@ block 1\n//@ sequence s a, b\n%s", k2);
	EXPECT_SPEC_ERR(src2, PATH ":4:16: expected '=' after sequence name 's'");
	free(src2);
	src2 = xasprintf("//@ buffer x float[4] scratch output\n//@ grid 1\n//@ block 1\n%s", k2);
	EXPECT_SPEC_ERR(src2, PATH ":1:37: buffer 'x' is 'scratch', the steps' own: it cannot be an output, managed "
	                "or on the host");
	free(src2);
	src2 = xasprintf("//@ buffer x float[4] scratch\n//@ buffer y float[4] output\n//@ grid 1\n//@ block 1\n"
	                 "//@ check x = copy(y)\n%s", k2);
	EXPECT_SPEC_ERR(src2, PATH ":5:11: check names 'x', an intermediate ('scratch') of the steps: checks compare "
	                "what the last step leaves in the outputs");
	free(src2);
}

int main(void)
{
	RUN(whole_file);
	RUN(discovery);
	RUN(param_kinds);
	RUN(discovery_edges);
	RUN(directive_errors);
	RUN(var_errors);
	RUN(define_clash);
	RUN(globals);
	RUN(buffers);
	RUN(launch_lines);
	RUN(checks);
	RUN(check_errors);
	RUN(names_and_outputs);
	RUN(overrides);
	RUN(override_errors);
	RUN(missing_geometry);
	RUN(error_resets_spec);
	RUN(cxx_names);
	RUN(cxx_name_errors);
	RUN(host_streams);
	RUN(sequences);
	return test_report("spec");
}
