/* stats.c: summary statistics of timing samples, the median's confidence
 * interval, the stopping rules and verdicts. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_sorted(const double *s, int n)
{
	return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* The ranks for a two-sided interval that misses with probability at
 * most 2 tail. */
static int ranks_at(int n, double tail, int *lo, int *hi)
{
	/* B ~ binomial(n, 1/2): how many samples fall below the true median.
	 * [x(j), x(n+1-j)] (1-based) misses it with probability 2 P(B <= j-1);
	 * j is the largest with P(B <= j-1) <= tail. The sum starts twelve
	 * standard deviations below the mean, where the terms are negligible,
	 * so a call costs O(sqrt(n)). */
	if (n < 1)
		return -1;
	int m = 0;
	double sd = 0.5 * sqrt((double)n);
	if (n / 2.0 - 12 * sd > 1)
		m = (int)(n / 2.0 - 12 * sd);
	double lt = lgamma(n + 1.0) - lgamma(m + 1.0) - lgamma((double)(n - m) + 1.0) - n * log(2.0);
	double t = exp(lt), cdf = 0;
	for (; m < n; m++) {
		cdf += t; /* P(B <= m) */
		if (cdf > tail)
			break;
		t *= (double)(n - m) / (double)(m + 1);
	}
	/* P(B <= m - 1) <= tail < P(B <= m): j = m */
	if (m < 1)
		return -1;
	*lo = m - 1;
	*hi = n - m;
	return 0;
}

int stats_median_ranks(int n, int *lo, int *hi)
{
	return ranks_at(n, 0.025, lo, hi);
}

