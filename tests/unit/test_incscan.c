/* test_incscan.c: headers found as NVRTC finds them, for the cache key. */
#include "incscan.h"
#include "test.h"
#include "util.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256];

static void put(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", root, rel);
	char *d = inc_dirname(p);
	mkdir_p(d, 0755);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(d);
	free(p);
}

static char *at(const char *rel)
{
	return xasprintf("%s/%s", root, rel);
}

/* The ref whose name is `name`, or NULL. */
static const inc_ref *ref(const inc_graph *g, const char *name)
{
	for (int i = 0; i < g->nrefs; i++)
		if (strcmp(g->refs[i].name, name) == 0)
			return &g->refs[i];
	return NULL;
}

/* Path (relative to root) that `name` resolved to, or "-". */
static const char *where(const inc_graph *g, const char *name)
{
	const inc_ref *r = ref(g, name);
	if (!r || !r->path)
		return "-";
	return r->path + strlen(root) + 1;
}

static const char *mem_fn(const char *name, void *ctx)
{
	(void)ctx;
	return strcmp(name, "assert.h") == 0 ? "#include <cuda/std/cassert>\n" : NULL;
}

TEST(forms)
{
	/* k/k.cu includes "sub/a.cuh", which includes "b.cuh": found next to
	 * a.cuh when there is one there, else along the -I list (k/ first) */
	put("k/k.cu", "");
	put("k/sub/a.cuh", "#include \"b.cuh\"\n#include <c.cuh>\n");
	put("k/b.cuh", "#define B 1\n");
	put("i1/c.cuh", "#define C 1\n");
	put("i2/c.cuh", "#define C 2\n");
	put("i2/d.cuh", "#define D 2\n");
	put("tk/cuda_fp16.h", "#pragma once\n");
	char *kdir = at("k"), *i1 = at("i1"), *i2 = at("i2"), *tk = at("tk"), *kpath = at("k/k.cu");
	inc_dir dirs[] = { { kdir, 0 }, { i1, 0 }, { i2, 0 }, { tk, 1 } };
	const char *src =
		"// #include \"commented.h\"\n"
		"/* #include <commented2.h>\n"
		"   still in the comment */\n"
		"#include \"sub/a.cuh\"\n"
		"  #  include <d.cuh>\n"
		"#include <cuda_fp16.h>\n"
		"#include <assert.h>\n"
		"#include \"nowhere.h\"\n"
		"#include MACRO_NAME\n"
		"const char *s = \"#include <in_string.h>\";\n";
	inc_graph g;
	char *err = NULL;
	CHECK(inc_scan(kpath, src, dirs, 4, mem_fn, NULL, &g, &err) == 0);
	CHECK(ref(&g, "commented.h") == NULL);
	CHECK(ref(&g, "commented2.h") == NULL);
	CHECK(ref(&g, "in_string.h") == NULL);
	CHECK_STREQ(where(&g, "sub/a.cuh"), "k/sub/a.cuh");
	CHECK(ref(&g, "sub/a.cuh") && ref(&g, "sub/a.cuh")->line == 4 && ref(&g, "sub/a.cuh")->kind == INC_USER);
	CHECK_STREQ(where(&g, "b.cuh"), "k/b.cuh");        /* not next to a.cuh: the -I list */
	CHECK_STREQ(where(&g, "c.cuh"), "i1/c.cuh");       /* angle: the first directory that has it */
	CHECK_STREQ(where(&g, "d.cuh"), "i2/d.cuh");
	CHECK(ref(&g, "d.cuh") && ref(&g, "d.cuh")->angle && ref(&g, "d.cuh")->line == 5);
	CHECK(ref(&g, "cuda_fp16.h") && ref(&g, "cuda_fp16.h")->kind == INC_TOOLKIT);
	CHECK(ref(&g, "assert.h") && ref(&g, "assert.h")->kind == INC_MEMORY);
	CHECK(ref(&g, "nowhere.h") && ref(&g, "nowhere.h")->kind == INC_MISSING);
	CHECK(g.nfiles == 5); /* k.cu, a.cuh, b.cuh, c.cuh, d.cuh; the toolkit's are not read */
	/* leading: everything up to the first non-include */
	CHECK(ref(&g, "cuda_fp16.h") && ref(&g, "cuda_fp16.h")->leading);
	CHECK(ref(&g, "nowhere.h") && ref(&g, "nowhere.h")->leading);
	CHECK(ref(&g, "b.cuh") && !ref(&g, "b.cuh")->leading); /* not in the kernel file */
	inc_graph_free(&g);

	/* a header next to the including one comes first for quoted includes */
	put("k/sub/b.cuh", "#define B 2\n");
	CHECK(inc_scan(kpath, src, dirs, 4, mem_fn, NULL, &g, &err) == 0);
	CHECK_STREQ(where(&g, "b.cuh"), "k/sub/b.cuh");
	inc_graph_free(&g);
	free(err);
	free(kdir);
	free(i1);
	free(i2);
	free(tk);
	free(kpath);
}

