/* test_reduce.c: a kernel file cut down to the kernels a command runs:
 * every line in its place, the files that must compile whole, and, with
 * real NVRTC, every shipped kernel compiled alone giving the SASS it has
 * in the whole file. */
#include "arch.h"
#include "ccache.h"
#include "nvrtc.h"
#include "plan.h"
#include "reduce.h"
#include "sass.h"
#include "spec.h"
#include "spec_find.h"
#include "spec_scan.h"
#include "test.h"
#include "util.h"

#include <stdlib.h>

static int parse_text(const char *src, spec *s)
{
	char *err = NULL;
	int r = spec_parse("k.cu", src, s, &err);
	if (err)
		fprintf(stderr, "  %s\n", err);
	free(err);
	return r;
}

static int lines_of(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The reduced text of src for kernel `name`, or NULL with *why. */
static char *reduce_for(const char *src, const char *name, char **why)
{
	spec s;
	*why = NULL;
	if (parse_text(src, &s) != 0)
		return NULL;
	int k = spec_kernel_find(&s, name);
	char *out = k >= 0 ? spec_reduce(&s, &k, 1, why) : NULL;
	spec_free(&s);
	return out;
}

static const char two[] =
	"//@ buffer x float[N] zero output\n"
	"//@ define N = 64\n"
	"//@ grid 1\n"
	"//@ block 64\n"
	"__device__ float twice(float v) { return 2 * v; }\n"
	"__global__ void a(float *x)\n"
	"{\n"
	"#pragma unroll\n"
	"\tfor (int i = 0; i < 4; i++) x[i] = twice(x[i]); /* \"}\" */\n"
	"}\n"
	"template <int B>\n"
	"__global__ void __launch_bounds__(64) b(float *x) { x[threadIdx.x] = B; }\n"
	"template __global__ void b<3>(float *);\n"
	"__global__ void c(float *x) { x[0] = twice(1.f); }\n";

TEST(blanks_others_keeps_lines)
{
	char *why;
	char *r = reduce_for(two, "c", &why);
	CHECK(r != NULL && why == NULL);
	if (!r)
		return;
	CHECK(strlen(r) == strlen(two));
	CHECK(lines_of(r) == lines_of(two));
	CHECK(strstr(r, "void a(") == NULL);
	CHECK(strstr(r, "void __launch_bounds__(64) b") == NULL);
	CHECK(strstr(r, "b<3>") == NULL);
	CHECK(strstr(r, "template <int B>") == NULL);
	CHECK(strstr(r, "__global__ void c(float *x) { x[0] = twice(1.f); }") != NULL);
	CHECK(strstr(r, "__device__ float twice") != NULL);
	/* the header and the kept kernel stay at their offsets */
	const char *c0 = strstr(two, "__global__ void c");
	CHECK(strncmp(r + (c0 - two), c0, strlen(c0)) == 0);
	free(r);

	/* the template kernel kept with its explicit instantiation */
	r = reduce_for(two, "b<3>", &why);
	CHECK(r != NULL && why == NULL);
	if (r) {
		CHECK(strstr(r, "template __global__ void b<3>(float *);") != NULL);
		CHECK(strstr(r, "void a(") == NULL && strstr(r, "void c(") == NULL);
		CHECK(lines_of(r) == lines_of(two));
	}
	free(r);
}

TEST(needed_kernels)
{
	static const char src[] =
		"//@ buffer x float[N] zero output\n"
		"//@ buffer y float[N] zero output\n"
		"//@ define N = 64\n"
		"//@ grid 1\n"
		"//@ block 64\n"
		"//@ check x = ref_k\n"
		"//@ sequence two = s1, s2\n"
		"//@ kernel ref_k check none\n"
		"__global__ void ref_k(float *x, float *y) { x[0] = 1; }\n"
		"__global__ void s1(float *x, float *y) { y[0] = 1; }\n"
		"__global__ void s2(float *x, float *y) { x[0] = y[0]; }\n"
		"__global__ void lone(float *x, float *y) { x[0] = 1; }\n";
	spec s;
	if (parse_text(src, &s) != 0) {
		CHECK(0);
		return;
	}
	int need[8] = {0};
	int k = spec_kernel_find(&s, "two");
	CHECK(k >= 0);
	spec_needed(&s, &k, 1, need);
	CHECK(need[spec_kernel_find(&s, "s1")] && need[spec_kernel_find(&s, "s2")]);
	CHECK(need[spec_kernel_find(&s, "ref_k")]); /* the check names it */
	CHECK(!need[spec_kernel_find(&s, "lone")]);
	spec_free(&s);
}

/* The files the reduction must not cut: each compiles whole, with why. */
TEST(fallbacks)
{
	static const char launches[] =
		"//@ buffer x float[N] zero output\n//@ define N = 64\n//@ grid 1\n//@ block 64\n"
		"__global__ void child(float *x) { x[threadIdx.x] = 1; }\n"
		"__global__ void parent(float *x) { child<<<1, 64>>>(x); }\n"
		"__global__ void other(float *x) { x[0] = 2; }\n";
	static const char tmpl_twice[] =
		"//@ buffer x float[N] zero output\n//@ define N = 64\n//@ grid 1\n//@ block 64\n"
		"//@ kernel fill<1>\n//@ kernel fill<2>\n"
		"template <int V> __global__ void fill(float *x) { x[threadIdx.x] = V; }\n"
		"__global__ void other(float *x) { x[0] = 2; }\n";
	static const char shared_global[] =
		"//@ buffer x float[N] zero output\n//@ define N = 64\n//@ grid 1\n//@ block 64\n"
		"__device__ int counter;\n"
		"__global__ void writer(float *x) { counter = 1; }\n"
		"__global__ void reader(float *x) { x[0] = counter; }\n"
		"__global__ void other(float *x) { x[0] = 2; }\n";
	static const char directive[] =
		"//@ buffer x float[N] zero output\n//@ define N = 64\n//@ grid 1\n//@ block 64\n"
		"__global__ void a(float *x) {\n#define V 3\n x[0] = 1; }\n"
		"__global__ void b(float *x) { x[0] = V; }\n";
	static const char linked[] =
		"//@ buffer x float[N] zero output\n//@ define N = 64\n//@ grid 1\n//@ block 64\n"
		"//@ link cudadevrt\n"
		"__global__ void a(float *x) { x[0] = 1; }\n"
		"__global__ void b(float *x) { x[0] = 2; }\n";
	static const char half_group[] =
		"//@ buffer x float[N] zero output\n//@ define N = 64\n//@ grid 1\n//@ block 64\n"
		"__global__ void a(float *x) {\n#if N > 8\n x[0] = 1; }\n"
		"__global__ void b(float *x) { x[0] = 3; }\n#else\n x[0] = 2; }\n#endif\n"
		"__global__ void c(float *x) { x[0] = 4; }\n";
	struct { const char *src, *k, *why; } cases[] = {
		{ half_group, "c", "kernel not run" },
		{ launches, "parent", "launched" },
		{ launches, "other", "launched" },
		{ tmpl_twice, "fill<1>", "instantiated by two kernels" },
		{ shared_global, "reader", "variable 'counter'" },
		{ directive, "b", "preprocessor directive" },
		{ linked, "a", "link" },
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		char *why = NULL;
		char *r = reduce_for(cases[i].src, cases[i].k, &why);
		CHECK(r == NULL);
		CHECK(why && strstr(why, cases[i].why));
		if (!why || !strstr(why, cases[i].why))
			fprintf(stderr, "  case %zu: %s\n", i, why ? why : "(none)");
		free(r);
		free(why);
	}
	/* the same files cut where nothing unsafe is blanked */
	char *why = NULL;
	char *r = reduce_for(tmpl_twice, "other", &why);
	CHECK(r != NULL && why == NULL);
	free(r);
	free(why);
	r = reduce_for(shared_global, "other", &why); /* 'counter' is not kept */
	CHECK(r != NULL && why == NULL);
	free(r);
	free(why);
	/* a conditional group whole inside a kernel not run is blanked with it */
	static const char group[] =
		"//@ buffer x float[N] zero output\n//@ define N = 64\n//@ grid 1\n//@ block 64\n"
		"__global__ void a(float *x) {\n#if N > 8\n x[0] = 1;\n#else\n x[0] = 2;\n#endif\n}\n"
		"__global__ void b(float *x) { x[0] = 3; }\n";
	r = reduce_for(group, "b", &why);
	CHECK(r != NULL && why == NULL && strstr(r, "#if") == NULL && lines_of(r) == lines_of(group));
	free(r);
	free(why);
	/* every kernel run: nothing to cut, and no reason */
	r = reduce_for(directive, "b", &why);
	free(why);
	free(r);
}

/* A listing with its labels numbered from 0 in order of appearance (the
 * disassembler numbers them across the module), the internal functions
 * called unnumbered (numbered across the module too), and the instructions'
 * encodings, in comments, removed. */
static char *sass_norm(const char *l)
{
	sbuf b = {0};
	char **labels = NULL;
	int nl = 0;
	for (const char *p = l; *p;) {
		if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			p = e ? e + 2 : p + strlen(p);
			continue;
		}
		if (strncmp(p, ".L_x_", 5) == 0) {
			size_t n = 5;
			while (p[n] >= '0' && p[n] <= '9')
				n++;
			int i = 0;
			while (i < nl && !(strlen(labels[i]) == n && strncmp(labels[i], p, n) == 0))
				i++;
			if (i == nl)
				PUSH(labels, nl, xstrndup(p, n));
			sb_printf(&b, ".L_%d", i);
			p += n;
			continue;
		}
		if (strncmp(p, "$__internal_", 12) == 0 && p[12] >= '0' && p[12] <= '9') {
			p += 12; /* a module-wide number too */
			while (*p >= '0' && *p <= '9')
				p++;
			sb_puts(&b, "$__internal_");
			continue;
		}
		if (*p == ' ' || *p == '\t') {
			while (*p == ' ' || *p == '\t')
				p++;
			sb_putc(&b, ' ');
			continue;
		}
		sb_putc(&b, *p++);
	}
	for (int i = 0; i < nl; i++)
		free(labels[i]);
	free(labels);
	return sb_steal(&b);
}

