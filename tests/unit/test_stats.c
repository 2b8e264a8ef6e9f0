/* test_stats.c: summary statistics and the stopping rule. */
#include "test.h"

#include <string.h>

#include "stats.h"

TEST(median)
{
	stats s;
	double odd[3] = { 3, 1, 2 };
	stats_compute(odd, 3, &s);
	CHECK(s.n == 3 && s.median == 2 && s.min == 1 && s.max == 3 && s.mean == 2);
	CHECK(odd[0] == 3 && odd[1] == 1 && odd[2] == 2); /* input untouched */

	double even[4] = { 4, 1, 3, 2 };
	stats_compute(even, 4, &s);
	CHECK(s.median == 2.5 && s.min == 1 && s.max == 4);

	double one[1] = { 0.75 };
	stats_compute(one, 1, &s);
	CHECK(s.n == 1 && s.median == 0.75 && s.min == 0.75 && s.max == 0.75);
	CHECK(s.stdev == 0 && s.noise == 0);

	stats_compute(NULL, 0, &s);
	CHECK(s.n == 0 && s.median == 0 && s.noise == 0);
}

TEST(noise)
{
	stats s;
	double x[8] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	stats_compute(x, 8, &s);
	CHECK_NEAR(s.mean, 5, 1e-12);
	CHECK_NEAR(s.stdev, sqrt(32.0 / 7), 1e-12); /* sample stdev */
	CHECK_NEAR(s.noise, sqrt(32.0 / 7) / 5, 1e-12);
	CHECK_NEAR(s.median, 4.5, 0);

	double c[5] = { 1.5, 1.5, 1.5, 1.5, 1.5 };
	stats_compute(c, 5, &s);
	CHECK(s.stdev == 0 && s.noise == 0 && s.median == 1.5);
}

static stop_rule opts(int min_reps, int max_reps, double noise, double min_t, double max_t)
{
	stop_rule t;
	memset(&t, 0, sizeof t);
	t.min_reps = min_reps;
	t.max_reps = max_reps;
	t.noise_target = noise;
	t.min_time_s = min_t;
	t.max_time_s = max_t;
	return t;
}

TEST(stop_rule)
{
	stop_rule t = opts(10, 100, 0.005, 0.5, 5);
	double flat[100], noisy[100];
	for (int i = 0; i < 100; i++) {
		flat[i] = 1.0;
		noisy[i] = i % 2 ? 1.0 : 1.5; /* noise ~ 0.2 */
	}
	CHECK(!stats_should_stop(flat, 5, 10.0, &t));    /* below min_reps, even past max time */
	CHECK(!stats_should_stop(flat, 9, 100.0, &t));
	CHECK(!stats_should_stop(flat, 10, 0.1, &t));    /* quiet but too little time */
	CHECK(stats_should_stop(flat, 10, 0.5, &t));     /* quiet and enough time */
	CHECK(!stats_should_stop(noisy, 10, 0.6, &t));   /* enough time but noisy */
	CHECK(stats_should_stop(noisy, 10, 5.0, &t));    /* time cap */
	CHECK(stats_should_stop(noisy, 100, 0.1, &t));   /* rep cap */
	CHECK(!stats_should_stop(noisy, 99, 0.1, &t));

	/* min_reps above max_reps: min_reps wins */
	stop_rule u = opts(20, 5, 0.005, 0, 10);
	CHECK(!stats_should_stop(noisy, 5, 0.1, &u));
	CHECK(stats_should_stop(noisy, 20, 0.1, &u));

	/* min_reps below 1 counts as 1 */
	stop_rule v = opts(0, 100, 0.005, 0, 10);
	CHECK(!stats_should_stop(flat, 0, 0, &v));
	CHECK(stats_should_stop(flat, 1, 0, &v));
}

/* Feeds a synthetic sequence sample by sample, as the worker does. */
static int run_until_stop(const double *seq, int len, const stop_rule *t)
{
	double total = 0;
	int n = 0;
	while (n < len && !stats_should_stop(seq, n, total / 1e3, t)) {
		total += seq[n];
		n++;
	}
	return n;
}

TEST(stop_sequences)
{
	static double seq[3000];
	/* 1 ms samples, 0.1% jitter: stops once 50 ms are sampled */
	for (int i = 0; i < 3000; i++)
		seq[i] = 1.0 + (i % 2) * 0.002;
	stop_rule t = opts(10, 2048, 0.005, 0.05, 1.0);
	CHECK(run_until_stop(seq, 3000, &t) == 50);

	/* 10 ms samples: min_reps (10) reached before min time matters */
	for (int i = 0; i < 3000; i++)
		seq[i] = 10.0;
	t = opts(10, 2048, 0.005, 0.05, 1.0);
	CHECK(run_until_stop(seq, 3000, &t) == 10);

	/* very noisy: runs to the time cap (1 s of 1 ms samples) */
	for (int i = 0; i < 3000; i++)
		seq[i] = i % 2 ? 0.5 : 1.5;
	t = opts(10, 2048, 0.005, 0.05, 1.0);
	CHECK(run_until_stop(seq, 3000, &t) == 1000);

	/* ... or the rep cap */
	t = opts(10, 300, 0.005, 0.05, 10.0);
	CHECK(run_until_stop(seq, 3000, &t) == 300);

	/* a few slow outliers keep the noise up: the rep cap ends it */
	for (int i = 0; i < 3000; i++)
		seq[i] = i < 5 ? 3.0 : 1.0;
	t = opts(10, 2048, 0.005, 0.0, 10.0);
	CHECK(run_until_stop(seq, 3000, &t) == 2048);

	/* a loose target: min_reps is enough */
	t = opts(10, 2048, 1.0, 0.0, 10.0);
	CHECK(run_until_stop(seq, 3000, &t) == 10);
}

int main(void)
{
	RUN(median);
	RUN(noise);
	RUN(stop_rule);
	RUN(stop_sequences);
	return test_report("stats");
}
