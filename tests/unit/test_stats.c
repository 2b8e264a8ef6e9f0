/* test_stats.c: summary statistics, the median's interval, the stopping
 * rules (on synthetic samples) and verdicts. */
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

TEST(median)
{
	stats s;
	double odd[3] = { 3, 1, 2 };
	stats_compute(odd, 3, &s);
	CHECK(s.n == 3 && s.median == 2 && s.min == 1 && s.max == 3 && s.mean == 2);
	CHECK(odd[0] == 3 && odd[1] == 1 && odd[2] == 2); /* input untouched */
	CHECK(!s.has_ci); /* too few for an interval */

	double even[4] = { 4, 1, 3, 2 };
	stats_compute(even, 4, &s);
	CHECK(s.median == 2.5 && s.min == 1 && s.max == 4);

	double one[1] = { 0.75 };
	stats_compute(one, 1, &s);
	CHECK(s.n == 1 && s.median == 0.75 && s.min == 0.75 && s.max == 0.75);
	CHECK(s.stdev == 0 && s.noise == 0);

	stats_compute(NULL, 0, &s);
	CHECK(s.n == 0 && s.median == 0 && s.noise == 0 && !s.has_ci);
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

/* The ranks against the binomial distribution, worked out exactly (with
 * Python's math.comb) for these n. */
/* Sorted x[0..n) put in an order of independent-looking samples: lowest,
 * highest, second lowest, ... (alternately below and above the median,
 * so stats_cluster_factor sees no runs); the order statistics, the median
 * and its interval are those of the values. */
static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void unsort(double *x, int n)
{
	double *t = malloc((size_t)n * sizeof *t);
	for (int i = 0; i < n; i++)
		t[i] = i % 2 ? x[n - 1 - i / 2] : x[i / 2];
	memcpy(x, t, (size_t)n * sizeof *t);
	free(t);
}

TEST(median_ranks)
{
	static const int want[][3] = { { 6, 0, 5 }, { 7, 0, 6 }, { 10, 1, 8 }, { 20, 5, 14 }, { 50, 17, 32 },
		                       { 100, 39, 60 }, { 101, 40, 60 }, { 1000, 468, 531 },
		                       { 2048, 979, 1068 }, { 10240, 5020, 5219 } };
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		int lo = -1, hi = -1;
		CHECK(stats_median_ranks(want[i][0], &lo, &hi) == 0);
		CHECK(lo == want[i][1] && hi == want[i][2]);
		if (lo != want[i][1] || hi != want[i][2])
			fprintf(stderr, "  n=%d: got %d %d\n", want[i][0], lo, hi);
	}
	int lo, hi;
	CHECK(stats_median_ranks(5, &lo, &hi) == -1);
	CHECK(stats_median_ranks(0, &lo, &hi) == -1);
	/* symmetric around the middle for every n */
	int sym = 1;
	for (int n = 6; n <= 4096; n++)
		if (stats_median_ranks(n, &lo, &hi) != 0 || lo + hi != n - 1 || lo < 0 || lo > (n - 1) / 2)
			sym = 0;
	CHECK(sym);

	/* the interval of 1..20 is [6, 15] */
	double x[20];
	for (int i = 0; i < 20; i++)
		x[i] = i + 1;
	unsort(x, 20);
	stats s;
	stats_compute(x, 20, &s);
	CHECK(s.has_ci && s.ci_lo == 6 && s.ci_hi == 15);
	CHECK_NEAR(s.ci_rel, 4.5 / 10.5, 1e-12);
	double y[20];
	for (int i = 0; i < 20; i++)
		y[i] = i < 10 ? 10 : 11 + i; /* 10 x 10, then 21 .. 30 */
	unsort(y, 20);
	stats_compute(y, 20, &s);
	CHECK(s.has_ci && s.ci_lo == 10 && s.ci_hi == 25 && s.median == 15.5);
	CHECK_NEAR(s.ci_rel, 9.5 / 15.5, 1e-12); /* the wider side */

	/* a clock of 32-unit ticks, rounded so that some values lie one unit
	 * off a tick: 60 samples on 5 ticks, every middle one the same. The
	 * order statistics alone give width zero; half a tick (32: the middle
	 * half is one value, the steps next to it 1 and 32) each side is added */
	double q[100];
	for (int i = 0; i < 60; i++)
		q[i] = i < 6 ? 5760 : i < 12 ? 5791 : i < 48 ? 5792 : i < 54 ? 5824 : 5856;
	unsort(q, 60);
	stats_compute(q, 60, &s);
	CHECK(s.has_ci && s.tick == 32 && s.ci_lo == 5792 - 16 && s.ci_hi == 5792 + 16);
	/* the tick's class 5791..5792 holds samples 6..47 spread over
	 * [5776, 5808): the median is read at 30 of 42 across it */
	CHECK_NEAR(s.median, 5776 + 24.0 / 42 * 32, 1e-9);
	/* 100 samples: the median and the interval read between the ticks'
	 * edges, ranks 39 and 61 (60 + 1) at 29 and 51 of the class's 70,
	 * 0.09 of a tick wider, and never narrower than half a tick each side */
	for (int i = 0; i < 100; i++)
		q[i] = i < 10 ? 5760 : i < 20 ? 5791 : i < 80 ? 5792 : i < 90 ? 5824 : 5856;
	unsort(q, 100);
	stats_compute(q, 100, &s);
	double med = 5776 + 40.0 / 70 * 32;
	CHECK_NEAR(s.median, med, 1e-9);
	CHECK_NEAR(s.ci_lo, med - 16, 1e-9); /* 5776 + 29 / 70 x 32 - 2.88 lies inside */
	CHECK_NEAR(s.ci_hi, med + 16, 1e-9);
	for (int i = 0; i < 100; i++) /* spread over five ticks: the read interval is the wider */
		q[i] = 5728 + 32 * (i / 20);
	unsort(q, 100);
	stats_compute(q, 100, &s);
	CHECK_NEAR(s.median, 5792, 1e-9);
	CHECK_NEAR(s.ci_lo, 5744 + 19.0 / 20 * 32 - 0.09 * 32, 1e-9);
	CHECK_NEAR(s.ci_hi, 5808 + 1.0 / 20 * 32 + 0.09 * 32, 1e-9);
}