void stats_insert_sorted(double *v, int n, double x)
{
	int lo = 0, hi = n;
	while (lo < hi) { /* the first element above x */
		int mid = lo + (hi - lo) / 2;
		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(v + lo + 1, v + lo, (size_t)(n - lo) * sizeof *v);
	v[lo] = x;
}

/* The clock's step where ties are the rule among sorted s[0..n) (at most
 * half as many distinct values as samples; where there are only two or
 * three, a step of at most 5% of the median), else 0: the widest step
 * between distinct values in the middle half of the samples and the
 * nearest step on either side of it (the tails' sparse values would
 * overstate it; ticks rounded to nanoseconds leave some steps of one). */
static double tick_of(const double *s, int n)
{
	double tick = 0;
	int distinct = 1;
	for (int i = 1; i < n; i++)
		distinct += s[i] > s[i - 1];
	if (distinct < 2 || distinct > n / 2)
		return 0;
	int q1 = n / 4, q3 = 3 * n / 4;
	for (int i = q1 + 1; i <= q3; i++)
		tick = fmax(tick, s[i] - s[i - 1]);
	for (int i = q1; i >= 1; i--)
		if (s[i] > s[i - 1]) {
			tick = fmax(tick, s[i] - s[i - 1]);
			break;
		}
	for (int i = q3 + 1; i < n; i++)
		if (s[i] > s[i - 1]) {
			tick = fmax(tick, s[i] - s[i - 1]);
			break;
		}
	/* two or three values a clock's step apart, or a few outliers far off */
	if (distinct < 4 && tick > 0.05 * s[n / 2])
		return 0;
	return tick;
}

/* The quantile at p samples (0..n) of sorted s[0..n) read in ticks: the
 * samples of one tick (a class: values less than half a tick apart)
 * spread evenly over the tick about their middle value. A clock of ticks
 * that starts at a random phase turns a duration x into the tick below or
 * above it, the one above with probability x's fraction of a tick, so the
 * share of samples at or below a tick is the share of x + U(-1/2, 1/2)
 * below the tick's upper edge: read between the edges, the classes give
 * the quantiles of x smoothed by a tick, whose median is x's for a
 * symmetric x. */
static double class_quantile(const double *s, int n, double tick, double p)
{
	for (int i = 0; i < n;) {
		int j = i;
		while (j + 1 < n && s[j + 1] - s[j] < tick / 2)
			j++;
		int f = j - i + 1;
		if (p <= i + f)
			return s[(i + j) / 2] - tick / 2 + (p - i) / f * tick;
		i = j + 1;
	}
	return s[n - 1] + tick / 2;
}

/* Reading the median between a tick's edges errs by at most 0.09 of a
 * tick (worst for a steady duration 0.3 of a tick past one: read as
 * 0.5 / 0.71 - 0.5 = 0.2 past it), so the interval read that way is
 * widened by that much on each side. Under STATS_CLASS_MIN_N samples the
 * order statistics, widened by half a tick, are kept: the classes of a
 * kernel whose spread is a tenth of a tick held its median in 90% of
 * simulated runs of 50 samples, 96.5% of 70. */
#define STATS_CLASS_BIAS 0.09
#define STATS_CLASS_MIN_N 64

/* The ranks of the interval of n samples that come in runs, where the
 * median's variance is vif times an independent sample's: those of
 * n / vif independent samples, scaled back to n (the interval's half-width
 * in ranks grows as the square root of n * vif); all of them when n / vif
 * is too few for an interval. */
static void ranks_clustered(int n, double tail, double vif, int *lo, int *hi)
{
	int ne = (int)(n / vif), l, h;
	if (ranks_at(ne, tail, &l, &h) != 0) {
		*lo = 0;
		*hi = n - 1;
		return;
	}
	double half = ((ne - 1) / 2.0 - l) * (double)n / ne, c = (n - 1) / 2.0;
	int a = (int)floor(c - half), b = (int)ceil(c + half);
	*lo = a < *lo ? (a > 0 ? a : 0) : *lo;
	*hi = b > *hi ? (b < n - 1 ? b : n - 1) : *hi;
}

/* The median of sorted s[0..n) and its interval that misses with
 * probability at most 2 tail, into st (has_ci 0 when none); vif > 1 for
 * samples that come in runs (cluster_factor). */
static void interval_of(const double *s, int n, double tail, double vif, stats *st)
{
	int lo, hi;
	double tick = tick_of(s, n);
	st->tick = tick;
	st->cluster = vif;
	st->median = tick > 0 ? class_quantile(s, n, tick, n / 2.0) : median_sorted(s, n);
	st->has_ci = 0;
	st->ci_lo = st->ci_hi = st->ci_rel = 0;
	if (ranks_at(n, tail, &lo, &hi) != 0)
		return;
	st->has_ci = 1;
	if (vif > 1)
		ranks_clustered(n, tail, vif, &lo, &hi);
	/* Timestamps come in ticks (tens of nanoseconds on some GPUs): where
	 * many samples share a value the order statistics can coincide, an
	 * interval of width zero about a median known only to a tick. With
	 * enough samples the median and its interval are read between the
	 * ticks' edges (class_quantile), the interval never narrower than half
	 * a tick each side of the median; with fewer, half a tick is added on
	 * each side of the order statistics. That errs wide: in simulated runs
	 * timed by a clock of ticks it held the median in 96% to 100% of
	 * them, where the bare order statistics held it in 87% to 97%, and a
	 * kernel whose spread is a fraction of a tick in almost none
	 * (tests/unit/test_stats.c). The order statistics of such a kernel
	 * span two ticks where its median lies near a tick's edge: a 6 us
	 * kernel timed by a 32 ns clock was then known to +-0.75% after any
	 * number of samples; read between the edges, to +-0.27% (half a tick)
	 * after 2 ms of samples. */
	if (tick > 0 && n >= STATS_CLASS_MIN_N) {
		/* never narrower than the clock's step: half a step each side */
		st->ci_lo = fmin(class_quantile(s, n, tick, lo) - STATS_CLASS_BIAS * tick, st->median - tick / 2);
		st->ci_hi = fmax(class_quantile(s, n, tick, hi + 1) + STATS_CLASS_BIAS * tick, st->median + tick / 2);
	} else {
		st->ci_lo = s[lo] - tick / 2;
		st->ci_hi = s[hi] + tick / 2;
	}
	double side = fmax(st->median - st->ci_lo, st->ci_hi - st->median);
	st->ci_rel = st->median > 0 ? side / st->median : 0;
}

double stats_cluster_factor(const double *x, int n, double median)
{
	if (!x || n < STATS_CLUSTER_MIN_N)
		return 1;
	/* the samples above the median (1) and below it (0), in order; ties
	 * with the median tell nothing and are left out */
	unsigned char *b = xmalloc((size_t)n);
	int m = 0, up = 0, runs = 0;
	for (int i = 0; i < n; i++) {
		if (x[i] == median)
			continue;
		b[m] = x[i] > median;
		up += b[m];
		runs += m == 0 || b[m] != b[m - 1];
		m++;
	}
	double n1 = up, n2 = m - up, vif = 1;
	if (n1 >= 2 && n2 >= 2) {
		/* Wald and Wolfowitz: the runs of independent samples */
		double mu = 1 + 2 * n1 * n2 / m;
		double var = 2 * n1 * n2 * (2 * n1 * n2 - m) / ((double)m * m * (m - 1));
		if (var > 0 && (runs - mu) / sqrt(var) < STATS_CLUSTER_Z) {
			/* Taken as a chain of two states, the samples switch sides
			 * between neighbours 2 p (1 - p) (1 - r) of the time, where r
			 * is the correlation of neighbours' sides; the share above
			 * the median then has (1 + r) / (1 - r) times the variance of
			 * independent samples' (at most 99: r <= 0.98). */
			double p = n1 / m, r = 1 - (runs - 1) / ((m - 1) * 2 * p * (1 - p));
			r = fmin(fmax(r, 0), 0.98);
			vif = (1 + r) / (1 - r);
			/* Where the sides flip within a run of one speed too, the
			 * neighbours' correlation understates how the share moves:
			 * the variance of its means over sqrt(m) batches of sqrt(m)
			 * samples, over independent samples', when that is more. */
			int len = (int)sqrt((double)m), nb = m / len;
			double *share = xmalloc((size_t)nb * sizeof *share), mean = 0, ss = 0;
			for (int k = 0; k < nb; k++) {
				int c = 0;
				for (int i = k * len; i < (k + 1) * len; i++)
					c += b[i];
				share[k] = (double)c / len;
				mean += share[k] / nb;
			}
			for (int k = 0; k < nb; k++)
				ss += (share[k] - mean) * (share[k] - mean);
			free(share);
			if (nb > 1)
				vif = fmin(fmax(vif, len * ss / (nb - 1) / (p * (1 - p))), 99);
		}
	}
	free(b);
	return vif;
}

void stats_compute(const double *x, int n, stats *out)
{
	memset(out, 0, sizeof *out);
	if (!x || n <= 0)
		return;
	out->n = n;
	double *s = xmalloc((size_t)n * sizeof *s);
	memcpy(s, x, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, cmp_double);
	out->min = s[0];
	out->max = s[n - 1];
	interval_of(s, n, 0.025, 1, out);
	double vif = stats_cluster_factor(x, n, out->median);
	if (vif > 1)
		interval_of(s, n, 0.025, vif, out);
	free(s);
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += x[i];
	out->mean = sum / n;
	double ss = 0;
	for (int i = 0; i < n; i++) {
		double d = x[i] - out->mean;
		ss += d * d;
	}
	out->stdev = n > 1 ? sqrt(ss / (n - 1)) : 0;
	out->noise = out->mean > 0 ? out->stdev / out->mean : 0;
}

const char *stop_why_name(int why)
{
	switch (why) {
	case STOP_INTERVAL: return "interval";
	case STOP_NOISE: return "noise";
	case STOP_SAMPLES: return "samples";
	case STOP_TIME: return "time";
	case STOP_WALL: return "wall";
	case STOP_INTERRUPTED: return "interrupted";
	default: return "";
	}
}

static double noise_of(const double *x, int n)
{
	double sum = 0, ss = 0;
	for (int i = 0; i < n; i++)
		sum += x[i];
	double mean = sum / n;
	for (int i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	return n > 1 && mean > 0 ? sqrt(ss / (n - 1)) / mean : 0;
}

stop_why stats_stop(const double *sorted, const double *ordered, int n, double total_s, const stop_rule *t)
{
	int min_reps = t->min_reps > 1 ? t->min_reps : 1;
	if (n < min_reps)
		return STOP_NOT;
	if (n >= t->max_reps)
		return STOP_SAMPLES;
	if (total_s >= t->max_time_s)
		return STOP_TIME;
	if (total_s < t->min_time_s)
		return STOP_NOT;
	if (t->rule == RULE_NOISE)
		return noise_of(sorted, n) <= t->noise_target ? STOP_NOISE : STOP_NOT;
	/* The rule looks at the 97.5% interval. Stopping where an interval
	 * happens to be narrow favours narrow ones, and the 95% interval taken
	 * where the 95% interval first met the target held the median in 93%
	 * of simulated runs; where the 97.5% one first met it, in 95% (at
	 * about a third more samples; tests/unit/test_stats.c). */
	stats st;
	memset(&st, 0, sizeof st);
	interval_of(sorted, n, 0.0125, 1, &st);
	double vif = stats_cluster_factor(ordered, n, st.median);
	if (vif > 1)
		interval_of(sorted, n, 0.0125, vif, &st);
	return st.has_ci && st.median > 0 && st.ci_rel <= t->target ? STOP_INTERVAL : STOP_NOT;
}

double stats_quantile(const double *x, int n, double q)
{
	if (n <= 0)
		return 0;
	double *v = xmalloc((size_t)n * sizeof *v);
	memcpy(v, x, (size_t)n * sizeof *v);
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	double pos = q * (n - 1);
	int lo = (int)pos;
	int hi = lo + 1 < n ? lo + 1 : lo;
	double r = v[lo] + (pos - lo) * (v[hi] - v[lo]);
	free(v);
	return r;
}

void stats_ratio(const stats *base, const stats *x, ratio_ci *out)
{
	memset(out, 0, sizeof *out);
	if (!(base->median > 0) || !(x->median > 0))
		return;
	out->r = base->median / x->median;
	if (!base->has_ci || !x->has_ci || !(base->ci_lo > 0) || !(x->ci_lo > 0))
		return;
	/* the ratio is low when base is low and x high, high the other way */
	double b_dn = log(base->median / base->ci_lo), b_up = log(base->ci_hi / base->median);
	double x_dn = log(x->median / x->ci_lo), x_up = log(x->ci_hi / x->median);
	out->known = 1;
	out->lo = out->r * exp(-sqrt(b_dn * b_dn + x_up * x_up));
	out->hi = out->r * exp(sqrt(b_up * b_up + x_dn * x_dn));
}

const char *stats_verdict(const double *base, int nb, const double *x, int nx, double same, ratio_ci *out)
{
	stats sb, sx;
	stats_compute(base, nb, &sb);
	stats_compute(x, nx, &sx);
	stats_ratio(&sb, &sx, out);
	if (!out->known)
		return "ambiguous";
	if (out->lo > 1)
		return "faster";
	if (out->hi < 1)
		return "slower";
	if (out->lo >= 1 - same && out->hi <= 1 + same)
		return "same";
	return "ambiguous";
}