TEST(contents_hashed)
{
	put("h/k.cu", "");
	put("h/x.cuh", "#define SM 16\n");
	char *d = at("h"), *k = at("h/k.cu");
	inc_dir dirs[] = { { d, 0 } };
	inc_graph g1, g2;
	char *err = NULL;
	CHECK(inc_scan(k, "#include <x.cuh>\n", dirs, 1, NULL, NULL, &g1, &err) == 0);
	put("h/x.cuh", "#define SM 1024\n");
	CHECK(inc_scan(k, "#include <x.cuh>\n", dirs, 1, NULL, NULL, &g2, &err) == 0);
	CHECK(g1.nfiles == 2 && g2.nfiles == 2);
	if (g1.nfiles == 2 && g2.nfiles == 2)
		CHECK(memcmp(g1.files[1].sha, g2.files[1].sha, 32) != 0);
	inc_graph_free(&g1);
	inc_graph_free(&g2);
	free(d);
	free(k);
	free(err);
}

TEST(cycles_and_depth)
{
	put("c/k.cu", "");
	put("c/a.cuh", "#include \"b.cuh\"\n");
	put("c/b.cuh", "#include \"a.cuh\"\n#include \"b.cuh\"\n");
	char *d = at("c"), *k = at("c/k.cu");
	inc_dir dirs[] = { { d, 0 } };
	inc_graph g;
	char *err = NULL;
	CHECK(inc_scan(k, "#include \"a.cuh\"\n", dirs, 1, NULL, NULL, &g, &err) == 0);
	CHECK(g.nfiles == 3); /* each read once */
	CHECK(g.nrefs == 4);
	inc_graph_free(&g);
	free(d);
	free(k);
	free(err);
}

TEST(special_files)
{
	char *k = at("s/k.cu");
	put("s/k.cu", "");
	char *d = at("s");
	inc_dir dirs[] = { { d, 0 } };
	inc_graph g;
	char *err = NULL;
	/* in a comment: not read at all */
	CHECK(inc_scan(k, "// see #include \"../../../../../../../../dev/zero\"\n", dirs, 1, NULL, NULL, &g, &err) == 0);
	CHECK(g.nrefs == 0);
	inc_graph_free(&g);
	/* in code: refused, at the line that has it, without reading */
	CHECK(inc_scan(k, "\n#include \"/dev/zero\"\n", dirs, 1, NULL, NULL, &g, &err) == -1);
	CHECK(err && strstr(err, "s/k.cu:2:1: cannot include '/dev/zero': '/dev/zero' is a character device, not a file"));
	free(err);
	err = NULL;
	/* a FIFO: open() would wait for a writer */
	char *fifo = at("s/pipe.h");
	unlink(fifo);
	if (mkfifo(fifo, 0644) == 0) {
		CHECK(inc_scan(k, "#include \"pipe.h\"\n", dirs, 1, NULL, NULL, &g, &err) == -1);
		CHECK(err && strstr(err, "is a FIFO, not a file"));
		free(err);
		err = NULL;
	}
	unlink(fifo);
	free(fifo);
	/* a directory of that name is passed over, as compilers do */
	char *sub = at("s/dir.h");
	mkdir(sub, 0755);
	CHECK(inc_scan(k, "#include \"dir.h\"\n", dirs, 1, NULL, NULL, &g, &err) == 0);
	CHECK(g.nrefs == 1 && g.refs[0].kind == INC_MISSING);
	inc_graph_free(&g);
	free(sub);
	/* a header with a NUL byte: the compiler would read a truncated file */
	char *nul = at("s/nul.h");
	FILE *f = fopen(nul, "w");
	if (f) {
		fwrite("#define A 1\n#def\0ine B 2\n", 1, 25, f);
		fclose(f);
	}
	CHECK(inc_scan(k, "#include \"nul.h\"\n", dirs, 1, NULL, NULL, &g, &err) == -1);
	CHECK(err && strstr(err, "s/nul.h:2:5: a NUL byte"));
	free(err);
	err = NULL;
	free(nul);
	/* and one with 0xff, which NVRTC reads as the end of the file */
	put("s/ff.h", "#define A 1\n// caf\xff\n");
	CHECK(inc_scan(k, "#include \"ff.h\"\n", dirs, 1, NULL, NULL, &g, &err) == -1);
	CHECK(err && strstr(err, "s/ff.h:2:7: byte 0xff"));
	free(err);
	err = NULL;
	free(d);
	free(k);
}

TEST(big_header)
{
	char *k = at("b/k.cu"), *d = at("b"), *big = at("b/big.h");
	put("b/k.cu", "");
	FILE *f = fopen(big, "w");
	if (f) {
		fputs("#include \"never_read.h\"\n", f);
		if (ftruncate(fileno(f), (off_t)INC_SIZE_MAX + 10) != 0)
			CHECK(0);
		fclose(f);
	}
	inc_dir dirs[] = { { d, 0 } };
	inc_graph g;
	char *err = NULL;
	CHECK(inc_scan(k, "#include \"big.h\"\n", dirs, 1, NULL, NULL, &g, &err) == 0);
	CHECK(g.nfiles == 2 && g.files[1].big);
	CHECK(ref(&g, "never_read.h") == NULL); /* hashed by size and time, not read */
	inc_graph_free(&g);
	unlink(big);
	free(big);
	free(d);
	free(k);
	free(err);
}

int main(void)
{
	snprintf(root, sizeof root, "/tmp/cuplay-incscan-%ld", (long)getpid());
	RUN(forms);
	RUN(contents_hashed);
	RUN(cycles_and_depth);
	RUN(special_files);
	RUN(big_header);
	char *cmd = xasprintf("rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", root);
	free(cmd);
	return test_report("incscan");
}