TEST(insert_sorted)
{
	double v[8];
	double in[8] = { 5, 1, 4, 4, 9, 0, 2, 4 };
	for (int i = 0; i < 8; i++)
		stats_insert_sorted(v, i, in[i]);
	static const double want[8] = { 0, 1, 2, 4, 4, 4, 5, 9 };
	CHECK(memcmp(v, want, sizeof v) == 0);
}

/* ---- synthetic samples ---- */

static uint64_t rng_state;

static double uniform01(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform01())) * cos(2 * M_PI * uniform01());
}

enum { D_NORMAL, D_LOGNORMAL, D_BIMODAL, D_OUTLIER, D_TICKS, D_N,
       D_SHORT = D_N, /* draw_short, with short_jitter: not among the D_N above */
       D_DRIFT,       /* samples in runs (draw_runs): normal, each leaning on the one before */
       D_MODES };     /* samples in runs: two speeds 1.2% apart, held for several samples */

static double draw_runs(int d, double s, int i);
static const char *const dist_name[D_N] = { "normal", "lognormal", "bimodal", "one outlier", "in ticks" };

static double draw_short(double off, double jitter);
static double short_jitter;

/* Sample i of distribution d around 100 with relative spread s (D_SHORT:
 * s is the median's place between two ticks). */
static double draw(int d, double s, int i)
{
	switch (d) {
	case D_SHORT:
		return draw_short(s, short_jitter);
	case D_DRIFT:
	case D_MODES:
		return draw_runs(d, s, i);
	case D_LOGNORMAL: /* right-skewed, as kernel times are: median 100 */
		return 100 * exp(s * gauss());
	case D_BIMODAL: /* 70% near 100, 30% near 100 (1 + 2 s), each spread s / 2: about s in all */
		return uniform01() < 0.7 ? 100 * (1 + s / 2 * gauss()) : 100 * (1 + 2 * s + s / 2 * gauss());
	case D_OUTLIER: /* normal, and the third sample ten times slower */
		return i == 2 ? 1000 : 100 * (1 + s * gauss());
	case D_TICKS: { /* normal, timed by a clock of 0.37 (0.37% of the median, off the median) that starts at a random phase */
		double q = 0.37, u = q * uniform01(), x = 100 * (1 + s * gauss());
		return q * (floor((u + x) / q) - floor(u / q));
	}
	default:
		return 100 * (1 + s * gauss());
	}
}

