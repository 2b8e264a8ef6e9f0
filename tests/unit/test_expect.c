/* test_expect.c: `expect A faster B [by X]` decided by the ratio's 95%
 * interval, on records made from synthetic samples (no GPU). */
#include "test.h"
#include "say.h"

#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "expect.h"
#include "explain.h"

/* A timed record of kernel k with values v: n samples around median m,
 * spread +-w (a repeating pattern, so the interval is known in advance). */
static void add_run(app *a, const char *k, const char *v, double m, double w, int n)
{
	measurement r;
	memset(&r, 0, sizeof r);
	r.file = xstrdup("t.cu");
	r.kernel = xstrdup(k);
	r.values = xstrdup(v);
	r.launched = 1;
	double *x = malloc(sizeof(double) * (size_t)n);
	for (int i = 0; i < n; i++)
		x[i] = m + w * ((i % 5) - 2) / 2;
	measure_set_samples(&r, x, n);
	free(x);
	keep_record(a, &r);
}

static int expect_line(app *a, const char *line)
{
	char *copy = xstrdup(line), *argv[16];
	int argc = 0;
	for (char *save = NULL, *t = strtok_r(copy, " ", &save); t && argc < 16; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	int rc = expect_run(a, argc, argv);
	free(copy);
	return rc;
}

TEST(faster_by_interval)
{
	app a;
	app_init(&a, "cuplay");
	a.gpu = 1;
	/* B 100 us, A1 98 us (2% faster), both +-0.1%; A2 99.8 (0.2% faster)
	 * with +-1% spread; A3 60 us */
	add_run(&a, "B", "N=1", 100, 0.2, 50);
	add_run(&a, "A1", "N=1", 98, 0.2, 50);
	add_run(&a, "A2", "N=1", 99.8, 2, 50);
	add_run(&a, "A3", "N=1", 60, 0.2, 50);
	CHECK(expect_line(&a, "expect A1 faster B") == 0);           /* interval above 1 */
	CHECK(expect_line(&a, "expect A2 faster B") == -1);          /* interval holds 1: cannot tell */
	CHECK(expect_line(&a, "expect B faster A2") == -1);
	CHECK(expect_line(&a, "expect A3 faster B by 1.6") == 0);    /* 1.667x, interval well above */
	CHECK(expect_line(&a, "expect A3 faster B by 1.7") == -1);   /* interval all below 1.7 */
	CHECK(expect_line(&a, "expect A3 faster B by 1.667") == -1); /* holds the bound */
	CHECK(expect_line(&a, "expect B slower A1") == 0);
	CHECK(expect_line(&a, "expect B faster A1") == -1);
	CHECK(a.expect_held == 3 && a.expect_failed == 5);
	app_free(&a);
}

/* A record explained: transpose_tiled at PAD=0 (32-way bank conflicts,
 * L1 the limiter) and PAD=1 (DRAM the limiter, no rule). */
static void add_explained(app *a, const char *v, int pad, int counters)
{
	add_run(a, "transpose_tiled", v, pad ? 0.181 : 0.294, 0.001, 20);
	measurement *m = &a->results.runs[a->results.nruns - 1];
	explain_in in;
	explain_in_init(&in);
	in.counters = counters;
	in.median_ms = m->st.median;
	in.empty_ms = 0.0029;
	in.bytes = 2.0 * 8192 * 8192 * 4;
	in.roof_gbps = 3300;
	double pad0[] = { 54.9, 27.1, 93.8, 47.2 }, pad1[] = { 89.2, 44.0, 52.3, 38.5 };
	memcpy(in.sol, pad ? pad1 : pad0, sizeof in.sol);
	in.shared_ld = in.shared_st = 8192.0 * 8192 / 32;
	in.bank_ld = pad ? 0.23e6 : 65.9e6;
	in.bank_st = 0;
	m->why = xcalloc(1, sizeof *m->why);
	explain_compute(&in, m->why);
}

TEST(diagnosis)
{
	app a;
	app_init(&a, "cuplay");
	a.gpu = 1;
	add_explained(&a, "PAD=0", 0, 1);
	add_explained(&a, "PAD=1", 1, 1);
	CHECK(expect_line(&a, "expect transpose_tiled[PAD=0] rule bank_conflicts") == 0);
	CHECK(expect_line(&a, "expect transpose_tiled[PAD=1] rule not bank_conflicts") == 0);
	CHECK(expect_line(&a, "expect transpose_tiled[PAD=1] rule bank_conflicts") == -1);
	CHECK(expect_line(&a, "expect transpose_tiled[PAD=0] bound memory") == 0);
	CHECK(expect_line(&a, "expect transpose_tiled[PAD=0] limiter l1") == 0);
	CHECK(expect_line(&a, "expect transpose_tiled[PAD=1] limiter dram") == 0);
	CHECK(expect_line(&a, "expect transpose_tiled[PAD=1] limiter l1") == -1);
	CHECK(expect_line(&a, "expect transpose_tiled bound compute") == -1); /* the latest: PAD=1 */
	CHECK(a.expect_held == 5 && a.expect_failed == 3);
	/* a misspelt name is an error of the line, not a failed expectation */
	CHECK(expect_line(&a, "expect transpose_tiled rule bank_conflict") == -1);
	CHECK(expect_line(&a, "expect transpose_tiled bound memory-bound") == -1);
	CHECK(a.expect_failed == 3);
	/* a kernel never explained: fails, saying to explain it */
	add_run(&a, "transpose_naive", "PAD=1", 0.5, 0.001, 20);
	CHECK(expect_line(&a, "expect transpose_naive bound memory") == -1);
	/* without counters: skipped, saying why */
	a.prof_why = xstrdup("counters not permitted");
	add_explained(&a, "PAD=0 N=1", 0, 0);
	int skipped = a.expect_skipped;
	CHECK(expect_line(&a, "expect transpose_tiled[N=1] rule bank_conflicts") == 0);
	CHECK(expect_line(&a, "expect transpose_tiled[N=1] limiter l1") == 0);
	CHECK(a.expect_skipped == skipped + 2);
	app_free(&a);
}

/* A `metrics` run after the timed ones: counters (short name and raw, as
 * look_record_metrics keeps them), no times */
static void add_metrics_run(app *a, const char *k, const char *v)
{
	measurement r;
	memset(&r, 0, sizeof r);
	r.file = xstrdup("t.cu");
	r.kernel = xstrdup(k);
	r.values = xstrdup(v);
	r.launched = 1;
	r.nmet = 2;
	r.met_names = xcalloc(3, sizeof *r.met_names);
	r.met_values = xcalloc(3, sizeof *r.met_values);
	r.met_names[0] = xstrdup("reduction_requests");
	r.met_names[1] = xstrdup("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum");
	r.met_values[0] = r.met_values[1] = 4096;
	keep_record(a, &r);
}

static int say_is(app *a, const char *text, const char *want)
{
	char *bad = NULL;
	char *got = say_expand(a, text, &bad);
	int ok = strcmp(got, want) == 0 && !bad;
	if (!ok)
		fprintf(stderr, "  say '%s': got '%s', want '%s'\n", text, got, want);
	free(got);
	free(bad);
	return ok;
}

/* Narration takes each kernel's latest timed run, past a later `metrics`
 * run; a figure that is not there is said in words. A counter asserted by
 * its raw name is found under the figure that shows it. */
TEST(say_after_metrics)
{
	app a;
	app_init(&a, "cuplay");
	a.gpu = 1;
	add_run(&a, "reduce_global", "N=1", 200, 0.2, 50);
	add_run(&a, "reduce_warp", "N=1", 50, 0.2, 50);
	add_metrics_run(&a, "reduce_global", "N=1");
	add_metrics_run(&a, "reduce_warp", "N=1");
	CHECK(say_is(&a, "warp: {speedup reduce_warp reduce_global} over the baseline", "warp: 4.00x over the baseline"));
	CHECK(say_is(&a, "{median reduce_warp}", "50.0 ms")); /* samples in ms */
	CHECK(say_is(&a, "{roof reduce_shared}", "(no timed run of reduce_shared)"));
	CHECK(say_is(&a, "{speedup reduce_shared reduce_global}!", "(no timed run of reduce_shared)!"));
	CHECK(say_is(&a, "{speedup reduce_warp reduce_first}", "(no timed run of reduce_first)"));
	CHECK(say_is(&a, "{{roof}} {gbps reduce_warp[N=2]}", "{roof} (no timed run of reduce_warp[N=2])"));
	a.opt.mask_times = 1;
	CHECK(say_is(&a, "{roof reduce_warp} {roof reduce_x}", "<t> (no timed run of reduce_x)"));
	a.opt.mask_times = 0;
	/* the counter by either name */
	CHECK(expect_line(&a, "expect reduce_warp metric reduction_requests < 10000") == 0);
	CHECK(expect_line(&a, "expect reduce_warp metric l1tex__t_requests_pipe_lsu_mem_global_op_red.sum < 10000") == 0);
	CHECK(expect_line(&a, "expect reduce_warp metric reduction_requests > 10000") == -1);
	app_free(&a);
}

int main(void)
{
	RUN(faster_by_interval);
	RUN(diagnosis);
	RUN(say_after_metrics);
	return test_report("expect");
}
