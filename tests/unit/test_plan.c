/* test_plan.c: the plan of a run on host data: chunks of `//@ streams`,
 * their sizes, offsets and grids, and the bytes copied over the bus. */
#include "plan.h"
#include "spec.h"
#include "test.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>

#define PATH "kernels_src/t.cu"

static const char vadd_src[] =
	"//@ param n = 1000003\n"
	"//@ param STREAMS = 3\n"
	"//@ buffer a float[n] random host pinned\n"
	"//@ buffer b float[n] random host pinned\n"
	"//@ buffer c float[n] zero output host pinned\n"
	"//@ buffer w float[4] one\n"
	"//@ grid cdiv(n, 256)\n"
	"//@ block 256\n"
	"//@ streams STREAMS split n\n"
	"__global__ void vadd(const float *a, const float *b, float *c, const float *w, int n) {}\n";

/* Builds the plan of kernel 0 of src with the overrides "NAME=VALUE" given;
 * NULL with *err on an error. */
static plan *build(const char *src, const char *const *set, int nset, char **err)
{
	spec s;
	if (spec_parse(PATH, src, &s, err) != 0)
		return NULL;
	symtab over = {0}, vals = {0};
	for (int i = 0; i < nset; i++) {
		const char *eq = strchr(set[i], '=');
		char *name = xstrndup(set[i], (size_t)(eq - set[i]));
		symtab_set(&over, name, (value){ 0, atoll(eq + 1), 0 }, 0);
		free(name);
	}
	devinfo dev = { .sm_count = 132, .warp_size = 32, .l2_bytes = 50 << 20 };
	plan *p = xcalloc(1, sizeof *p);
	if (plan_values(&s, &over, &dev, &vals, err) != 0 || plan_build(&s, 0, &vals, &dev, NULL, p, err) != 0) {
		free(p);
		p = NULL;
	}
	symtab_free(&over);
	symtab_free(&vals);
	spec_free(&s);
	return p;
}

/* The chunks cover [0, n) once, in order, sizes differing by at most one. */
static void check_cover(const plan_chunk *c, int k, uint64_t n)
{
	uint64_t at = 0, lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < k; i++) {
		CHECK(c[i].start == at);
		CHECK(c[i].len > 0);
		at += c[i].len;
		lo = c[i].len < lo ? c[i].len : lo;
		hi = c[i].len > hi ? c[i].len : hi;
	}
	CHECK(at == n);
	CHECK(hi - lo <= 1);
}

TEST(chunks)
{
	plan_chunk c[PLAN_MAX_CHUNKS];
	CHECK(plan_chunks(1000003, 3, c) == 0); /* a prime over 3 */
	CHECK(c[0].len == 333335 && c[1].len == 333334 && c[2].len == 333334);
	CHECK(c[1].start == 333335 && c[2].start == 666669);
	check_cover(c, 3, 1000003);
	static const uint64_t ns[] = { 1, 2, 7, 97, 1000, 65537, 1u << 20 };
	for (size_t i = 0; i < ARRAY_LEN(ns); i++)
		for (int k = 1; k <= PLAN_MAX_CHUNKS && (uint64_t)k <= ns[i]; k++) {
			CHECK(plan_chunks(ns[i], k, c) == 0);
			check_cover(c, k, ns[i]);
		}
	CHECK(plan_chunks(5, 6, c) == -1); /* a chunk would be empty */
	CHECK(plan_chunks(100, 0, c) == -1);
	CHECK(plan_chunks(1000, PLAN_MAX_CHUNKS + 1, c) == -1);
}