static double normal_cdf(double z)
{
	return 0.5 * erfc(-z / sqrt(2.0));
}

/* The median of distribution d (the outlier is one sample, not part of it). */
static double true_median(int d, double s)
{
	if (d != D_BIMODAL && d != D_MODES)
		return 100;
	double lo = 90, hi = 120; /* 0.7 F1(x) + 0.3 F2(x) = 1/2, by bisection */
	for (int k = 0; k < 200; k++) {
		double x = (lo + hi) / 2;
		double f = d == D_MODES ? 0.6 * normal_cdf((x / 100 - 1) / (s / 4)) + 0.4 * normal_cdf((x / 100 - 1.012) / (s / 4))
		                        : 0.7 * normal_cdf((x / 100 - 1) / (s / 2)) + 0.3 * normal_cdf((x / 100 - 1 - 2 * s) / (s / 2));
		if (f < 0.5)
			lo = x;
		else
			hi = x;
	}
	return (lo + hi) / 2;
}

static stop_rule rule_of(int kind, int min_reps, int max_reps, double target, double min_t, double max_t)
{
	stop_rule t;
	memset(&t, 0, sizeof t);
	t.rule = kind;
	t.min_reps = min_reps;
	t.max_reps = max_reps;
	t.target = target;
	t.noise_target = target;
	t.min_time_s = min_t;
	t.max_time_s = max_t;
	return t;
}

/* Draws samples (in us, so times in s are x 1e-6) one at a time until the
 * rule stops, as the worker does; the samples in x, their count returned. */
static int sample_until_stop(int d, double s, const stop_rule *t, double *x, double *sorted, int cap, stop_why *why)
{
	double total = 0;
	int n = 0;
	while ((*why = stats_stop(sorted, x, n, total, t)) == STOP_NOT && n < cap) {
		x[n] = draw(d, s, n);
		stats_insert_sorted(sorted, n, x[n]);
		total += x[n] * 1e-6;
		n++;
	}
	return n;
}

/* In 1000 simulated runs of n samples each, the interval holds the true
 * median in about 95% of them (at least 95% in theory: the order
 * statistics whose binomial tails are nearest 2.5% keep 95.1% to 96.7%
 * here). */
TEST(interval_coverage)
{
	static const int sizes[] = { 20, 50, 200 };
	static const double spreads[] = { 0.01, 0.03 };
	double x[200];
	for (int d = 0; d < D_N; d++)
		for (size_t si = 0; si < sizeof spreads / sizeof spreads[0]; si++)
			for (size_t ni = 0; ni < sizeof sizes / sizeof sizes[0]; ni++) {
				int n = sizes[ni], covered = 0;
				double m = true_median(d, spreads[si]);
				rng_state = 12345 + (uint64_t)d * 1000 + si * 100 + ni;
				for (int run = 0; run < 1000; run++) {
					for (int i = 0; i < n; i++)
						x[i] = draw(d, spreads[si], i);
					stats st;
					stats_compute(x, n, &st);
					covered += st.has_ci && st.ci_lo <= m && m <= st.ci_hi;
				}
				/* a clock of ticks: half a tick each side errs wide, never narrow */
				int ok = covered >= 920 && (covered <= 980 || d == D_TICKS);
				CHECK(ok);
				if (!ok || getenv("TEST_VERBOSE"))
					fprintf(stderr, "  %s, spread %.0f%%, n=%d: covered %d of 1000\n", dist_name[d],
					        100 * spreads[si], n, covered);
			}
}

/* The same when the rule decides how many samples there are (it stops on
 * the interval's width, not where it lies). */
