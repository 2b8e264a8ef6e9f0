/* clockcheck.c: the kernel clock's calibration, run through the worker as
 * a built-in kernel file, kept per device in the cache. */
#include "clockcheck.h"
#include "run.h"
#include "clockcal.h"
#include "builtin.h"
#include "devcache.h"
#include "fileio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_READINGS 3

/* Two kernels of about 4 us: a spin of NS nanoseconds by the GPU's global
 * timer on every SM (nothing but time), and a copy of 4 MiB (memory). */
static const char check_source[] =
	"// clock_check.cu: the kernel clock against the profiler's duration, at a device's first use\n"
	"//@ param  N = SM_COUNT\n"
	"//@ param  NS = 4000\n"
	"//@ param  M = 262144\n"
	"//@ buffer out int[N] zero output\n"
	"//@ buffer src float[M * 4] zero\n"
	"//@ buffer dst float[M * 4] zero output\n"
	"//@ grid   N\n"
	"//@ block  128\n"
	"//@ check  none\n"
	"//@ kernel clock_copy grid cdiv(M, 256)\n"
	"//@ kernel clock_copy block 256\n"
	"__global__ void clock_spin(int *out, int N, int NS)\n"
	"{\n"
	"\tunsigned long long t0, t;\n"
	"\tasm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t0));\n"
	"\tdo {\n"
	"\t\tasm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n"
	"\t} while (t - t0 < (unsigned long long)NS);\n"
	"\tif (threadIdx.x == 0 && (int)blockIdx.x < N)\n"
	"\t\tout[blockIdx.x] = 1;\n"
	"}\n"
	"__global__ void clock_copy(const float *__restrict__ src, float *__restrict__ dst, int M)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < M)\n"
	"\t\treinterpret_cast<float4 *>(dst)[i] = reinterpret_cast<const float4 *>(src)[i];\n"
	"}\n";

char *clock_check_path(const app *a)
{
	const char *src[] = { check_source };
	return builtin_cache_path(a, &a->worker.dev, "clock", src, 1);
}

