/* test_prof_mock.c: prof_collect's whole call sequence, and kclock's
 * kernel records, without a GPU, against a stand-in libcupti (cupti_mock.c beside this file), which the
 * test compiles into a temp .so with the C compiler ($CC or cc) and loads
 * through CUPLAY_CUPTI. Covers the happy path, every "unavailable" kind,
 * errors from CUPTI, an unknown metric, a failing launch, and that nothing
 * stays enabled, started or allocated afterwards. Skips, saying why, when
 * no compiler or source is at hand. */
#include "test.h"
#include "mockbuild.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kclock.h"
#include "prof.h"
#include "sass.h"
#include "util.h"


static void (*mock_state)(int *, int *, int *, int *);
static int (*mock_passes)(void);

static int launches, fail_launch;

static int launch(void *arg)
{
	(void)arg;
	launches++;
	return fail_launch;
}

static int prologues, fail_prologue;

static int prologue(void *arg)
{
	(void)arg;
	prologues++;
	return fail_prologue;
}

static const char *metrics[] = { "gpu__time_duration.sum", "dram__bytes_read.sum", "lts__t_sector_hit_rate.pct" };

/* one collection; checks that nothing is left enabled, started or held */
static prof_status collect(const char *const *m, int n, double *v, prof_info *info, char **err)
{
	CUcontext ctx = (CUcontext)(void *)0x1000;
	prof_status st = prof_collect(ctx, 3, m, n, launch, NULL, v, info, err);
	if (mock_state) {
		int e = -1, h = -1, s = -1, i = -1;
		mock_state(&e, &h, &s, &i);
		CHECK(e == 0 && h == 0 && s == 0);
	}
	return st;
}

/* the same, replayed by the caller: prologue and launch once a pass */
static prof_status collect_user(const char *const *m, int n, double *v, prof_info *info, char **err)
{
	CUcontext ctx = (CUcontext)(void *)0x1000;
	prof_status st = prof_collect_replay(ctx, 3, m, n, prologue, launch, NULL, v, info, err);
	if (mock_state) {
		int e = -1, h = -1, s = -1, i = -1;
		mock_state(&e, &h, &s, &i);
		CHECK(e == 0 && h == 0 && s == 0);
	}
	return st;
}

static void mock_env(const char *name)
{
	static const char *all[] = { "MOCK_SUBS", "MOCK_UNSUP", "MOCK_PRIV", "MOCK_DECODE", "MOCK_NORANGE", "MOCK_DISABLE",
	                             "MOCK_NO_USER", "MOCK_ACT_SUBS", "MOCK_ACT_LATE", "MOCK_ACT_SPLIT", "MOCK_ACT_NOCOPY", "MOCK_ONE_PASS" };
	for (size_t i = 0; i < ARRAY_LEN(all); i++)
		unsetenv(all[i]);
	if (name)
		setenv(name, "1", 1);
}

/* kclock against the mock's Activity API: refusal, records by name,
 * a late flush, lost records, stop and restart */