TEST(interval_coverage_at_stop)
{
	static double x[2048], sorted[2048];
	static const double spreads[] = { 0.01, 0.02, 0.03 };
	stop_rule t = rule_of(RULE_INTERVAL, 10, 2048, 0.005, 0, 10);
	for (int d = 0; d < D_N; d++)
		for (size_t si = 0; si < sizeof spreads / sizeof spreads[0]; si++) {
			double m = true_median(d, spreads[si]);
			int covered = 0, at_target = 0;
			long total_n = 0;
			rng_state = 777 + (uint64_t)d * 10 + si;
			for (int run = 0; run < 1000; run++) {
				stop_why why;
				int n = sample_until_stop(d, spreads[si], &t, x, sorted, 2048, &why);
				stats st;
				stats_compute(x, n, &st);
				covered += st.has_ci && st.ci_lo <= m && m <= st.ci_hi;
				at_target += why == STOP_INTERVAL && st.ci_rel <= 0.005;
				total_n += n;
			}
			int ok = covered >= 920 && (d == D_TICKS ? at_target >= 500 : covered <= 980 && at_target == 1000);
			CHECK(ok);
			if (!ok || getenv("TEST_VERBOSE"))
				fprintf(stderr, "  %s, spread %.0f%%: covered %d of 1000 at stop, %d at the target, "
				        "%.0f samples on average\n", dist_name[d], 100 * spreads[si], covered, at_target,
				        (double)total_n / 1000);
		}
}

/* A short kernel: a duration of 100 that wavers by a fraction of a tick,
 * timed by a clock of 0.53 (32 ns at 6 us) that starts at a random phase,
 * its median `off` of a tick past a tick. */
static double draw_short(double off, double jitter)
{
	double q = 0.53, u = q * uniform01(), x = 100 + off * q + jitter * q * gauss();
	return q * (floor((u + x) / q) - floor(u / q));
}

/* Such a kernel's samples take a few ticks' values, and its median may
 * lie anywhere between two of them. Read between the ticks' edges, the
 * interval holds the median in 95% of runs wherever it lies, and the rule
 * stops on it once its least kernel time is sampled. The order statistics
 * widened by half a tick gave width zero where the samples took only two
 * or three values, and spanned two ticks where the median lay near a
 * tick's edge: such runs went on to 600-1600 samples. */
TEST(short_kernel_in_ticks)
{
	static double x[2048], sorted[2048];
	static const double jitters[] = { 0.1, 0.3, 1.0 };
	static const double offs[] = { 0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7 };
	static const int sizes[] = { 100, 400, 2048 };
	/* 300 samples' worth of kernel time first (100 us each, as draw gives) */
	stop_rule t = rule_of(RULE_INTERVAL, 10, 2048, 0.005, 0.03, 10);
	for (size_t ji = 0; ji < ARRAY_LEN(jitters); ji++)
		for (size_t oi = 0; oi < ARRAY_LEN(offs); oi++) {
			double m = 100 + offs[oi] * 0.53;
			rng_state = 4242 + ji * 100 + oi;
			for (size_t ni = 0; ni < ARRAY_LEN(sizes); ni++) {
				int n = sizes[ni], covered = 0, runs = n > 400 ? 100 : 300;
				for (int run = 0; run < runs; run++) {
					for (int i = 0; i < n; i++)
						x[i] = draw_short(offs[oi], jitters[ji]);
					stats st;
					stats_compute(x, n, &st);
					covered += st.has_ci && st.ci_lo <= m && m <= st.ci_hi && st.tick > 0;
				}
				int ok = covered >= runs * 93 / 100;
				CHECK(ok);
				if (!ok || getenv("TEST_VERBOSE"))
					fprintf(stderr, "  short kernel, jitter %.1f tick, %.1f of a tick off, n=%d: covered %d of %d\n",
					        jitters[ji], offs[oi], n, covered, runs);
			}
			int by_interval = 0, most = 0;
			short_jitter = jitters[ji];
			for (int run = 0; run < 50; run++) {
				stop_why why;
				int n = sample_until_stop(D_SHORT, offs[oi], &t, x, sorted, 2048, &why);
				by_interval += why == STOP_INTERVAL;
				most = n > most ? n : most;
			}
			int ok = by_interval == 50 && most <= 400;
			CHECK(ok);
			if (!ok || getenv("TEST_VERBOSE"))
				fprintf(stderr, "  short kernel, jitter %.1f tick, %.1f of a tick off: %d of 50 stopped on the "
				        "interval, at most %d samples\n", jitters[ji], offs[oi], by_interval, most);
		}
}

