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

/* The interval of the median of sorted s[0..n) that misses with
 * probability at most 2 tail, into st (has_ci 0 when none). */
static void interval_of(const double *s, int n, double median, double tail, stats *st)
{
	int lo, hi;
	st->has_ci = 0;
	st->ci_lo = st->ci_hi = st->ci_rel = 0;
	if (ranks_at(n, tail, &lo, &hi) != 0)
		return;
	st->has_ci = 1;
	/* Timestamps come in ticks (tens of nanoseconds on some GPUs): where
	 * many samples share a value the order statistics can coincide, an
	 * interval of width zero about a median known only to a tick. Where
	 * ties are the rule (at most half as many distinct values as samples)
	 * half a tick is added on each side, the tick taken as the widest step
	 * between distinct values in the middle half of the samples and the
	 * nearest step on either side of it (the tails' sparse values would
	 * overstate it; ticks rounded to nanoseconds leave some steps of one).
	 * That errs wide: in simulated runs timed by a clock of ticks it held
	 * the median in 96.2% to 99.9% of them, where the bare order
	 * statistics held it in 87% to 97% (tests/unit/test_stats.c). */
	double tick = 0;
	int distinct = 1;
	for (int i = 1; i < n; i++)
		distinct += s[i] > s[i - 1];
	if (distinct >= 4 && distinct <= n / 2) {
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
	}
	st->tick = tick;
	st->ci_lo = s[lo] - tick / 2;
	st->ci_hi = s[hi] + tick / 2;
	double side = fmax(median - st->ci_lo, st->ci_hi - median);
	st->ci_rel = median > 0 ? side / median : 0;
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
	out->median = median_sorted(s, n);
	interval_of(s, n, out->median, 0.025, out);
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

stop_why stats_stop(const double *sorted, int n, double total_s, const stop_rule *t)
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
	double med = median_sorted(sorted, n);
	interval_of(sorted, n, med, 0.0125, &st);
	return st.has_ci && med > 0 && st.ci_rel <= t->target ? STOP_INTERVAL : STOP_NOT;
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