static int cmp_d(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

static void set_why(app *a, const char *why)
{
	free(a->clk_why);
	a->clk_why = why ? xstrdup(why) : NULL;
}

/* Kernel k by the kernel clock (the median of a timed run), and, with
 * profile set, by the profiler's duration (the median of CHECK_READINGS
 * profiled launches). 1 with the figure, 0 when it cannot be had
 * (a->clk_why says why), -1 when a run failed. */
static int reading(app *a, runctx *c, int k, int profile, plan *p, result *res, double *us)
{
	double ref[CHECK_READINGS];
	int nref = 0;
	char *err = NULL;
	timing_opts t = a->opt.topt;
	t.do_check = 0;
	t.do_time = !profile;
	t.flush = 1;
	t.batch = 1;
	t.clock = CLOCK_KERNEL;
	if (run_plan(a, c, k, &t, p, &err) != 0)
		goto fail;
	if (!profile) {
		if (run_exec(a, c, p, res, &err) != 0)
			goto fail;
		if (res->status == RES_INTERRUPTED)
			return 0;
		if (res->clock != CLOCK_KERNEL || res->nsamples < 1) {
			set_why(a, "timed with CUDA events here: there is no kernel clock to check");
			return 0;
		}
		stats st;
		stats_compute(res->samples_ms, res->nsamples, &st);
		*us = st.median * 1e3;
		return 1;
	}
	p->nmetrics = 1;
	snprintf(p->metrics[0], sizeof p->metrics[0], "%s", "gpu__time_duration.sum");
	for (int i = 0; i < CHECK_READINGS; i++) {
		if (run_exec(a, c, p, res, &err) != 0)
			goto fail;
		if (res->status == RES_INTERRUPTED)
			return 0;
		if (res->prof.status != PROF_OK || res->prof.n != 1) {
			set_why(a, res->prof.error[0] ? res->prof.error : "the profiler gave no duration");
			return 0;
		}
		ref[nref++] = res->prof.values[0] * 1e-3; /* ns */
	}
	qsort(ref, (size_t)nref, sizeof *ref, cmp_d);
	*us = nref % 2 ? ref[nref / 2] : (ref[nref / 2 - 1] + ref[nref / 2]) / 2;
	return 1;
fail:
	app_error(a, "checking the kernel clock: %s", err ? err : "the run failed");
	free(err);
	return -1;
}

/* Both kernels by the kernel clock first, then by the profiler (on a two
 * H200 host the first kernel-clock run after a profiling session once came
 * without its first record): 0 with a->clk set (or left unknown with a->clk_why), -1 when a
 * run failed. */
static int both(app *a, runctx *c, plan *p, result *res, void *ctx)
{
	(void)ctx;
	double kus[CAL_N], rus[CAL_N];
	for (int profile = 0; profile < 2; profile++)
		for (int k = 0; k < CAL_N; k++) {
			if (app_gave_way(a))
				return 0; /* measured after a result: a line typed comes first */
			int r = reading(a, c, k, profile, p, res, profile ? &rus[k] : &kus[k]);
			if (r <= 0)
				return r;
		}
	if (clockcal_set(&a->clk, kus, rus, CHECK_READINGS) != 0)
		set_why(a, "the readings were not times");
	return 0;
}

/* Measures the calibration as if its file were the loaded one, then puts
 * the user's file back. */
static int measure(app *a)
{
	return builtin_with(a, "checking the kernel clock", "<builtin>/clock_check.cu", check_source, both, NULL);
}

int clock_check_cached(app *a)
{
	if (a->clk_device == a->device + 1)
		return a->clk.known;
	char *path = clock_check_path(a);
	char *text = NULL;
	size_t len = 0;
	int ok = path && read_file(path, &text, &len) == 0 && clockcal_parse(text, &a->clk) == 0;
	if (ok) {
		a->clk_device = a->device + 1;
		set_why(a, NULL);
		if (getenv("CUPLAY_TRACE"))
			fprintf(stderr, "trace: clock: the kernel clock's check from %s (`roof` measures it again)\n", path);
	}
	free(text);
	free(path);
	return ok;
}

int clock_check(app *a, int again)
{
	if (!again && clock_check_cached(a))
		return 0;
	memset(&a->clk, 0, sizeof a->clk);
	set_why(a, NULL);
	a->clk_device = a->device + 1;
	if (getenv("CUPLAY_NO_COUNTERS") && strcmp(getenv("CUPLAY_NO_COUNTERS"), "0") != 0) {
		set_why(a, "counters not permitted (CUPLAY_NO_COUNTERS is set)");
		return 0;
	}
	uint64_t t0 = now_ns();
	if (measure(a) != 0)
		return -1;
	if (app_gave_way(a)) { /* not checked yet: checked again at the next prompt */
		memset(&a->clk, 0, sizeof a->clk);
		a->clk_device = 0;
		return 0;
	}
	if (a->clk.known) {
		char *path = clock_check_path(a);
		char *text = clockcal_format(&a->clk);
		if (path)
			devcache_save(a, path, text);
		free(text);
		free(path);
	}
	if (getenv("CUPLAY_TRACE")) {
		char *t = clock_check_text(a);
		fprintf(stderr, "trace: clock: %s (checked in %.1f ms)\n", t, ms_since(t0));
		free(t);
	}
	return 0;
}

char *clock_check_text(const app *a)
{
	if (a->clk_device != a->device + 1)
		return xstrdup("kernel clock: not checked yet (at the first run on this GPU, or `roof`)");
	if (!a->clk.known && a->clk_why)
		return xasprintf("kernel clock: not checked: %s", a->clk_why);
	return clockcal_text(&a->clk);
}

/* The kernel clock's check as a data field (null when not checked). */
void clock_offset_field(app *a, table *t, int row, int col)
{
	if (a->clk_device != a->device + 1 || !a->clk.known)
		return;
	if (a->opt.mask_times)
		table_set(t, row, col, "<t>");
	else
		table_num(t, row, col, a->clk.offset_us);
}

/* The kernel clock's check as a line of text (figures masked with --mask-times). */
void clock_line(app *a)
{
	if (a->opt.mask_times) {
		app_note(a, "kernel clock: %s", a->clk_device != a->device + 1 ? "not checked yet"
		                                 : a->clk.known ? "checked against the profiler's duration"
		                                                : "not checked");
		return;
	}
	char *t = clock_check_text(a);
	app_note(a, "%s", t);
	free(t);
}