/* Samples that come in runs (i = 0 starts afresh, from the process's
 * stationary state). D_DRIFT: normal with spread s, each sample's
 * deviation 0.9 of the one before plus a fresh part (an AR(1) process:
 * its runs above and below the median last about seven samples). D_MODES:
 * as a transpose timed on an H200 does, one of two speeds 1.2% apart,
 * each with spread s / 4, held for 8 samples (the slow one) or 12 (the
 * fast one) on average: 40% of the samples slow. */
static double draw_runs(int d, double s, int i)
{
	static double dev;
	static int slow;
	if (d == D_DRIFT) {
		dev = i == 0 ? gauss() : 0.9 * dev + sqrt(1 - 0.81) * gauss();
		return 100 * (1 + s * dev);
	}
	if (i == 0)
		slow = uniform01() < 0.4;
	else
		slow = slow ? uniform01() >= 1.0 / 8 : uniform01() < 1.0 / 12;
	return 100 * (1 + (slow ? 0.012 : 0) + s / 4 * gauss());
}

/* Samples that come in runs tell less than as many independent ones. The
 * order statistics' interval, taken as if they were independent, held the
 * median in 41% to 62% of 1000 runs of such samples; widened by the runs'
 * variance (stats_cluster_factor), in 84% (100 samples) and 92% (400).
 * Independent samples are taken for runs in 2% to 3% of runs (the test's
 * 2.3% tail), and then widened by a factor of at most 2.4 in variance. A
 * run that stops within one run of one speed cannot see the runs: its
 * interval is that of independent samples. */
TEST(samples_in_runs)
{
	static double x[400], y[400];
	static const int sizes[] = { 100, 400 };
	for (int d = D_DRIFT; d <= D_MODES; d++)
		for (size_t ni = 0; ni < sizeof sizes / sizeof sizes[0]; ni++) {
			int n = sizes[ni], covered = 0, covered_iid = 0, widened = 0;
			double m = true_median(d, 0.01);
			rng_state = 4242 + (uint64_t)d * 10 + ni;
			for (int run = 0; run < 1000; run++) {
				for (int i = 0; i < n; i++)
					x[i] = y[i] = draw(d, 0.01, i);
				stats st;
				stats_compute(x, n, &st);
				covered += st.has_ci && st.ci_lo <= m && m <= st.ci_hi;
				widened += st.cluster > 1;
				/* the same values as if independent: no runs */
				qsort(y, (size_t)n, sizeof y[0], cmp_dbl);
				unsort(y, n);
				stats_compute(y, n, &st);
				covered_iid += st.has_ci && st.ci_lo <= m && m <= st.ci_hi;
			}
			int ok = covered >= (n < 400 ? 800 : 880) && covered_iid < 700 && widened >= 850;
			CHECK(ok);
			if (!ok || getenv("TEST_VERBOSE"))
				fprintf(stderr, "  %s, n=%d: covered %d of 1000 (as if independent: %d), widened %d\n",
				        d == D_DRIFT ? "drift" : "two speeds", n, covered, covered_iid, widened);
		}
	for (int d = 0; d < D_N; d++) {
		int n = 400, widened = 0;
		double most = 1;
		rng_state = 5151 + (uint64_t)d;
		for (int run = 0; run < 1000; run++) {
			for (int i = 0; i < n; i++)
				x[i] = draw(d, 0.01, i);
			stats st;
			stats_compute(x, n, &st);
			widened += st.cluster > 1;
			most = fmax(most, st.cluster);
		}
		int ok = widened <= 50;
		CHECK(ok);
		if (!ok || getenv("TEST_VERBOSE"))
			fprintf(stderr, "  %s, independent, n=%d: widened in %d of 1000 (factor at most %.2f)\n", dist_name[d], n,
			        widened, most);
	}
}

