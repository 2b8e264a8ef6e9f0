/* stats.h: summary statistics of timing samples and the stopping rule. */
#ifndef CUPLAY_STATS_H
#define CUPLAY_STATS_H

#include "plan.h"

typedef struct stats {
	int n;
	double median, min, max, mean, stdev;
	double noise; /* relative standard deviation, stdev / mean */
} stats;

void stats_compute(const double *x, int n, stats *out);

/* 1 when sampling may stop: n >= min_reps and either (noise <= target and
 * total >= min_time_s) or total >= max_time_s or n >= max_reps. */
int stats_should_stop(const double *x, int n, double total_s, const timing_opts *t);

#endif
