/* test_lines_mock.c: the per-line run (sassprof.c) against a stand-in
 * libcupti (sassprof_mock.c beside this file, compiled into a temp .so and
 * loaded through CUPLAY_CUPTI), and the per-line view built from it
 * (record/lines.c): a plain kernel's lines, a line of an included header
 * inlined under the kernel's line, a sequence's two steps, a template's
 * two instantiations; its rendering as text (golden), its figures, the
 * line lookup of `expect ... line`. Checks that every refusal is one line
 * and leaves nothing configured or enabled. Skips, saying why, when no
 * compiler or source is at hand. */
#include "test.h"
#include "mockbuild.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cupti_sass_abi.h"
#include "lines.h"
#include "sassprof.h"
#include "util.h"

static void (*mock_state)(int *, int *, int *, int *);
static int launches, prologues, fail_at, syncs;

static int launch(void *arg)
{
	(void)arg;
	return ++launches == fail_at;
}

static int prologue(void *arg)
{
	(void)arg;
	prologues++;
	return 0;
}

static CUresult fake_sync(void)
{
	syncs++;
	return CUDA_SUCCESS;
}

static void mock_env(const char *name)
{
	static const char *const all[] = { "MOCK_PRIV", "MOCK_NOSAMPLE", "MOCK_NOMETRIC", "MOCK_NONUSER",
		                           "MOCK_ODDREASON" };
	for (size_t i = 0; i < ARRAY_LEN(all); i++)
		unsetenv(all[i]);
	if (name)
		setenv(name, "1", 1);
}

/* The module loaded again for the sampled launch: counted, with whether
 * PC sampling was on by then (it sees only code loaded after). */
static int reloads, reloads_sampling;
static int reload(void *arg, char *err, size_t n)
{
	(void)arg, (void)err, (void)n;
	int c = 0, s = 0, p = 0, i = 0;
	if (mock_state)
		mock_state(&c, &s, &p, &i);
	reloads++;
	reloads_sampling += p;
	return 0;
}

/* One collection; nothing may stay enabled after it (the device's
 * counter config stays set until sassprof_shutdown). */
static prof_status collect(sp_head *h, sp_pc **pcs)
{
	launches = prologues = reloads = reloads_sampling = 0;
	sp_launch l = { prologue, launch, NULL, reload };
	prof_status st = sassprof_collect((CUcontext)(void *)0x1000, 3, &l, 8, h, pcs);
	int c = -1, s = -1, p = -1, i = -1;
	if (mock_state) {
		mock_state(&c, &s, &p, &i);
		CHECK(s == 0 && p == 0);
	}
	return st;
}

static const sp_pc *find_pc(const sp_head *h, const sp_pc *pcs, const char *f, uint32_t pc)
{
	for (int i = 0; i < h->npc; i++)
		if (strcmp(h->funcs[pcs[i].func], f) == 0 && pcs[i].pc == pc)
			return &pcs[i];
	return NULL;
}