/* A 100 us kernel with 1% to 3% spread: the noise rule never sees 0.5%
 * and runs to a cap; the interval rule stops after tens to a few hundred. */
TEST(interval_stops_sooner)
{
	static double x[2048], sorted[2048];
	static const double spreads[] = { 0.01, 0.02, 0.03 };
	/* the defaults: at least 10 samples; noise: 20 ms of kernel time,
	 * interval: 2 ms; at most 2048 samples or 0.5 s */
	stop_rule noise = rule_of(RULE_NOISE, 10, 2048, 0.005, 0.02, 0.5);
	stop_rule interval = rule_of(RULE_INTERVAL, 10, 2048, 0.005, 0.002, 0.5);
	for (int d = 0; d < D_N; d++)
		for (size_t si = 0; si < sizeof spreads / sizeof spreads[0]; si++) {
			rng_state = 99 + (uint64_t)d * 10 + si;
			stop_why wn, wi;
			int nn = sample_until_stop(d, spreads[si], &noise, x, sorted, 2048, &wn);
			int ni = sample_until_stop(d, spreads[si], &interval, x, sorted, 2048, &wi);
			stats st;
			stats_compute(x, ni, &st);
			int ok = wn == STOP_SAMPLES && nn == 2048 && wi == STOP_INTERVAL && ni * (d == D_TICKS ? 2 : 5) <= nn &&
			         st.ci_rel <= 0.005;
			CHECK(ok);
			if (!ok || getenv("TEST_VERBOSE"))
				fprintf(stderr, "  %s, spread %.0f%%: noise rule %d samples (%s), interval rule %d (%s, +-%.2f%%)\n",
				        dist_name[d], 100 * spreads[si], nn, stop_why_name(wn), ni, stop_why_name(wi),
				        100 * st.ci_rel);
		}
}

TEST(stop_rule)
{
	stop_rule t = rule_of(RULE_NOISE, 10, 100, 0.005, 0.5, 5);
	double flat[100], noisy[100];
	for (int i = 0; i < 100; i++)
		flat[i] = 1.0;
	/* noise ~ 0.2; sorted, any first n hold as many 1.0 as 1.5 (n even) */
	for (int i = 0; i < 100; i++)
		noisy[i] = i < 5 ? 1.0 : i < 10 ? 1.5 : i < 55 ? 1.0 : 1.5;
	CHECK(stats_stop(flat, NULL, 5, 10.0, &t) == STOP_NOT);      /* below min_reps, even past max time */
	CHECK(stats_stop(flat, NULL, 9, 100.0, &t) == STOP_NOT);
	CHECK(stats_stop(flat, NULL, 10, 0.1, &t) == STOP_NOT);      /* quiet but too little time */
	CHECK(stats_stop(flat, NULL, 10, 0.5, &t) == STOP_NOISE);    /* quiet and enough time */
	CHECK(stats_stop(noisy, NULL, 10, 0.6, &t) == STOP_NOT);     /* enough time but noisy */
	CHECK(stats_stop(noisy, NULL, 10, 5.0, &t) == STOP_TIME);    /* time cap */
	CHECK(stats_stop(noisy, NULL, 100, 0.1, &t) == STOP_SAMPLES); /* rep cap */
	CHECK(stats_stop(noisy, NULL, 99, 0.1, &t) == STOP_NOT);

	/* the interval rule on the same: the flat samples' interval is a point */
	stop_rule u = rule_of(RULE_INTERVAL, 10, 100, 0.005, 0.5, 5);
	CHECK(stats_stop(flat, NULL, 10, 0.1, &u) == STOP_NOT);
	CHECK(stats_stop(flat, NULL, 10, 0.5, &u) == STOP_INTERVAL);
	CHECK(stats_stop(noisy, NULL, 10, 0.6, &u) == STOP_NOT);     /* half at 1.0, half at 1.5: wide */

	/* min_reps above max_reps: min_reps wins */
	stop_rule v = rule_of(RULE_NOISE, 20, 5, 0.005, 0, 10);
	CHECK(stats_stop(noisy, NULL, 5, 0.1, &v) == STOP_NOT);
	CHECK(stats_stop(noisy, NULL, 10, 0.1, &v) == STOP_NOT);
	CHECK(stats_stop(noisy, NULL, 20, 0.1, &v) == STOP_SAMPLES);

	/* min_reps below 1 counts as 1 */
	stop_rule w = rule_of(RULE_NOISE, 0, 100, 0.005, 0, 10);
	CHECK(stats_stop(flat, NULL, 0, 0, &w) == STOP_NOT);
	CHECK(stats_stop(flat, NULL, 1, 0, &w) == STOP_NOISE);

	/* the rule's interval (97.5%) needs 7 samples: it waits for them */
	stop_rule z = rule_of(RULE_INTERVAL, 1, 100, 0.005, 0, 10);
	CHECK(stats_stop(flat, NULL, 6, 0, &z) == STOP_NOT);
	CHECK(stats_stop(flat, NULL, 7, 0, &z) == STOP_INTERVAL);

	CHECK_STREQ(stop_why_name(STOP_INTERVAL), "interval");
	CHECK_STREQ(stop_why_name(STOP_WALL), "wall");
	CHECK_STREQ(stop_why_name(STOP_NOT), "");
}

