/* test_compile.c: the compile cache with real NVRTC: what the key covers,
 * precompiled headers, messages about kernel names, the cache directory. */
#include "ccache.h"
#include "ccdisk.h"
#include "pchdir.h"
#include "nvrtc.h"
#include "spec.h"
#include "test.h"
#include "util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[256];

static void put(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", root, rel);
	char *d = xstrdup(p);
	*strrchr(d, '/') = 0;
	mkdir_p(d, 0755);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(d);
	free(p);
}

static int parse(const char *rel, spec *s)
{
	char *p = xasprintf("%s/%s", root, rel);
	char *src = NULL, *err = NULL;
	int r = read_file(p, &src, NULL) == 0 ? spec_parse(p, src, s, &err) : -1;
	if (err)
		fprintf(stderr, "  %s\n", err);
	free(err);
	free(src);
	free(p);
	return r;
}

static int key_arch(ccache *c, const char *rel, const char *def, const char *arch, uint8_t key[32])
{
	spec s;
	if (parse(rel, &s) != 0)
		return -1;
	char *err = NULL;
	const char *defs[] = { def };
	int r = ccache_key(c, &s, defs, def ? 1 : 0, arch, key, &err);
	if (err)
		fprintf(stderr, "  %s\n", err);
	free(err);
	spec_free(&s);
	return r;
}

static int key_of(ccache *c, const char *rel, const char *def, uint8_t key[32])
{
	return key_arch(c, rel, def, "sm_90", key);
}

#define KERNEL_HEAD "//@ grid 1\n//@ block 1\n"
/* the buffer the kernels below take (after them: their lines keep their numbers) */
#define BUF_X "//@ buffer x float[1]\n"

/* The key covers every header read, in each form NVRTC finds it. */
TEST(key_covers_headers)
{
	put("k/k.cu", KERNEL_HEAD "//@ include inc\n#include <b.cuh>\n#include \"sub/a.cuh\"\n"
	              "__global__ void k(float *x) { __shared__ float t[SM + A]; x[0] = t[0]; }\n" BUF_X);
	put("k/inc/b.cuh", "#define SM 16\n");
	put("k/sub/a.cuh", "#include \"c.cuh\"\n");
	put("k/c.cuh", "#define A 1\n");
	ccache c;
	ccache_init(&c, "");
	uint8_t k0[32], k1[32], k2[32], k3[32], k4[32];
	CHECK(key_of(&c, "k/k.cu", NULL, k0) == 0);
	put("k/inc/b.cuh", "#define SM 1024\n");            /* <b.cuh> through //@ include */
	CHECK(key_of(&c, "k/k.cu", NULL, k1) == 0);
	CHECK(memcmp(k0, k1, 32) != 0);
	put("k/c.cuh", "#define A 2\n");                    /* nested, next to k.cu, through the -I list */
	CHECK(key_of(&c, "k/k.cu", NULL, k2) == 0);
	CHECK(memcmp(k1, k2, 32) != 0);
	put("k/sub/c.cuh", "#define A 3\n");                /* a new header that now comes first */
	CHECK(key_of(&c, "k/k.cu", NULL, k3) == 0);
	CHECK(memcmp(k2, k3, 32) != 0);
	CHECK(key_of(&c, "k/k.cu", NULL, k4) == 0);         /* nothing changed: the same key */
	CHECK(memcmp(k3, k4, 32) == 0);
	/* a directory added with -I changes the key */
	char *extra = xasprintf("%s/k/inc", root);
	char *err = NULL;
	CHECK(ccache_add_include(&c, extra, &err) == 0);
	CHECK(key_of(&c, "k/k.cu", NULL, k4) == 0);
	CHECK(memcmp(k3, k4, 32) != 0);
	CHECK(ccache_add_include(&c, "/nonexistent-dir", &err) == -1);
	CHECK_STREQ(err, "include directory '/nonexistent-dir' does not exist");
	free(err);
	free(extra);
	/* the same text under another name is another key (ptx names the file) */
	put("k/copy.cu", KERNEL_HEAD "//@ include inc\n#include <b.cuh>\n#include \"sub/a.cuh\"\n"
	                 "__global__ void k(float *x) { __shared__ float t[SM + A]; x[0] = t[0]; }\n" BUF_X);
	uint8_t kc[32];
	CHECK(key_of(&c, "k/copy.cu", NULL, kc) == 0);
	CHECK(memcmp(k4, kc, 32) != 0);
	/* the target is in the key: sm_90a code is not sm_90's */
	uint8_t ka[32], kb[32];
	CHECK(key_arch(&c, "k/copy.cu", NULL, "sm_90a", ka) == 0);
	CHECK(key_arch(&c, "k/copy.cu", NULL, "sm_100a", kb) == 0);
	CHECK(memcmp(kc, ka, 32) != 0 && memcmp(ka, kb, 32) != 0);
	ccache_free(&c);
}