static void happy_path(void)
{
	sp_head h;
	sp_pc *pcs = NULL;
	CHECK(collect(&h, &pcs) == PROF_OK);
	CHECK(h.status == PROF_OK && h.samp_status == PROF_OK);
	CHECK(launches == 3 && prologues == 3); /* plain, patched, sampled */
	CHECK(reloads == 1 && (!mock_state || reloads_sampling == 1)); /* once, with sampling on */
	CHECK(h.npc == 6 && h.nfuncs == 2);
	const sp_pc *p = find_pc(&h, pcs, "k_main", 16);
	CHECK(p != NULL);
	if (p) {
		CHECK(p->m[SP_INST] == 110 && p->m[SP_GSEC] == 112 && p->m[SP_LOCAL] == 116);
		CHECK(p->samples == 40 && p->nreason == 2);
		CHECK(strcmp(h.reasons[p->reason[0]], "smsp__pcsamp_warps_issue_stalled_barrier") == 0);
		CHECK(p->reason_n[0] == 30 && p->reason_n[1] == 10);
	}
	p = find_pc(&h, pcs, "k_step2", 0); /* its samples came with the disable */
	CHECK(p && p->m[SP_INST] == 200 && p->samples == 5);
	CHECK(h.total_samples == 100 && h.nreasons == 3);
	CHECK(h.pc_records == 3 && h.record_samples == 100 && h.nonuser_samples == 0 && h.samp_pc_max == 32);
	CHECK(h.func_api[0] == (SP_BY_COUNTERS | SP_BY_SAMPLES) && h.func_api[1] == (SP_BY_COUNTERS | SP_BY_SAMPLES));
	CHECK(h.period == 8); /* as asked */
	free(pcs);
	/* the period of a launch's own: two million samples or so */
	CHECK(sassprof_period(0.001) == 5 && sassprof_period(0.3) == 6 && sassprof_period(5) == 10);
	CHECK(sassprof_period(1e6) == 20);
	/* a second collection in the process counts again: the config is kept */
	CHECK(collect(&h, &pcs) == PROF_OK);
	CHECK(h.status == PROF_OK && h.samp_status == PROF_OK && !h.error[0]);
	p = find_pc(&h, pcs, "k_main", 16);
	CHECK(p && p->m[SP_INST] == 110 && p->samples == 40);
	free(pcs);
}

static void refusals(void)
{
	sp_head h;
	sp_pc *pcs = NULL;
	mock_env("MOCK_PRIV");
	CHECK(collect(&h, &pcs) == PROF_OK); /* the samples still came */
	CHECK(h.status == PROF_UNAVAILABLE && h.samp_status == PROF_OK);
	CHECK(strstr(h.error, "not permitted") && strstr(h.error, "cuptiSassMetricsEnable") && !strchr(h.error, '\n'));
	free(pcs);
	mock_env("MOCK_NOSAMPLE");
	CHECK(collect(&h, &pcs) == PROF_OK);
	CHECK(h.status == PROF_OK && h.samp_status == PROF_UNAVAILABLE && strstr(h.samp_error, "not supported"));
	free(pcs);
	mock_env("MOCK_NOMETRIC");
	CHECK(collect(&h, &pcs) == PROF_OK);
	CHECK(h.status == PROF_UNAVAILABLE && strstr(h.error, "'smsp__sass_sectors_mem_local' does not exist"));
	free(pcs);
	mock_env("MOCK_NONUSER"); /* samples, but no record of them: said, not attributed */
	CHECK(collect(&h, &pcs) == PROF_OK);
	CHECK(h.samp_status == PROF_OK && h.total_samples == 75 && h.nonuser_samples == 70);
	CHECK(h.pc_records == 1 && h.record_samples == 5); /* the one Disable left */
	free(pcs);
	mock_env("MOCK_ODDREASON"); /* a reason not listed: the instruction's samples still count */
	CHECK(collect(&h, &pcs) == PROF_OK);
	const sp_pc *q = find_pc(&h, pcs, "k_main", 16);
	CHECK(q && q->samples == 40 && q->nreason == 1 && q->reason_n[0] == 10);
	free(pcs);
	mock_env(NULL);
	fail_at = 2; /* the patched launch */
	CHECK(collect(&h, &pcs) == PROF_LAUNCH);
	CHECK(h.status == PROF_LAUNCH && launches == 2);
	free(pcs);
	fail_at = 0;
}

/* The instructions of the mock's cubin, mapped through the correlation,
 * with the collection's counts. */
static int mapped(const sp_head *h, const sp_pc *pcs, lines_insn *ins)
{
	static const char cubin[64] = "not a cubin: the mock reads no byte";
	static const struct { const char *f; int npc; } fs[] = { { "k_main", 4 }, { "k_step2", 2 } };
	static char files[8][64];
	int n = 0;
	for (int f = 0; f < 2; f++)
		for (int i = 0; i < fs[f].npc + 1; i++) { /* one past the end: no line */
			char dir[64];
			int line = 0;
			char *err = NULL;
			int got = sassprof_line(cubin, sizeof cubin, fs[f].f, (uint32_t)i * 16, files[n], 64, dir, 64, &line, &err);
			CHECK(got == (i < fs[f].npc));
			free(err);
			if (got != 1)
				continue;
			lines_insn *in = &ins[n++];
			memset(in, 0, sizeof *in);
			in->func = f;
			in->pc = (uint32_t)i * 16;
			in->file = files[n - 1];
			in->line = line;
			in->c = h ? find_pc(h, pcs, fs[f].f, in->pc) : NULL;
		}
	return n;
}

