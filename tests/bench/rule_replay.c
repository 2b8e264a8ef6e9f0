/* rule_replay.c: the interval rule replayed on samples already taken, for
 * `make bench` to show what the rule alone changes. Each line of standard
 * input is one run's samples in ms, in the order taken (as
 * CUPLAY_TRACE_SAMPLES prints them, after the colon). For each, the rule
 * (stats_stop with cuplay's defaults: the median's 97.5% interval within
 * +-0.5%, at least 10 samples and 2 ms of kernel time, at most 0.5 s or
 * 2048 samples) looks after every sample, as the worker does after each
 * group (the wall cap, which depends on the host, is left out). Prints per
 * line: "stop_n median ci_rel all_n all_median inside", the median and
 * 95% interval where the rule stopped, the median of all the samples, and
 * whether that lies within the interval (1) or not (0). */
#include "stats.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RULE_REPLAY_MAX 4096 /* more than a run takes */

int main(void)
{
	static double x[RULE_REPLAY_MAX], sorted[RULE_REPLAY_MAX];
	stop_rule t = { RULE_INTERVAL, 10, 2048, 0.005, 0.005, 0.002, 0.5 };
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, stdin) > 0) {
		int n = 0;
		char *p = strrchr(line, ':');
		p = p ? p + 1 : line;
		for (char *e; n < RULE_REPLAY_MAX; p = e) {
			double v = strtod(p, &e);
			if (e == p)
				break;
			x[n++] = v;
		}
		if (n < 1)
			continue;
		int k = 0;
		double total_s = 0;
		while (k < n && stats_stop(sorted, x, k, total_s, &t) == STOP_NOT) {
			stats_insert_sorted(sorted, k, x[k]);
			total_s += x[k] * 1e-3;
			k++;
		}
		stats at, all;
		stats_compute(x, k, &at);
		stats_compute(x, n, &all);
		printf("%d %.6f %.4f %d %.6f %d\n", k, at.median, at.ci_rel, n, all.median,
		       at.has_ci && at.ci_lo <= all.median && all.median <= at.ci_hi);
	}
	free(line);
	return 0;
}
