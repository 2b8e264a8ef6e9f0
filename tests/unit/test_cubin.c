/* test_cubin.c: resources read from the cubin agree with the ptxas report,
 * for every kernel of every kernel file MANIFEST lists (NVRTC, no GPU
 * needed), compiled with the prelude a run has. Files of one's own in
 * kernels_src/ are not read. */
#include "test.h"
#include "cubin.h"
#include "nvrtc.h"
#include "prelude.h"
#include "spec.h"
#include "target.h"
#include "toolkit.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static void check_file(const char *path)
{
	char *src = NULL, *err = NULL;
	spec s;
	if (read_file(path, &src, NULL) != 0 || spec_parse(path, src, &s, &err) != 0) {
		CHECK(!"kernel file parses");
		free(src);
		free(err);
		return;
	}
	/* the file's default defines */
	char *opts[32];
	int n = 0;
	/* the file's `//@ arch` target as an sm_90 device resolves it (sm_90a
	 * for wgmma), else sm_90 */
	char arch[16] = "sm_90";
	if (s.narch)
		target_resolve(&s.arch[0], 90, arch, sizeof arch);
	opts[n++] = xasprintf("-arch=%s", arch);
	opts[n++] = xstrdup("--ptxas-options=-v");
	opts[n++] = xstrdup("-Ikernels_src");
	/* what nvcc's implicit cuda_runtime.h gives (INFINITY, M_PI), as a run has it */
	opts[n++] = xstrdup("-include=" PRELUDE_NAME);
	/* the toolkit's headers, as a run has them (cuda_fp16.h, mma.h,
	 * cooperative_groups.h) */
	int ninc = 0;
	const char *why = NULL;
	const char *const *inc = toolkit_include_dirs(&ninc, &why);
	for (int i = 0; i < ninc && n < 8; i++)
		opts[n++] = xasprintf("-I%s", inc[i]);
	for (int i = 0; i < s.nvars && n < 30; i++)
		if (s.vars[i].is_define)
			opts[n++] = xasprintf("-D%s=%s", s.vars[i].name, s.vars[i].value.text);
	if (s.nlinks)
		opts[n++] = xstrdup("-rdc=true");
	const char *names[64];
	int nn = 0;
	for (int i = 0; i < s.nkernels && nn < 64; i++)
		if (!s.kernels[i].is_template && !s.kernels[i].nsteps) /* a sequence is its steps */
			names[nn++] = s.kernels[i].name;
	/* the stand-ins for the C headers NVRTC lacks (cuda.h for CUtensorMap),
	 * in memory as a run has them */
	int nsh;
	const toolkit_shim *sh = toolkit_shims(&nsh);
	const char *hn[33] = { PRELUDE_NAME }, *ht[33] = { prelude_text() };
	int nh = 1;
	for (int i = 0; i < nsh && nh < 33; i++, nh++)
		hn[nh] = sh[i].name, ht[nh] = sh[i].text;
	nvrtc_job job = { .name = path, .src = s.src, .nheaders = nh, .header_names = hn,
		          .header_texts = ht, .opts = (const char *const *)opts, .nopts = n, .exprs = names,
		          .nexprs = nn };
	nvrtc_out o;
	if (nvrtc_run(&job, &o, &err) == 0) {
		for (int i = 0; i < nn; i++) {
			kres a, b;
			int have_log = ptxas_parse(o.log, o.lowered[i], &a) == 0;
			CHECK(cubin_resources(o.cubin, o.cubin_len, o.lowered[i], 90, &b) == 0);
			if (!have_log) {
				printf("  %s %s: no ptxas report from this NVRTC; cubin says %d registers\n", path, names[i], b.regs);
				continue;
			}
			if (a.regs != b.regs || a.smem != b.smem || a.stack != b.stack)
				printf("  %s %s: ptxas %d regs %d smem %d stack, cubin %d regs %d smem %d stack\n", path,
				       names[i], a.regs, a.smem, a.stack, b.regs, b.smem, b.stack);
			CHECK(a.regs == b.regs);
			if (!s.nlinks) /* relocatable code: shared memory is placed at link time */
				CHECK(a.smem == b.smem);
			CHECK(a.stack == b.stack);
			CHECK(b.spill_st == -1 && b.spill_ld == -1);
		}
		nvrtc_out_free(&o);
	} else {
		printf("  %s: %s\n", path, err);
		CHECK(!"compiles");
		free(err);
	}
	for (int i = 0; i < n; i++)
		free(opts[i]);
	spec_free(&s);
	free(src);
}

/* The kernel files MANIFEST lists, one path a line (# comments), as
 * `make test` and `make install` read it. */
TEST(every_kernel)
{
	char *man = NULL;
	CHECK(read_file("MANIFEST", &man, NULL) == 0);
	int nfiles = 0;
	for (char *line = man, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		size_t l = strlen(line);
		while (l && (line[l - 1] == ' ' || line[l - 1] == '\t' || line[l - 1] == '\r'))
			line[--l] = '\0';
		if (l > 3 && strncmp(line, "kernels_src/", 12) == 0 && strcmp(line + l - 3, ".cu") == 0) {
			check_file(line);
			nfiles++;
		}
	}
	CHECK(nfiles > 0);
	free(man);
}