static void kclock_mock(void *h)
{
	void (*kernel)(const char *, unsigned long long, unsigned long long) = NULL;
	int (*on)(void) = NULL;
	void *p = dlsym(h, "mock_kernel");
	memcpy(&kernel, &p, sizeof p);
	p = dlsym(h, "mock_activity_on");
	memcpy(&on, &p, sizeof p);
	CHECK(kernel && on);
	if (!kernel || !on)
		return;
	char *why = NULL;
	double ms[4] = { 0 };

	/* the one-time set-up (the worker's start-up thread) records nothing
	 * and leaves recording off; a refusal reads as kclock_start's */
	mock_env("MOCK_ACT_SUBS");
	CHECK(kclock_prepare(&why) == -1);
	CHECK_STREQ(why, "kernel timestamps taken by another profiler (ncu, nsys or compute-sanitizer?): "
	                 "cuptiActivityEnable: CUPTI_ERROR_39");
	free(why);
	why = NULL;
	CHECK(!on());
	mock_env(NULL);
	CHECK(kclock_prepare(&why) == 0 && why == NULL);
	CHECK(!on());
	kernel("k", 0, 1000); /* not recording: not seen by the first take below */

	mock_env("MOCK_ACT_SUBS");
	CHECK(kclock_start(&why) == -1);
	CHECK_STREQ(why, "kernel timestamps taken by another profiler (ncu, nsys or compute-sanitizer?): "
	                 "cuptiActivityEnable: CUPTI_ERROR_39");
	free(why);
	why = NULL;
	CHECK(!on());

	mock_env(NULL);
	CHECK(kclock_start(&why) == 0 && why == NULL);
	CHECK(on());
	/* the flush kernel's record is dropped; the kernel's comes back in ms */
	kernel("cuplay_flush", 1000, 71000);
	kernel("_Z4vaddPKfS0_Pfi", 80000, 90500);
	CHECK(kclock_take("_Z4vaddPKfS0_Pfi", ms, 4, &why) == 1);
	CHECK_NEAR(ms[0], 0.0105, 1e-12);
	/* nothing ran: none, and no error */
	CHECK(kclock_take("_Z4vaddPKfS0_Pfi", ms, 4, &why) == 0 && why == NULL);
	/* in order, at most max; the rest are dropped */
	kernel("k", 0, 1000);
	kernel("k", 0, 2000);
	kernel("k", 0, 3000);
	CHECK(kclock_take("k", ms, 2, &why) == 2);
	CHECK_NEAR(ms[0], 0.001, 1e-12);
	CHECK_NEAR(ms[1], 0.002, 1e-12);
	CHECK(kclock_take("k", ms, 2, &why) == 0);
	/* records that need the forced flush */
	mock_env("MOCK_ACT_LATE");
	kernel("k", 5000, 9000);
	CHECK(kclock_take("k", ms, 1, &why) == 1);
	CHECK_NEAR(ms[0], 0.004, 1e-12);
	/* some records now, the rest only when forced: all of them, in order */
	mock_env("MOCK_ACT_SPLIT");
	kernel("k", 0, 1000);
	kernel("k", 0, 2000);
	kernel("k", 0, 3000);
	CHECK(kclock_take("k", ms, 3, &why) == 3);
	CHECK_NEAR(ms[0], 0.001, 1e-12);
	CHECK_NEAR(ms[2], 0.003, 1e-12);
	mock_env(NULL);
	/* a record that makes no sense counts as lost */
	kernel("k", 9000, 5000);
	CHECK(kclock_take("k", ms, 1, &why) == -1);
	CHECK_STREQ(why, "CUPTI lost kernel records (out of buffer space)");
	free(why);
	why = NULL;
	/* stopped: nothing is recorded, and a take says so */
	kclock_stop();
	CHECK(!on());
	kernel("k", 0, 1000);
	CHECK(kclock_take("k", ms, 1, &why) == -1);
	CHECK_STREQ(why, "kernel timestamps are not being recorded");
	free(why);
	why = NULL;
	kclock_stop(); /* twice is harmless */
	/* and it starts again */
	CHECK(kclock_start(&why) == 0);
	kernel("k", 0, 7000);
	CHECK(kclock_take("k", ms, 1, &why) == 1);
	CHECK_NEAR(ms[0], 0.007, 1e-12);
	kclock_stop();
}

/* ktrace against the mock: copies and concurrent kernels with their
 * streams and bytes, a refusal that leaves nothing enabled, and kclock's
 * recording refused while a timeline is, and the other way round */