/* A compile in the file's own words: errors at the user's lines, kernels
 * named as C++ names them. */
TEST(compile_messages)
{
	ccache c;
	ccache_init(&c, "");
	put("m/t.cu", KERNEL_HEAD "//@ define BS = 4\n//@ kernel red<BS, 3>\n"
	              "template <int B> __global__ void red(float *x) { x[0] = B; }\n" BUF_X);
	spec s;
	CHECK(parse("m/t.cu", &s) == 0);
	const char *defs[] = { "BS=4" };
	cc_source from;
	double ms;
	char *warn = NULL, *err = NULL;
	const cunit *u = ccache_compile(&c, &s, defs, 1, "sm_90", &from, &ms, &warn, &err);
	CHECK(u == NULL);
	char *want = xasprintf("%s/m/t.cu:4:12: error: cannot determine which instance of function "
	                       "template \"red\" is intended (in kernel 'red<BS,3>')", root);
	CHECK(err && strncmp(err, want, strlen(want)) == 0);
	if (err && strncmp(err, want, strlen(want)) != 0)
		fprintf(stderr, "  got: %s\n", err);
	CHECK(err && !strstr(err, "__nv_name_map") && !strstr(err, "(defines)"));
	free(want);
	free(err);
	err = NULL;
	spec_free(&s);

	put("m/ok.cu", KERNEL_HEAD "//@ define BS = 4\n//@ kernel red<BS>\n"
	               "namespace n { __global__ void k(float *x) { x[0] = 1; } }\n"
	               "template <int B> __global__ void red(float *x) { x[0] = B; }\n" BUF_X);
	CHECK(parse("m/ok.cu", &s) == 0);
	u = ccache_compile(&c, &s, defs, 1, "sm_90", &from, &ms, &warn, &err);
	CHECK(u != NULL);
	if (u) {
		CHECK(cunit_find(u, "n::k") >= 0 && cunit_find(u, "red<BS>") >= 0);
		int i = cunit_find(u, "red<BS>");
		CHECK(i >= 0 && strcmp(u->lowered[i], "_Z3redILi4EEvPf") == 0);
		CHECK(u->options && strstr(u->options, "-DBS=4"));
	}
	free(err);
	free(warn);
	spec_free(&s);
	ccache_free(&c);
}

/* The second compile of a CUB kernel with another define reads the
 * precompiled headers the first one made. */