static const char src[] =
	"//@ kernel k_main\n\n\n\n\n\n\n\n"
	"__global__ void k_main(float *a) {\n"    /* 9 */
	"  int i = threadIdx.x;\n"                 /* 10 */
	"  a[i * 32] = square(a[i]); // [gather]\n" /* 11 */
	"}\n\n\n\n\n\n\n"                          /* 12-18 */
	"__global__ void k_step2(float *a) {\n"    /* 19 */
	"  float x = a[threadIdx.x];\n"            /* 20 */
	"  a[0] = x;\n"                            /* 21 */
	"}\n";

static char *drawn(const lines_view *v, out_format f, lines_sort s, int sass)
{
	table t;
	lines_table(&t, v, -1, s, 0, sass, 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	table_print(&t, fp, f, 0, 0);
	fclose(fp);
	table_free(&t);
	return buf;
}

static const line_rec *rec(const lines_view *v, int func, const char *file, int line)
{
	for (int i = 0; i < v->n; i++)
		if (v->lines[i].func == func && v->lines[i].line == line && strcmp(v->lines[i].file, file) == 0)
			return &v->lines[i];
	return NULL;
}

/* A plain kernel's lines, an inlined header line, a sequence's steps. */
static void view(void)
{
	sp_head h;
	sp_pc *pcs = NULL;
	CHECK(collect(&h, &pcs) == PROF_OK);
	lines_insn ins[16];
	int n = mapped(&h, pcs, ins);
	CHECK(n == 6);
	const char *names[] = { "k_main", "k_step2" };
	lines_view v;
	lines_build(&v, ins, n, names, 2, "/src/k.cu", src, &h);
	CHECK(v.counted && v.sampled && v.n == 5 && v.total_samples == 100);
	const line_rec *r10 = rec(&v, 0, "k.cu", 10), *r11 = rec(&v, 0, "k.cu", 11), *rh = rec(&v, 0, "inc.h", 3);
	const line_rec *r20 = rec(&v, 1, "k.cu", 20);
	CHECK(r10 && r11 && rh && r20 && rec(&v, 1, "k.cu", 21));
	if (r10 && r11 && rh && r20) {
		CHECK(r10->ninsn == 1 && r10->m[SP_INST] == 100 && strcmp(r10->text, "int i = threadIdx.x;") == 0);
		CHECK(r11->ninsn == 2 && r11->m[SP_INST] == 240 && r11->m[SP_GSEC] == 244 && r11->samples == 40);
		CHECK(!r11->header && r11->under == 0);
		CHECK(rh->header && rh->under == 11 && rh->text == NULL && rh->samples == 55); /* inlined under 11 */
		CHECK(r20->m[SP_INST] == 200 && r20->samples == 5 && strcmp(r20->text, "float x = a[threadIdx.x];") == 0);
		double x = 0;
		CHECK(lines_value(&v, rh, "stall", &x) == 0 && fabs(x - 0.55) < 1e-12);
		CHECK(lines_value(&v, r11, "warps_full", &x) == 0 && fabs(x - 242.0 / (32 * 240)) < 1e-12);
		CHECK(lines_value(&v, r11, "shared_x", &x) == 0 && fabs(x - 248.0 / 250) < 1e-12);
		CHECK(lines_value(&v, r11, "nope", &x) == -1);
		CHECK(lines_figure(r11, LS_STALL) == 40 && lines_figure(rh, LS_INST) == 120);
	}
	int many = 0;
	CHECK(lines_find(&v, 0, "[gather]", &many) == r11 && !many); /* a marker comment */
	CHECK(lines_find(&v, 0, " = ", &many) == r10 && many); /* lines 10 and 11 */
	CHECK(lines_find(&v, 0, "nowhere", &many) == NULL);
	CHECK(lines_find(&v, 1, "float x", &many) == r20);
	lines_free(&v);
	free(pcs);
}

/* A template's two instantiations: the same source line, a record each. */
static void instantiations(void)
{
	lines_insn ins[4];
	memset(ins, 0, sizeof ins);
	for (int i = 0; i < 4; i++) {
		ins[i].func = i / 2;
		ins[i].pc = (uint32_t)(i % 2) * 16;
		ins[i].file = "k.cu";
		ins[i].line = 10;
	}
	const char *names[] = { "gemm<64>", "gemm<128>" };
	lines_view v;
	lines_build(&v, ins, 4, names, 2, "k.cu", src, NULL);
	CHECK(!v.counted && v.n == 2 && v.lines[0].func != v.lines[1].func);
	CHECK(v.lines[0].ninsn == 2 && v.lines[1].ninsn == 2 && v.lines[0].line == 10 && v.lines[1].line == 10);
	char *out = drawn(&v, FMT_TABLE, LS_STALL, 0);
	CHECK_STREQ(out, "kernel     line                source                instructions\n"
	                 "gemm<64>   10    ############  int i = threadIdx.x;  2\n"
	                 "gemm<128>  10    ############  int i = threadIdx.x;  2\n");
	free(out);
	lines_free(&v);
}

/* The view drawn: text (golden), and the records as JSON. */
static void rendering(void)
{
	sp_head h;
	sp_pc *pcs = NULL;
	CHECK(collect(&h, &pcs) == PROF_OK);
	lines_insn ins[16];
	int n = mapped(&h, pcs, ins);
	const char *names[] = { "k_main", "k_step2" };
	lines_view v;
	lines_build(&v, ins, n, names, 2, "/src/k.cu", src, &h);
	/* by stall samples: the inlined header line first, under line 11 */
	char *out = drawn(&v, FMT_TABLE, LS_STALL, 0);
	CHECK_STREQ(out,
		"kernel   line                       stalls  warp inst  warps full  global sectors  x ideal  shared wavefronts  x ideal  local sectors                        top stalls  source\n"
		"k_main   inc.h:3 <11  ############  55%           120          3%             122    0.99x                124    0.99x            126  long_scoreboard 91%, selected 9%  (header)\n"
		"k_main   11           ########+     40%           240          3%             244    0.99x                248    0.99x            252  barrier 75%, long_scoreboard 25%  a[i * 32] = square(a[i]); // [gather]\n"
		"k_step2  20           #             5%            200          3%             202    1.00x                204    1.00x            206                     selected 100%  float x = a[threadIdx.x];\n"
		"k_main   10                         0%            100          3%             102    0.99x                104    0.99x            106                                    int i = threadIdx.x;\n"
		"k_step2  21                         0%            210          3%             212    1.00x                214    1.00x            216                                    a[0] = x;\n");
	free(out);
	/* by warp instructions, each line's instructions under it */
	out = drawn(&v, FMT_TABLE, LS_INST, 1);
	CHECK_STREQ(out,
		"kernel   line                       stalls  warp inst  warps full  global sectors  x ideal  shared wavefronts  x ideal  local sectors                        top stalls  source\n"
		"k_main   11           ############  40%           240          3%             244    0.99x                248    0.99x            252  barrier 75%, long_scoreboard 25%  a[i * 32] = square(a[i]); // [gather]\n"
		"k_main     0010                     40%           110          3%             112    0.99x                114    0.99x            116\n"
		"k_main     0030                     0%            130          3%             132    0.99x                134    0.99x            136\n"
		"k_step2  21           ##########+   0%            210          3%             212    1.00x                214    1.00x            216                                    a[0] = x;\n"
		"k_step2    0010                     0%            210          3%             212    1.00x                214    1.00x            216\n"
		"k_step2  20           ##########    5%            200          3%             202    1.00x                204    1.00x            206                     selected 100%  float x = a[threadIdx.x];\n"
		"k_step2    0000                     5%            200          3%             202    1.00x                204    1.00x            206\n"
		"k_main   inc.h:3 <11  ######        55%           120          3%             122    0.99x                124    0.99x            126  long_scoreboard 91%, selected 9%  (header)\n"
		"k_main     0020                     55%           120          3%             122    0.99x                124    0.99x            126\n"
		"k_main   10           #####         0%            100          3%             102    0.99x                104    0.99x            106                                    int i = threadIdx.x;\n"
		"k_main     0000                     0%            100          3%             102    0.99x                104    0.99x            106\n");
	free(out);
	/* the records for a notebook: one object a line, typed */
	out = drawn(&v, FMT_JSON, LS_STALL, 0);
	int nrec = 0;
	for (const char *q = out; (q = strstr(q, "{\"type\": \"line\"")); q++)
		nrec++;
	CHECK(nrec == 5 && strncmp(out, "{\"cuplay\": ", 11) == 0);
	CHECK(strstr(out, "\"file\": \"inc.h\", \"line\": 3, \"under_line\": 11") != NULL);
	CHECK(strstr(out, "\"stall_frac\": 0.55, \"warp_inst\": 120,") != NULL);
	free(out);
	/* the lab report's source with a bar a line: the inlined header line
	 * under line 11 with 55 of its function's 95 samples, line 12 without code */
	sbuf html = { 0 };
	lines_html(&html, &v, 0, src);
	CHECK(strstr(html.s, "<tr><td class=\"n\">11</td><td><code>a[i * 32] = square(a[i]); // [gather]</code></td>"
	                  "<td><div class=\"bar\" style=\"width:42.1%\"></div></td><td class=\"n\">42.1%</td>") != NULL);
	CHECK(strstr(html.s, "<tr><td class=\"n\">inc.h:3</td><td><code>(inlined from a header)</code></td>"
	                  "<td><div class=\"bar\" style=\"width:57.9%\"></div>") != NULL);
	CHECK(strstr(html.s, "<tr class=\"q\"><td class=\"n\">12</td><td><code>}</code></td><td></td>") == NULL);
	CHECK(strstr(html.s, "<tr class=\"q\"><td class=\"n\">9</td>") == NULL); /* before the first line with code */
	sb_free(&html);
	lines_free(&v);
	free(pcs);
}

/* One instruction's records merged: the counters' and the samples'. */
TEST(merge)
{
	sp_pc q, a, b;
	memset(&q, 0, sizeof q);
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	a.pc = b.pc = 0x40;
	a.m[SP_INST] = 7;
	a.m[SP_SHWF] = 64;
	a.samples = 10, a.nreason = 2, a.reason[0] = 3, a.reason_n[0] = 6, a.reason[1] = 5, a.reason_n[1] = 4;
	b.m[SP_INST] = 1;
	b.samples = 9, b.nreason = 2, b.reason[0] = 5, b.reason_n[0] = 8, b.reason[1] = 9, b.reason_n[1] = 1;
	lines_merge_pc(&q, &a);
	lines_merge_pc(&q, &b);
	CHECK(q.pc == 0x40 && q.m[SP_INST] == 8 && q.m[SP_SHWF] == 64 && q.samples == 19);
	CHECK(q.nreason == 3 && q.reason[0] == 3 && q.reason_n[0] == 6 && q.reason[1] == 5 && q.reason_n[1] == 12);
	CHECK(q.reason[2] == 9 && q.reason_n[2] == 1);
}

TEST(lines_mock)
{
	char *cc = mock_find_cc();
	char tmp[] = "/tmp/cuplay-sassprof-XXXXXX";
	if (!cc) {
		printf("lines_mock: skipped: no C compiler ($CC or cc)\n");
		return;
	}
	if (!mkdtemp(tmp)) {
		CHECK(0);
		free(cc);
		return;
	}
	char *so = xasprintf("%s/libcupti_sass_mock.so", tmp);
	int rc = mock_build("lines_mock", cc, "sassprof_mock.c", so);
	if (rc == -2)
		printf("lines_mock: skipped: sassprof_mock.c not found (run from the repository root)\n");
	else
		CHECK(rc == 0);
	if (rc == 0) {
		setenv("CUPLAY_CUPTI", so, 1);
		cu.CtxSynchronize = fake_sync;
		void *dl = dlopen(so, RTLD_NOW);
		void *p = dl ? dlsym(dl, "mock_state") : NULL;
		memcpy(&mock_state, &p, sizeof p);
		CHECK(mock_state != NULL);
		happy_path();
		refusals();
		view();
		instantiations();
		rendering();
		sassprof_shutdown();
		int c, s, pp, i;
		if (mock_state) {
			mock_state(&c, &s, &pp, &i);
			CHECK(i == 0); /* initialised once, deinitialised once */
			CHECK(c == 0); /* the config unset at shutdown */
		}
		if (dl)
			dlclose(dl);
		unsetenv("CUPLAY_CUPTI");
	}
	unlink(so);
	rmdir(tmp);
	free(so);
	free(cc);
}

/* A header's line inlined at two calls (the line table's call sites): a
 * record under each calling line, drawn FILE:LINE @CALL; a header line
 * with no recorded site stays under the kernel line before it (<N). */
TEST(call_sites)
{
	static const char k[] = "__global__ void k(float *a) {\n" /* 1 */
	                        "  float s = get(a, 0);\n"          /* 2 */
	                        "  s += get(a, 1);\n"               /* 3 */
	                        "  a[0] = s;\n"                     /* 4 */
	                        "}\n";
	static const struct { int line; const char *file; int site; } at[] = {
		{ 2, "/src/k.cu", 0 }, { 7, "/inc/get.cuh", 2 }, { 3, "/src/k.cu", 0 }, { 7, "/inc/get.cuh", 2 },
		{ 7, "/inc/get.cuh", 3 }, { 4, "/src/k.cu", 0 }, { 9, "/inc/get.cuh", 0 },
	};
	lines_insn ins[7];
	memset(ins, 0, sizeof ins);
	for (int i = 0; i < 7; i++) {
		ins[i].pc = (uint32_t)i * 16;
		ins[i].file = at[i].file;
		ins[i].line = at[i].line;
		ins[i].site_file = at[i].site ? "/src/k.cu" : NULL;
		ins[i].site_line = at[i].site;
	}
	const char *names[] = { "k" };
	lines_view v;
	lines_build(&v, ins, 7, names, 1, "/src/k.cu", k, NULL);
	CHECK(v.n == 6);
	char *out = drawn(&v, FMT_TABLE, LS_ORDER, 0);
	CHECK_STREQ(out, "line                        source                instructions\n"
	                 "2             ######        float s = get(a, 0);  1\n"
	                 "get.cuh:7 @2  ############  (header)              2\n"
	                 "3             ######        s += get(a, 1);       1\n"
	                 "get.cuh:7 @3  ######        (header)              1\n"
	                 "4             ######        a[0] = s;             1\n"
	                 "get.cuh:9 <4  ######        (header)              1\n");
	free(out);
	/* a header's text, read where it was found: expect finds its line
	 * where no kernel line holds the text, the kernel's line else */
	static const char h[] = "\n\n\n\n\n\n  float v = p[i]; // [in header]\n\n  return v * 2;\n";
	lines_set_text(&v, "get.cuh", h);
	int many = 1;
	const line_rec *r = lines_find(&v, 0, "[in header]", &many);
	CHECK(r && r->header && r->line == 7 && !many);
	r = lines_find(&v, 0, "s", &many);
	CHECK(r && !r->header && r->line == 2 && many);
	r = lines_find(&v, 0, "return v * 2", &many);
	CHECK(r && r->header && r->line == 9 && r->under == 4 && !r->called);
	lines_free(&v);
}

int main(void)
{
	RUN(merge);
	RUN(lines_mock);
	RUN(call_sites);
	return test_report("lines_mock");
}