static void ktrace_mock(void *h)
{
	void (*span)(int, unsigned, unsigned long long, unsigned long long, unsigned long long) = NULL;
	int (*on)(void) = NULL;
	void *p = dlsym(h, "mock_span");
	memcpy(&span, &p, sizeof p);
	p = dlsym(h, "mock_activity_on");
	memcpy(&on, &p, sizeof p);
	CHECK(span && on);
	if (!span || !on)
		return;
	char *why = NULL;
	tl_span s[8];
	int lost = -1;
	CHECK(ktrace_take(s, 8, &lost, &why) == -1);
	CHECK_STREQ(why, "the timeline is not being recorded");
	free(why);
	why = NULL;

	mock_env("MOCK_ACT_NOCOPY");
	CHECK(ktrace_start(&why) == -1);
	CHECK_STREQ(why, "cuptiActivityEnable (copies) failed: CUPTI_ERROR_27");
	free(why);
	why = NULL;
	CHECK(!on());
	mock_env(NULL);

	CHECK(ktrace_start(&why) == 0 && why == NULL);
	CHECK(on());
	CHECK(kclock_start(&why) == -1); /* one recording at a time */
	CHECK_STREQ(why, "a timeline is being recorded");
	free(why);
	why = NULL;
	span(1, 13, 1000, 5000, 4096);   /* H2D */
	span(-1, 13, 5200, 9000, 0);     /* kernel */
	span(2, 14, 6000, 8000, 2048);   /* D2H */
	span(8, 7, 9000, 9100, 64);      /* device to device: another copy */
	int n = ktrace_take(s, 8, &lost, &why);
	CHECK(n == 4 && lost == 0);
	if (n == 4) {
		CHECK(s[0].kind == SPAN_H2D && s[0].stream == 13 && s[0].start_ns == 1000 && s[0].end_ns == 5000 &&
		      s[0].bytes == 4096);
		CHECK(s[1].kind == SPAN_KERNEL && s[1].stream == 13 && s[1].end_ns == 9000);
		CHECK(s[2].kind == SPAN_D2H && s[2].stream == 14 && s[2].bytes == 2048);
		CHECK(s[3].kind == SPAN_COPY && s[3].stream == 7);
	}
	/* more than fit: the rest are counted */
	span(1, 13, 0, 10, 1);
	span(1, 13, 10, 20, 1);
	span(1, 13, 20, 30, 1);
	CHECK(ktrace_take(s, 2, &lost, &why) == 2 && lost == 1);
	ktrace_stop();
	CHECK(!on());
	ktrace_stop(); /* twice is harmless */
	/* kernel timing still works after a timeline, and refuses one meanwhile */
	CHECK(kclock_start(&why) == 0);
	CHECK(ktrace_start(&why) == -1);
	CHECK_STREQ(why, "kernel timestamps are being recorded");
	free(why);
	why = NULL;
	kclock_stop();
	CHECK(!on());
}