TEST(precompiled_headers)
{
	char *err = NULL;
	if (nvrtc_load(&err) != 0 || !nvrtc_has_pch()) {
		printf("compile: skipped the precompiled-header test: %s\n", err ? err : "NVRTC before 12.8");
		free(err);
		return;
	}
	ccache c;
	ccache_init(&c, "");
	put("p/cub.cu", KERNEL_HEAD "//@ define BS = 128\n#include <cub/block/block_reduce.cuh>\n"
	                "__global__ void k(const float *in, float *out) {\n"
	                "  using R = cub::BlockReduce<float, BS>; __shared__ typename R::TempStorage t;\n"
	                "  float s = R(t).Sum(in[threadIdx.x]); if (threadIdx.x == 0) *out = s; }\n"
	                "//@ buffer in float[1]\n//@ buffer out float[1]\n");
	spec s;
	CHECK(parse("p/cub.cu", &s) == 0);
	const char *d1[] = { "BS=128" }, *d2[] = { "BS=256" };
	cc_source from;
	double ms1 = 0, ms2 = 0;
	char *warn = NULL;
	const cunit *u = ccache_compile(&c, &s, d1, 1, "sm_90", &from, &ms1, &warn, &err);
	CHECK(u && (u->pch == PCH_CREATED || u->pch == PCH_HEAP_GREW));
	u = ccache_compile(&c, &s, d2, 1, "sm_90", &from, &ms2, &warn, &err);
	CHECK(u && u->pch == PCH_USED && from == CC_COMPILED);
	if (err)
		fprintf(stderr, "  %s\n", err);
	printf("compile: a CUB kernel: %.0f ms, then %.0f ms with precompiled headers\n", ms1, ms2);
	/* they live in a directory of this process, gone with the cache */
	char *dir = c.pch_dir ? xstrdup(c.pch_dir) : NULL;
	CHECK(dir && access(dir, F_OK) == 0);
	free(err);
	free(warn);
	spec_free(&s);
	ccache_free(&c);
	CHECK(dir && access(dir, F_OK) != 0);
	free(dir);
}

/* A job that asks for precompiled headers without a directory of its own
 * gets none: NVRTC's default folder (/tmp/__nvrtc_auto_pch_PID_0) would
 * outlive the process. */
TEST(pch_needs_a_dir)
{
	char *err = NULL;
	if (nvrtc_load(&err) != 0 || !nvrtc_has_pch()) {
		free(err);
		return;
	}
	static const char *const names[] = { "k" }, *const hn[] = { "h.cuh" },
	                         *const ht[] = { "#define TWICE(x) (2 * (x))\n" },
	                         *const opts[] = { "-arch=sm_90" };
	nvrtc_job j = {
		.name = "nodir.cu", .src = "#include \"h.cuh\"\nextern \"C\" __global__ void k(float *x) { x[0] = TWICE(x[1]); }\n",
		.nheaders = 1, .header_names = hn, .header_texts = ht, .opts = opts, .nopts = 1,
		.exprs = names, .nexprs = 1, .pch = 1, .pch_dir = NULL,
	};
	nvrtc_out out = {0};
	CHECK(nvrtc_run(&j, &out, &err) == 0);
	if (err)
		fprintf(stderr, "  %s\n", err);
	CHECK(out.pch == PCH_NONE);
	char *dflt = xasprintf("/tmp/__nvrtc_auto_pch_%ld_0", (long)getpid());
	CHECK(access(dflt, F_OK) != 0);
	free(dflt);
	nvrtc_out_free(&out);
	free(err);
}

/* A killed cuplay's precompiled-header folder goes at the next start;
 * a live one's, and anything not named or owned as one, stays. */