TEST(not_a_cubin)
{
	kres r;
	CHECK(cubin_resources("hello", 5, "k", 90, &r) != 0);
	char junk[256] = "\177ELF\2\1";
	CHECK(cubin_resources(junk, sizeof junk, "k", 90, &r) != 0);
}

/* The line table of a kernel that inlines a header's function from two
 * lines, one of which inlines another: each header row's outermost call
 * site is the kernel's line that called it, the nested one's too. */
static const char inl_h[] =
	"__device__ __forceinline__ float sq(float x)\n"            /* 1 */
	"{\n"
	"\treturn x * x + 1.0f;\n"                                  /* 3 */
	"}\n"
	"__device__ __forceinline__ float get(const float *p, int i)\n"
	"{\n"
	"\tfloat v = p[i];\n"                                       /* 7 */
	"\treturn sq(v) * 2.0f;\n"                                  /* 8 */
	"}\n";
static const char inl_src[] =
	"#include \"inl.cuh\"\n"                                     /* 1 */
	"extern \"C\" __global__ void k(const float *a, float *b, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\tb[i] = get(a, i);\n"                                    /* 6 */
	"\tif (i + 1 < n)\n"
	"\t\tb[i] += get(a, i + 1);\n"                               /* 8 */
	"}\n"
	"extern \"C\" __global__ void other(float *b) { b[threadIdx.x] = get(b, 1); }\n"; /* 10 */

TEST(inlined_call_sites)
{
	const char *opts[] = { "-arch=sm_90", "-lineinfo" };
	const char *hn[] = { "inl.cuh" }, *ht[] = { inl_h }, *names[] = { "k", "other" };
	nvrtc_job job = { .name = "inl.cu", .src = inl_src, .nheaders = 1, .header_names = hn, .header_texts = ht,
	                  .opts = opts, .nopts = 2, .exprs = names, .nexprs = 2 };
	nvrtc_out o;
	char *err = NULL;
	if (nvrtc_run(&job, &o, &err) != 0) {
		printf("  inl.cu: %s\n", err);
		CHECK(!"compiles");
		free(err);
		return;
	}
	cubin_lines t;
	CHECK(cubin_line_table(o.cubin, o.cubin_len, "k", &t) == 0);
	int header_rows = 0, at6 = 0, at8 = 0, nested = 0, plain_sites = 0;
	for (int i = 0; i < t.n; i++) {
		const cubin_row *r = &t.rows[i];
		CHECK(r->file >= 0 && r->file < t.nfiles);
		if (i > 0)
			CHECK(t.rows[i - 1].pc <= r->pc);
		const char *f = r->file >= 0 ? t.files[r->file] : "";
		int in_header = strstr(f, "inl.cuh") != NULL;
		if (!in_header) {
			plain_sites += r->site_line != 0; /* the kernel's own lines are not inlined */
			CHECK(r->line >= 2 && r->line <= 9);
			continue;
		}
		header_rows++;
		CHECK(r->site_line == 6 || r->site_line == 8);
		CHECK(r->site_file >= 0 && strstr(t.files[r->site_file], "inl.cu") && !strstr(t.files[r->site_file], "cuh"));
		at6 += r->site_line == 6;
		at8 += r->site_line == 8;
		nested += r->line == 3;
		CHECK(cubin_line_at(&t, r->pc) != NULL && cubin_line_at(&t, r->pc)->pc == r->pc);
	}
	CHECK(plain_sites == 0);
	CHECK(header_rows > 0 && at6 > 0 && at8 > 0 && nested > 0);
	CHECK(cubin_line_at(&t, 0) != NULL);
	cubin_lines_free(&t);
	/* the other kernel's sequence: its own rows, lines 10 and the header's */
	CHECK(cubin_line_table(o.cubin, o.cubin_len, "other", &t) == 0);
	for (int i = 0; i < t.n; i++)
		CHECK(t.rows[i].line == 10 || (t.rows[i].site_line == 10 && strstr(t.files[t.rows[i].file], "inl.cuh")));
	cubin_lines_free(&t);
	CHECK(cubin_line_table(o.cubin, o.cubin_len, "nosuch", &t) != 0);
	/* every prefix and every byte changed: no crash, no read past the end */
	unsigned char *c = xmalloc(o.cubin_len);
	for (size_t cut = 0; cut < o.cubin_len; cut += 7) {
		memcpy(c, o.cubin, cut);
		if (cubin_line_table(c, cut, "k", &t) == 0)
			cubin_lines_free(&t);
	}
	for (size_t at = 0; at < o.cubin_len; at += 3) {
		memcpy(c, o.cubin, o.cubin_len);
		c[at] ^= 0xa5;
		if (cubin_line_table(c, o.cubin_len, "k", &t) == 0)
			cubin_lines_free(&t);
	}
	free(c);
	/* without -lineinfo: no line table */
	job.nopts = 1;
	nvrtc_out_free(&o);
	if (nvrtc_run(&job, &o, &err) == 0) {
		CHECK(cubin_line_table(o.cubin, o.cubin_len, "k", &t) != 0);
		nvrtc_out_free(&o);
	} else {
		free(err);
		CHECK(!"compiles without -lineinfo");
	}
}

int main(void)
{
	char *err = NULL;
	if (nvrtc_load(&err) != 0) {
		printf("cubin: skipped: %s\n", err);
		free(err);
		return 0;
	}
	RUN(every_kernel);
	RUN(not_a_cubin);
	RUN(inlined_call_sites);
	return test_report("cubin");
}
