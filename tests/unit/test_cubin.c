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
	return test_report("cubin");
}