static char *disasm(const cunit *u, const char *name)
{
	int ci = cunit_find(u, name);
	char *out = NULL, *err = NULL;
	if (ci < 0 || sass_disasm(u->cubin, u->cubin_len, u->lowered[ci], NULL, 0, &out, &err) != 0) {
		fprintf(stderr, "  %s: %s\n", name, err ? err : "not in the unit");
		free(err);
		return NULL;
	}
	char *n = sass_norm(out);
	free(out);
	return n;
}

/* One shipped file: every kernel alone against the whole file. */
static void shipped_file(const char *path, int *nkernels, int *ncut)
{
	char *src = NULL, *err = NULL;
	spec s;
	if (read_file(path, &src, NULL) != 0 || spec_parse(path, src, &s, &err) != 0) {
		fprintf(stderr, "  %s: %s\n", path, err ? err : "unreadable");
		CHECK(0);
		free(err);
		free(src);
		return;
	}
	free(src);
	devinfo dev;
	devinfo_for_arch(s.narch > 0 && s.arch[0].sm ? s.arch[0].sm : 90, &dev);
	char arch[16];
	snprintf(arch, sizeof arch, "sm_%d%s", dev.cc_major * 10 + dev.cc_minor,
	         s.narch > 0 && s.arch[0].suffix == 'a' ? "a" : "");
	symtab vals = {0};
	int ndefs = 0;
	char **defs = NULL;
	if (plan_values(&s, NULL, &dev, &vals, &err) == 0)
		defs = plan_defines(&s, &vals, &ndefs);
	ccache whole, one;
	ccache_init(&whole, "");
	ccache_init(&one, "");
	cc_source from;
	double ms;
	char *warn = NULL;
	const cunit *w = ccache_compile(&whole, &s, (const char *const *)defs, ndefs, arch, &from, &ms, &warn, &err);
	CHECK(w != NULL);
	if (!w)
		fprintf(stderr, "  %s: %s\n", path, err ? err : "?");
	for (int k = 0; w && k < s.nkernels; k++) {
		if (!spec_kernel_launchable(&s, k) || s.kernels[k].nsteps > 0)
			continue;
		char *why = NULL;
		char *cut = spec_reduce(&s, &k, 1, &why);
		const cunit *u = ccache_compile_some(&one, &s, &k, 1, (const char *const *)defs, ndefs, arch, &from, &ms,
		                                     &warn, &err);
		CHECK(u != NULL);
		if (!u) {
			fprintf(stderr, "  %s: %s: %s\n", path, s.kernels[k].name, err ? err : "?");
			free(err);
			err = NULL;
		}
		if (u && cut) /* cut: the unit holds what the kernel needs, not the file */
			CHECK(u->nk < w->nk || s.nkernels == 1);
		char *a = u ? disasm(w, s.kernels[k].name) : NULL, *b = u ? disasm(u, s.kernels[k].name) : NULL;
		CHECK(a && b && strcmp(a, b) == 0);
		if (a && b && strcmp(a, b) != 0) {
			fprintf(stderr, "  %s: %s: its SASS compiled alone differs from the whole file's\n", path,
			        s.kernels[k].name);
			if (getenv("REDUCE_SHOW"))
				fprintf(stderr, "whole:\n%s\nalone:\n%s\n", a, b);
		}
		(*nkernels)++;
		*ncut += cut != NULL;
		free(a);
		free(b);
		free(cut);
		free(why);
	}
	free(warn);
	free(err);
	ccache_free(&whole);
	ccache_free(&one);
	for (int i = 0; i < ndefs; i++)
		free(defs[i]);
	free(defs);
	symtab_free(&vals);
	spec_free(&s);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

TEST(shipped_same_sass)
{
	char *err = NULL, *tool = NULL, *why = NULL;
	if (nvrtc_load(&err) != 0 || sass_find_tool(SASS_NONE, &tool, &why) == SASS_NONE) {
		printf("reduce: skipped the shipped kernels' SASS: %s\n", err ? err : why);
		free(err);
		free(why);
		return;
	}
	free(tool);
	const char *only = getenv("REDUCE_ONLY"); /* one file, by its name */
	/* the shipped files, as MANIFEST lists them (a file of one's own in
	 * kernels_src/ is not one) */
	char *list = NULL;
	CHECK(read_file("MANIFEST", &list, NULL) == 0);
	if (!list)
		return;
	char **names = NULL;
	int n = 0;
	for (char *line = strtok(list, "\n"); line; line = strtok(NULL, "\n")) {
		size_t l = strlen(line);
		if (strncmp(line, "kernels_src/", 12) == 0 && l > 15 && strcmp(line + l - 3, ".cu") == 0 &&
		    (!only || strcmp(only, line + 12) == 0))
			PUSH(names, n, xstrdup(line));
	}
	free(list);
	qsort(names, (size_t)n, sizeof *names, cmp_names);
	int nk = 0, ncut = 0;
	for (int i = 0; i < n; i++) {
		shipped_file(names[i], &nk, &ncut);
		free(names[i]);
	}
	free(names);
	printf("reduce: %d shipped kernels compiled alone, %d of them cut from their file, the same SASS\n", nk, ncut);
	CHECK(only || nk >= 60);
	CHECK(only || ncut >= nk / 2);
}

/* The cache keys per kernel: each kernel's unit on its own, found again;
 * the whole file's unit, once cached, serves every kernel. */
TEST(cache_per_kernel)
{
	char *err = NULL;
	if (nvrtc_load(&err) != 0) {
		printf("reduce: skipped the cache test: %s\n", err);
		free(err);
		return;
	}
	spec s;
	if (parse_text(two, &s) != 0) {
		CHECK(0);
		return;
	}
	ccache c;
	ccache_init(&c, "");
	int ka = spec_kernel_find(&s, "a"), kc = spec_kernel_find(&s, "c");
	const char *defs[] = { "N=64" };
	cc_source from;
	double ms;
	char *warn = NULL;
	const cunit *u = ccache_compile_some(&c, &s, &ka, 1, defs, 1, "sm_90", &from, &ms, &warn, &err);
	CHECK(u && from == CC_COMPILED && u->nk == 1 && cunit_find(u, "a") >= 0 && cunit_find(u, "c") < 0);
	u = ccache_compile_some(&c, &s, &kc, 1, defs, 1, "sm_90", &from, &ms, &warn, &err);
	CHECK(u && from == CC_COMPILED && u->nk == 1 && cunit_find(u, "c") >= 0);
	CHECK(c.misses == 2);
	u = ccache_compile_some(&c, &s, &ka, 1, defs, 1, "sm_90", &from, &ms, &warn, &err);
	CHECK(u && from == CC_MEMORY && cunit_find(u, "a") >= 0 && c.misses == 2);
	/* another value: a's own unit again */
	const char *defs2[] = { "N=128" };
	u = ccache_compile_some(&c, &s, &ka, 1, defs2, 1, "sm_90", &from, &ms, &warn, &err);
	CHECK(u && from == CC_COMPILED && c.misses == 3);
	/* the whole file, then any kernel of it from that unit */
	u = ccache_compile(&c, &s, defs, 1, "sm_90", &from, &ms, &warn, &err);
	CHECK(u && from == CC_COMPILED && u->nk == 3);
	u = ccache_compile_some(&c, &s, &kc, 1, defs, 1, "sm_90", &from, &ms, &warn, &err);
	CHECK(u && from == CC_MEMORY && u->nk == 3); /* the whole file's unit, not c's own */
	if (err)
		fprintf(stderr, "  %s\n", err);
	free(err);
	free(warn);
	ccache_free(&c);
	spec_free(&s);
}

int main(void)
{
	RUN(blanks_others_keeps_lines);
	RUN(needed_kernels);
	RUN(fallbacks);
	RUN(cache_per_kernel);
	RUN(shipped_same_sass);
	return test_report("reduce");
}