/* Feeds a sequence sample by sample, as the worker does. */
static int run_until_stop(const double *seq, int len, const stop_rule *t)
{
	static double sorted[3000];
	double total = 0;
	int n = 0;
	while (n < len && stats_stop(sorted, NULL, n, total / 1e3, t) == STOP_NOT) {
		stats_insert_sorted(sorted, n, seq[n]);
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
	stop_rule t = rule_of(RULE_NOISE, 10, 2048, 0.005, 0.05, 1.0);
	CHECK(run_until_stop(seq, 3000, &t) == 50);
	t.rule = RULE_INTERVAL;
	CHECK(run_until_stop(seq, 3000, &t) == 50);

	/* 10 ms samples: min_reps (10) reached before min time matters */
	for (int i = 0; i < 3000; i++)
		seq[i] = 10.0;
	t = rule_of(RULE_NOISE, 10, 2048, 0.005, 0.05, 1.0);
	CHECK(run_until_stop(seq, 3000, &t) == 10);
	t.rule = RULE_INTERVAL;
	CHECK(run_until_stop(seq, 3000, &t) == 10);

	/* very noisy: runs to the time cap (1 s of 1 ms samples) */
	for (int i = 0; i < 3000; i++)
		seq[i] = i % 2 ? 0.5 : 1.5;
	t = rule_of(RULE_NOISE, 10, 2048, 0.005, 0.05, 1.0);
	CHECK(run_until_stop(seq, 3000, &t) == 1000);
	t.rule = RULE_INTERVAL;
	CHECK(run_until_stop(seq, 3000, &t) == 1000);

	/* ... or the rep cap */
	t = rule_of(RULE_NOISE, 10, 300, 0.005, 0.05, 10.0);
	CHECK(run_until_stop(seq, 3000, &t) == 300);

	/* a few slow outliers keep the noise up: the rep cap ends it; the
	 * interval rule stops as soon as its interval leaves them out */
	for (int i = 0; i < 3000; i++)
		seq[i] = i < 5 ? 3.0 : 1.0;
	t = rule_of(RULE_NOISE, 10, 2048, 0.005, 0.0, 10.0);
	CHECK(run_until_stop(seq, 3000, &t) == 2048);
	t.rule = RULE_INTERVAL;
	int n = run_until_stop(seq, 3000, &t);
	stats st;
	stats_compute(seq, n, &st);
	CHECK(n > 10 && n < 40 && st.median == 1.0 && st.ci_hi == 1.0);
	stats_compute(seq, n - 1, &st);
	CHECK(st.ci_hi == 1.0); /* the 95% interval had left them out one sample before */

	/* a loose target: min_reps is enough */
	t = rule_of(RULE_NOISE, 10, 2048, 1.0, 0.0, 10.0);
	CHECK(run_until_stop(seq, 3000, &t) == 10);
}

TEST(verdicts)
{
	double base[7] = { 1.00, 1.01, 0.99, 1.02, 0.98, 1.00, 1.01 };
	double fast[7] = { 0.60, 0.61, 0.59, 0.60, 0.62, 0.60, 0.61 };
	double slow[7] = { 1.50, 1.52, 1.49, 1.51, 1.50, 1.48, 1.53 };
	double wide5[7] = { 0.80, 1.30, 0.95, 1.10, 0.85, 1.20, 1.05 };
	ratio_ci rc;
	CHECK_STREQ(stats_verdict(base, 7, fast, 7, 0.02, &rc), "faster");
	CHECK(rc.known && rc.lo > 1 && rc.lo <= rc.r && rc.r <= rc.hi);
	CHECK_NEAR(rc.r, 1.00 / 0.60, 1e-12);
	CHECK_STREQ(stats_verdict(base, 7, slow, 7, 0.02, &rc), "slower");
	CHECK(rc.hi < 1);
	CHECK_STREQ(stats_verdict(base, 7, wide5, 7, 0.02, &rc), "ambiguous");
	/* seven samples each: the intervals are their ranges, +-2%: not "same" within 2% */
	CHECK_STREQ(stats_verdict(base, 7, base, 7, 0.02, &rc), "ambiguous");
	/* too few samples for an interval */
	CHECK_STREQ(stats_verdict(base, 5, fast, 5, 0.02, &rc), "ambiguous");
	CHECK(!rc.known && rc.r > 1);

	/* 0.1% apart with +-0.2% intervals: the same within 2% */
	double b[50], x[50];
	for (int i = 0; i < 50; i++) {
		b[i] = 100 + (i % 5 - 2) * 0.1;
		x[i] = 100.1 + (i % 5 - 2) * 0.1;
	}
	CHECK_STREQ(stats_verdict(b, 50, x, 50, 0.02, &rc), "same");
	CHECK(rc.lo < 1 && rc.hi > 1 && rc.lo >= 0.98 && rc.hi <= 1.02);
	/* 1% faster with +-0.2% intervals is faster; with +-2% it is not */
	for (int i = 0; i < 50; i++) {
		b[i] = 100 + (i % 5 - 2) * 0.1;
		x[i] = 99 + (i % 5 - 2) * 0.1;
	}
	CHECK_STREQ(stats_verdict(b, 50, x, 50, 0.005, &rc), "faster");
	for (int i = 0; i < 50; i++) {
		b[i] = 100 + (i % 5 - 2) * 3;
		x[i] = 99 + (i % 5 - 2) * 3;
	}
	CHECK_STREQ(stats_verdict(b, 50, x, 50, 0.005, &rc), "ambiguous");
	CHECK(rc.lo < 1 && rc.hi > 1);

	/* the ratio's interval: sides in quadrature */
	stats sb, sx;
	memset(&sb, 0, sizeof sb);
	memset(&sx, 0, sizeof sx);
	sb.median = 2, sb.has_ci = 1, sb.ci_lo = 2 * exp(-0.03), sb.ci_hi = 2 * exp(0.04);
	sx.median = 1, sx.has_ci = 1, sx.ci_lo = exp(-0.03), sx.ci_hi = exp(0.04);
	stats_ratio(&sb, &sx, &rc);
	CHECK(rc.known);
	CHECK_NEAR(rc.r, 2, 1e-12);
	CHECK_NEAR(log(rc.lo / 2), -0.05, 1e-12); /* sqrt(0.03^2 + 0.04^2) */
	CHECK_NEAR(log(rc.hi / 2), 0.05, 1e-12);

	CHECK_NEAR(stats_quantile(base, 7, 0.5), 1.00, 1e-12);
	CHECK_NEAR(stats_quantile(fast, 7, 0.0), 0.59, 1e-12);
	CHECK_NEAR(stats_quantile(fast, 7, 1.0), 0.62, 1e-12);
}

int main(void)
{
	RUN(median);
	RUN(noise);
	RUN(median_ranks);
	RUN(insert_sorted);
	RUN(interval_coverage);
	RUN(interval_coverage_at_stop);
	RUN(interval_stops_sooner);
	RUN(short_kernel_in_ticks);
	RUN(samples_in_runs);
	RUN(stop_rule);
	RUN(stop_sequences);
	RUN(verdicts);
	return test_report("stats");
}
