/* stats.c: summary statistics of timing samples and the stopping rule. */
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
	out->median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
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

int stats_should_stop(const double *x, int n, double total_s, const stop_rule *t)
{
	int min_reps = t->min_reps > 1 ? t->min_reps : 1;
	if (n < min_reps)
		return 0;
	if (n >= t->max_reps || total_s >= t->max_time_s)
		return 1;
	if (total_s < t->min_time_s)
		return 0;
	/* mean and stdev only: no sort on every sample */
	double sum = 0, ss = 0;
	for (int i = 0; i < n; i++)
		sum += x[i];
	double mean = sum / n;
	for (int i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	double noise = n > 1 && mean > 0 ? sqrt(ss / (n - 1)) / mean : 0;
	return noise <= t->noise_target;
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

const char *stats_verdict(const double *base, int nb, const double *x, int nx, double same, double *speedup)
{
	double mb = stats_quantile(base, nb, 0.5), mx = stats_quantile(x, nx, 0.5);
	*speedup = mx > 0 ? mb / mx : 0;
	if (nb < 3 || nx < 3)
		return "ambiguous";
	double b25 = stats_quantile(base, nb, 0.25), b75 = stats_quantile(base, nb, 0.75);
	double x25 = stats_quantile(x, nx, 0.25), x75 = stats_quantile(x, nx, 0.75);
	if (x75 < b25)
		return "faster";
	if (x25 > b75)
		return "slower";
	if (*speedup > 0 && fabs(*speedup - 1.0) <= same)
		return "same";
	return "ambiguous";
}