TEST(pch_sweep)
{
	pid_t dead = fork();
	if (dead == 0)
		_exit(0);
	CHECK(dead > 0);
	waitpid(dead, NULL, 0);
	char *gone = xasprintf("sweep/cuplay-pch-%ld-abcdef", (long)dead);
	char *live = xasprintf("sweep/cuplay-pch-%ld-abcdef", (long)getppid());
	char *odd = xasprintf("sweep/cuplay-pch-%ld", (long)dead);      /* no suffix: not one */
	char *other = xasprintf("sweep/cuplay-pch-%ld-ab", (long)dead); /* a suffix unlike mkdtemp's */
	const char *dirs[] = { gone, live, odd, other };
	for (size_t i = 0; i < ARRAY_LEN(dirs); i++) {
		char *f = xasprintf("%s/x.pch", dirs[i]);
		put(f, "pch");
		free(f);
	}
	char *at = xasprintf("%s/sweep", root);
	/* a link named like a dead one's folder, to a live one's: not followed */
	char *link = xasprintf("%s/cuplay-pch-%ld-zzzzzz", at, (long)dead);
	char *to = xasprintf("%s/%s", root, live);
	CHECK(symlink(to, link) == 0);
	CHECK(ccache_sweep_pch(at) == 1);
	for (size_t i = 0; i < ARRAY_LEN(dirs); i++) {
		char *f = xasprintf("%s/%s/x.pch", root, dirs[i]);
		CHECK(access(f, F_OK) == (i == 0 ? -1 : 0));
		free(f);
	}
	CHECK(ccache_sweep_pch(at) == 0);
	free(to);
	free(link);
	free(at);
	free(gone);
	free(live);
	free(odd);
	free(other);
}

/* At most CCACHE_PCH_KEPT sets of precompiled headers stay on disk. */
TEST(pch_kept)
{
	char *err = NULL;
	if (nvrtc_load(&err) != 0 || !nvrtc_has_pch()) {
		free(err);
		return;
	}
	ccache c;
	ccache_init(&c, "");
	static const char *const heads[] = { "<stdio.h>", "<math.h>", "<float.h>", "<stdio.h>\n#include <math.h>" };
	for (size_t i = 0; i < ARRAY_LEN(heads); i++) {
		char *rel = xasprintf("kept/k%zu.cu", i);
		char *text = xasprintf(KERNEL_HEAD "#include %s\n__global__ void k(float *x) { x[0] = 1; }\n" BUF_X, heads[i]);
		put(rel, text);
		spec s;
		CHECK(parse(rel, &s) == 0);
		cc_source from;
		double ms;
		char *warn = NULL;
		const cunit *u = ccache_compile(&c, &s, NULL, 0, "sm_90", &from, &ms, &warn, &err);
		CHECK(u && u->pch == PCH_CREATED);
		spec_free(&s);
		free(warn);
		free(text);
		free(rel);
	}
	int n = 0;
	char *cmd = xasprintf("ls %s/*.pch 2>/dev/null | wc -l", c.pch_dir ? c.pch_dir : "/nonexistent");
	FILE *f = popen(cmd, "r");
	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		pclose(f);
	}
	CHECK(n == CCACHE_PCH_KEPT);
	free(cmd);
	free(err);
	ccache_free(&c);
}

/* XDG base directories: relative XDG_CACHE_HOME ignored; no directory made
 * under a HOME that does not exist; a note once when there is none. */
TEST(cache_dir)
{
	ccache c;
	char *home = xasprintf("%s/home", root);
	mkdir_p(home, 0755);
	setenv("HOME", home, 1);
	setenv("XDG_CACHE_HOME", "relative/cache", 1);
	ccache_init(&c, NULL);
	char *want = xasprintf("%s/.cache/cuplay", home);
	CHECK_STREQ(c.dir, want);
	free(want);
	ccache_free(&c);
	setenv("XDG_CACHE_HOME", "/abs/cache", 1);
	ccache_init(&c, NULL);
	CHECK_STREQ(c.dir, "/abs/cache/cuplay");
	ccache_free(&c);
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/nonexistent", 1);
	ccache_init(&c, NULL);
	CHECK(c.dir == NULL);
	CHECK_STREQ(c.off_why, "no cache directory (XDG_CACHE_HOME is not set, HOME is not a directory: "
	            "/nonexistent): compiled kernels are kept in memory only");
	/* said once, by the first compile */
	put("d/k.cu", KERNEL_HEAD "__global__ void k(float *x) { x[0] = 1; }\n" BUF_X);
	spec s;
	CHECK(parse("d/k.cu", &s) == 0);
	cc_source from;
	double ms;
	char *warn = NULL, *err = NULL;
	CHECK(ccache_compile(&c, &s, NULL, 0, "sm_90", &from, &ms, &warn, &err) != NULL);
	CHECK(warn && strstr(warn, "no cache directory"));
	free(warn);
	warn = NULL;
	const char *defs[] = { "X=1" };
	CHECK(ccache_compile(&c, &s, defs, 1, "sm_90", &from, &ms, &warn, &err) != NULL);
	CHECK(warn == NULL);
	struct stat st;
	CHECK(stat("/nonexistent", &st) != 0);
	spec_free(&s);
	free(err);
	ccache_free(&c);
	free(home);
}

