/* stats.h: summary statistics of timing samples and the stopping rule. */
#ifndef CUPLAY_STATS_H
#define CUPLAY_STATS_H

typedef struct stats {
	int n;
	double median, min, max, mean, stdev;
	double noise; /* relative standard deviation, stdev / mean */
} stats;

void stats_compute(const double *x, int n, stats *out);

/* When sampling stops (a plan's timing_opts carries these). */
typedef struct stop_rule {
	int min_reps, max_reps;
	double noise_target, min_time_s, max_time_s;
} stop_rule;

/* 1 when sampling may stop: n >= min_reps and either (noise <= target and
 * total >= min_time_s) or total >= max_time_s or n >= max_reps. */
int stats_should_stop(const double *x, int n, double total_s, const stop_rule *t);

#endif

#ifndef CUPLAY_STATS_VERDICT
#define CUPLAY_STATS_VERDICT
/* The q-quantile (0..1) of x, linear between order statistics. */
double stats_quantile(const double *x, int n, double q);

/* Compares x with a baseline from their samples: *speedup = median(base) /
 * median(x). "faster" or "slower" when the interquartile ranges do not
 * overlap, "same" when they do and the medians are within `same` (e.g. 0.02)
 * of each other, else "ambiguous". */
const char *stats_verdict(const double *base, int nb, const double *x, int nx, double same, double *speedup);
#endif