TEST(mock)
{
	char *cc = mock_find_cc();
	char tmp[] = "/tmp/cuplay-cupti-XXXXXX";
	if (!cc) {
		printf("prof_mock: skipped: no C compiler ($CC or cc)\n");
		return;
	}
	int made = mkdtemp(tmp) != NULL;
	CHECK(made);
	if (!made) {
		free(cc);
		return;
	}
	char *so = xasprintf("%s/libcupti_mock.so", tmp), *err = NULL;
	int rc = mock_build("prof_mock", cc, "cupti_mock.c", so);
	if (rc == -2)
		printf("prof_mock: skipped: cupti_mock.c not found (run from the repository root)\n");
	else
		CHECK(rc == 0);
	if (rc != 0)
		goto done;
	setenv("CUPLAY_CUPTI", so, 1);
	char *why = NULL;
	CHECK(prof_available(&why) == 1);
	free(why);
	CHECK(prof_library() && strcmp(prof_library(), so) == 0);
	void *h = dlopen(so, RTLD_NOW | RTLD_NOLOAD);
	CHECK(h != NULL);
	if (h) {
		void *p = dlsym(h, "mock_state");
		memcpy(&mock_state, &p, sizeof p);
		p = dlsym(h, "mock_passes");
		memcpy(&mock_passes, &p, sizeof p);
	}

	double v[3];
	prof_info info;

	/* another profiler attached: initialising fails, unavailable */
	mock_env("MOCK_SUBS");
	CHECK(collect(metrics, 3, v, &info, &err) == PROF_UNAVAILABLE);
	CHECK_STREQ(err, "hardware counters taken by another profiler: is cuplay running under ncu, nsys or "
	                 "compute-sanitizer? (cuptiProfilerInitialize: CUPTI_ERROR_39)");
	free(err);
	err = NULL;
	CHECK(launches == 0);

	/* the happy path: values in order, passes, chip, one launch */
	mock_env(NULL);
	CHECK(collect(metrics, 3, v, &info, &err) == PROF_OK);
	CHECK(err == NULL);
	CHECK(v[0] == 10 && v[1] == 20 && v[2] == 30);
	CHECK(info.passes == 3 && info.ranges == 1 && info.dropped == 0 && info.ms >= 0);
	CHECK_STREQ(info.chip, "GH100");
	CHECK(launches == 1);

	/* again: the profiler stays initialised, a second collection works */
	CHECK(collect(metrics, 1, v, NULL, &err) == PROF_OK);
	CHECK(launches == 2);

	/* user replay: the prologue, then the launch, once a pass */
	CHECK(collect_user(metrics, 3, v, &info, &err) == PROF_OK);
	CHECK(err == NULL);
	CHECK(v[0] == 10 && v[2] == 30);
	CHECK(info.user_replay == 1 && info.passes == 3 && info.launches == 3);
	CHECK(prologues == 3 && launches == 5);
	CHECK(mock_passes && mock_passes() == 3);
	/* a CUPTI that refuses user replay: kernel replay, the prologue once */
	mock_env("MOCK_NO_USER");
	CHECK(collect_user(metrics, 3, v, &info, &err) == PROF_OK);
	CHECK(info.user_replay == 0 && info.launches == 1);
	CHECK(prologues == 4 && launches == 6);
	/* a prologue that fails: PROF_LAUNCH, nothing launched, nothing left started */
	mock_env(NULL);
	fail_prologue = 1;
	CHECK(collect_user(metrics, 3, v, &info, &err) == PROF_LAUNCH);
	CHECK(err && strstr(err, "before pass 1") != NULL);
	free(err);
	err = NULL;
	CHECK(prologues == 5 && launches == 6);
	fail_prologue = 0;
	launches = 2;

	/* a pass a sample in one session (prof_collect_each): the prologue
	 * and one launch a sample, a value each; a config of several passes
	 * is refused before anything launches; a failing prologue stops it */
	{
		CUcontext ctx = (CUcontext)(void *)0x1000;
		double ev[4] = { 0 };
		int p0 = prologues, l0 = launches;
		mock_env("MOCK_ONE_PASS");
		CHECK(prof_collect_each(ctx, 3, metrics, 1, 4, prologue, launch, NULL, ev, &info, &err) == PROF_OK);
		CHECK(err == NULL && ev[0] == 10 && ev[3] == 10 && info.launches == 4 && info.ranges == 1);
		CHECK(prologues == p0 + 4 && launches == l0 + 4);
		int e = -1, hs = -1, s = -1, i = -1;
		if (mock_state) {
			mock_state(&e, &hs, &s, &i);
			CHECK(e == 0 && hs == 0 && s == 0);
		}
		mock_env(NULL);
		CHECK(prof_collect_each(ctx, 3, metrics, 1, 4, prologue, launch, NULL, ev, &info, &err) == PROF_ERROR);
		CHECK(err && strstr(err, "needs 3 passes") != NULL);
		free(err);
		err = NULL;
		CHECK(prologues == p0 + 4 && launches == l0 + 4);
		mock_env("MOCK_ONE_PASS");
		fail_prologue = 1;
		CHECK(prof_collect_each(ctx, 3, metrics, 1, 4, prologue, launch, NULL, ev, &info, &err) == PROF_LAUNCH);
		CHECK(err && strstr(err, "before sample 1") != NULL);
		free(err);
		err = NULL;
		fail_prologue = 0;
		CHECK(launches == l0 + 4);
		if (mock_state) {
			mock_state(&e, &hs, &s, &i);
			CHECK(e == 0 && hs == 0 && s == 0);
		}
		mock_env(NULL);
		launches = l0, prologues = p0; /* the counts the checks below go on from */
	}

	/* an unknown metric is named, and nothing launches */
	const char *bad[] = { "gpu__time_duration.sum", "dram__no_such_thing.sum" };
	CHECK(collect(bad, 2, v, &info, &err) == PROF_ERROR);
	CHECK_STREQ(err, "metric 'dram__no_such_thing.sum' does not exist on this GPU (GH100)");
	free(err);
	err = NULL;
	CHECK(launches == 2);

	/* not permitted */
	mock_env("MOCK_PRIV");
	CHECK(collect(metrics, 3, v, &info, &err) == PROF_UNAVAILABLE);
	CHECK_STREQ(err, "hardware counters not permitted for this user: run as root or set the driver option "
	                 "NVreg_RestrictProfilingToAdminUsers=0 (cuptiRangeProfilerEnable: CUPTI_ERROR_35)");
	free(err);
	err = NULL;

	/* a device or setup CUPTI does not support */
	mock_env("MOCK_UNSUP");
	CHECK(collect(metrics, 3, v, &info, &err) == PROF_UNAVAILABLE);
	CHECK_STREQ(err, "hardware counters not supported on this device: this virtual GPU (profiling disabled), WSL");
	free(err);
	err = NULL;

	/* a CUPTI error after the launch */
	mock_env("MOCK_DECODE");
	CHECK(collect(metrics, 3, v, &info, &err) == PROF_ERROR);
	CHECK_STREQ(err, "cuptiRangeProfilerDecodeData failed: CUPTI_ERROR_999");
	free(err);
	err = NULL;
	CHECK(launches == 3);

	/* nothing profiled */
	mock_env("MOCK_NORANGE");
	CHECK(collect(metrics, 3, v, &info, &err) == PROF_ERROR);
	CHECK(err && strncmp(err, "no kernel launch was profiled", 29) == 0);
	free(err);
	err = NULL;

	/* a failing teardown after good values is reported */
	mock_env("MOCK_DISABLE");
	CHECK(collect(metrics, 3, v, &info, &err) == PROF_ERROR);
	CHECK_STREQ(err, "cuptiRangeProfilerDisable failed: CUPTI_ERROR_999");
	free(err);
	err = NULL;

	/* the launch fails: PROF_LAUNCH, and the range is stopped */
	mock_env(NULL);
	fail_launch = 700;
	CHECK(collect(metrics, 3, v, &info, &err) == PROF_LAUNCH);
	CHECK_STREQ(err, "the kernel launch failed while profiling (700)");
	free(err);
	err = NULL;
	fail_launch = 0;
	CHECK(collect(metrics, 3, v, &info, &err) == PROF_OK);

	if (h) {
		kclock_mock(h);
		ktrace_mock(h);
	}

	prof_shutdown();
	if (mock_state) {
		int e, hh, s, i;
		mock_state(&e, &hh, &s, &i);
		CHECK(i == 0); /* initialised once, deinitialised once */
	}
	prof_shutdown(); /* twice is harmless */
	unsetenv("CUPLAY_CUPTI");
	mock_env(NULL);
done:
	unlink(so);
	rmdir(tmp);
	free(err);
	free(so);
	free(cc);
}

int main(void)
{
	RUN(mock);
	return test_report("prof_mock");
}