/* Oldest first, under the bound; only cache entries. */
TEST(prune)
{
	char *dir = xasprintf("%s/prune", root);
	mkdir_p(dir, 0755);
	char name[512];
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof name, "prune/%064d.cubin", i);
		char buf[1001];
		memset(buf, 'x', 1000);
		buf[1000] = 0;
		put(name, buf);
		char *p = xasprintf("%s/%s", root, name);
		struct timespec ts[2] = { { 1000 + i, 0 }, { 1000 + i, 0 } };
		utimensat(AT_FDCWD, p, ts, 0);
		free(p);
	}
	put("prune/notes.txt", "not an entry, never removed");
	CHECK(ccdisk_prune(dir, 10000) == 0);
	CHECK(ccdisk_prune(dir, 2500) == 3);
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof name, "%s/prune/%064d.cubin", root, i);
		CHECK(access(name, F_OK) == (i < 3 ? -1 : 0));
	}
	CHECK(ccdisk_prune(dir, 1) == 1); /* the newest stays */
	snprintf(name, sizeof name, "%s/prune/%064d.cubin", root, 4);
	CHECK(access(name, F_OK) == 0);
	char *notes = xasprintf("%s/prune/notes.txt", root);
	CHECK(access(notes, F_OK) == 0);
	free(notes);
	free(dir);
}

TEST(user_log_names)
{
	const char *log =
		"k.cu (defines)(3): warning: creating precompiled header file \"/tmp/x.pch\"\n"
		"__nv_name_map(2): error: identifier \"nope\" is undefined\n"
		"  #pragma nv_mangled_name &nope\n"
		"                           ^\n"
		"\n"
		"__nv_name_map(2): error: Error in parsing name expression for lowered name lookup. Input name "
		"expression was: \" & nope\"\n"
		"  #pragma nv_mangled_name &nope\n"
		"\n"
		"k.cu(7): error: expected a \";\"\n"
		"  x = 1\n"
		"\n"
		"3 errors detected in the compilation of \"k.cu (defines)\".\n";
	const char *exprs[] = { "ok", "nope" }, *where[] = { "k.cu:4:1", "k.cu:9:12" };
	char *u = nvrtc_user_log_names(log, exprs, where, 2);
	CHECK_STREQ(u, "k.cu:9:12: error: identifier \"nope\" is undefined (in kernel 'nope')\n"
	               "k.cu:7: error: expected a \";\"\n"
	               "  x = 1");
	free(u);
}

int main(void)
{
	snprintf(root, sizeof root, "/tmp/cuplay-compile-%ld", (long)getpid());
	RUN(user_log_names);
	RUN(prune);
	RUN(pch_sweep);
	char *err = NULL;
	if (nvrtc_load(&err) != 0) {
		printf("compile: skipped the NVRTC tests: %s\n", err);
		free(err);
	} else {
		RUN(key_covers_headers);
		RUN(compile_messages);
		RUN(precompiled_headers);
		RUN(pch_kept);
		RUN(pch_needs_a_dir);
		RUN(cache_dir);
	}
	char *cmd = xasprintf("rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", root);
	free(cmd);
	return test_report("compile");
}