TEST(pipeline_plan)
{
	char *err = NULL;
	plan *p = build(vadd_src, NULL, 0, &err);
	CHECK(p != NULL);
	if (!p) {
		fprintf(stderr, "  %s\n", err);
		free(err);
		return;
	}
	CHECK(p->nchunks == 3);
	check_cover(p->chunks, 3, 1000003);
	/* the grid of each chunk is evaluated with n = its size */
	CHECK(p->chunks[0].grid[0] == (333335 + 255) / 256);
	CHECK(p->chunks[2].grid[0] == (333334 + 255) / 256);
	CHECK(p->launch.grid[0] == (1000003 + 255) / 256);
	CHECK(p->split_args == 1u << 4); /* vadd's 5th parameter is n */
	CHECK(p->bufs[0].host == BUF_HOST_PINNED && p->bufs[0].per == 1);
	CHECK(p->bufs[3].host == BUF_DEVICE && p->bufs[3].per == 0); /* whole, shared by every chunk */
	/* in: a, b and c (an output the kernel may read); out: c */
	CHECK_NEAR(p->bus_h2d, 3.0 * 1000003 * 4, 0);
	CHECK_NEAR(p->bus_d2h, 1.0 * 1000003 * 4, 0);
	p->bufs[2].unread = 1; /* the PTX says c is only written: not copied in */
	plan_bus(p);
	CHECK_NEAR(p->bus_h2d, 2.0 * 1000003 * 4, 0);
	free(p);

	/* STREAMS is a value like any other */
	const char *k8[] = { "STREAMS=8", "n=4096" };
	p = build(vadd_src, k8, 2, &err);
	CHECK(p && p->nchunks == 8 && p->chunks[7].start == 7 * 512 && p->chunks[7].grid[0] == 2);
	free(p);
	const char *k1[] = { "STREAMS=1" };
	p = build(vadd_src, k1, 1, &err);
	CHECK(p && p->nchunks == 1 && p->chunks[0].len == 1000003);
	free(p);
}

static void expect_plan_err(const char *src, const char *const *set, int nset, const char *want)
{
	char *err = NULL;
	plan *p = build(src, set, nset, &err);
	CHECK(p == NULL);
	CHECK_STREQ(err, want);
	free(p);
	free(err);
}

TEST(pipeline_errors)
{
	const char *many[] = { "STREAMS=65" }, *over[] = { "STREAMS=4", "n=3" }, *zero[] = { "STREAMS=0" };
	expect_plan_err(vadd_src, many, 1, PATH ":9:13: 65 streams: at most 64");
	expect_plan_err(vadd_src, over, 2, PATH ":9:13: 4 streams for n = 3: a chunk would be empty (at most n streams)");
	expect_plan_err(vadd_src, zero, 1, PATH ":9:13: the number of streams is 0, must be at least 1");
	expect_plan_err("//@ param n = 10\n//@ buffer a float[2*n+1] host\n//@ grid 1\n//@ block 1\n"
	                "//@ streams 2 split n\n__global__ void k(float *a, int n) {}\n", NULL, 0,
	                PATH ":2:20: host buffer 'a' has 21 elements, not a multiple of n = 10: 'streams' slices "
	                "it as n is cut");
	expect_plan_err("//@ param n = 10\n//@ param m = 10\n//@ buffer a float[n] host\n//@ grid 1\n//@ block 1\n"
	                "//@ streams 2 split n\n__global__ void k(float *a, int m) {}\n", NULL, 0,
	                PATH ":6:21: kernel 'k' does not take 'n', the size 'streams' cuts: each chunk's kernel "
	                "learns its size through it");
	/* a buffer of two values a unit is sliced two at a time */
	char *err = NULL;
	plan *p = build("//@ param n = 10\n//@ buffer a float[2*n] host\n//@ grid n\n//@ block 1\n"
	                "//@ streams 3 split n\n__global__ void k(float *a, int n) {}\n", NULL, 0, &err);
	CHECK(p && p->bufs[0].per == 2 && p->chunks[0].len == 4 && p->chunks[0].grid[0] == 4);
	free(p);
	free(err);
}

TEST(wall_cap)
{
	timing_opts t;
	memset(&t, 0, sizeof t);
	t.max_wall_s = 1.0;
	/* a 6 us kernel: the short floor; a 2 ms one: 100 medians; 20 ms: the cap */
	CHECK(timing_wall_cap(&t, 6e-6) == TIMING_SHORT_WALL_S);
	CHECK(fabs(timing_wall_cap(&t, 2e-3) - 0.2) < 1e-12);
	CHECK(timing_wall_cap(&t, 20e-3) == 1.0);
	CHECK(timing_wall_cap(&t, 0) == TIMING_SHORT_WALL_S);
	/* a user's wall under the floor wins */
	t.max_wall_s = 0.05;
	CHECK(timing_wall_cap(&t, 6e-6) == 0.05);
}

int main(void)
{
	RUN(chunks);
	RUN(pipeline_plan);
	RUN(pipeline_errors);
	RUN(wall_cap);
	return test_report("plan");
}
