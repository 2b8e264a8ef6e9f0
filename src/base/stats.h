/* stats.h: summary statistics of timing samples, the median's confidence
 * interval, the stopping rules, and verdicts on two sets of samples. */
#ifndef CUPLAY_STATS_H
#define CUPLAY_STATS_H

typedef struct stats {
	int n;
	double median, min, max, mean, stdev;
	double noise;  /* relative standard deviation, stdev / mean: the spread */
	/* The 95% confidence interval of the median, distribution-free (two
	 * order statistics; stats_median_ranks). has_ci is 0 below 6 samples,
	 * too few for one. ci_rel: the interval's wider side over the median,
	 * what a table shows as "±0.2%". */
	int has_ci;
	double ci_lo, ci_hi, ci_rel;
	double tick; /* the clock's step the interval was widened by (0: none seen) */
	double cluster; /* samples in runs: how many times an independent sample's
	                 * variance the median's has (stats_cluster_factor; 1: none) */
} stats;

/* x[0..n) in the order taken: the interval allows for samples that come
 * in runs (stats_cluster_factor). */
void stats_compute(const double *x, int n, stats *out);

/* Samples in the order taken that come in runs (a GPU that holds one of
 * two speeds for several launches, then the other) tell less about the
 * median than as many independent ones. Where the runs above and below
 * median are fewer than independent samples give (Wald and Wolfowitz's
 * runs test, z < STATS_CLUSTER_Z), returns the factor by which the
 * median's variance exceeds an independent sample's, (1 + r) / (1 - r)
 * for r the correlation of neighbouring samples' sides of the median (as
 * a chain of two states, from how often neighbours switch sides); the
 * interval is then that of n / factor samples. Else (and under STATS_CLUSTER_MIN_N samples, or x NULL) 1. */
#define STATS_CLUSTER_MIN_N 16
#define STATS_CLUSTER_Z (-2.0)
double stats_cluster_factor(const double *x, int n, double median);

/* The 95% confidence interval of the median of n samples as ranks into
 * them, sorted: [x[*lo], x[*hi]] (0-based), the order statistics j and
 * n + 1 - j for the largest j whose binomial(n, 1/2) tail is at most
 * 2.5% on each side. It holds the median of the distribution the samples
 * came from in at least 95% of sets of n, whatever that distribution is
 * (ties only widen it). -1 when n < 6. */
int stats_median_ranks(int n, int *lo, int *hi);

/* Inserts x into v[0..n), sorted ascending (room for n + 1). */
void stats_insert_sorted(double *v, int n, double x);

/* When sampling stops (a plan's timing_opts carries these). */
typedef enum stop_kind {
	RULE_INTERVAL = 0, /* the median's 95% interval within +-target of it */
	RULE_NOISE = 1     /* the relative standard deviation under noise_target */
} stop_kind;

/* Why sampling stopped (result.stop): STOP_NOT while it goes on. */
typedef enum stop_why {
	STOP_NOT = 0,
	STOP_INTERVAL, /* the interval reached its target */
	STOP_NOISE,    /* the noise reached its target */
	STOP_SAMPLES,  /* the most samples allowed */
	STOP_TIME,     /* the most kernel time allowed */
	STOP_WALL,     /* the most wall time in the loop */
	STOP_INTERRUPTED
} stop_why;

/* "interval", "noise", "samples", "time", "wall", "interrupted"; "" for STOP_NOT */
const char *stop_why_name(int why);

typedef struct stop_rule {
	int rule;          /* stop_kind */
	int min_reps, max_reps;
	double target;     /* RULE_INTERVAL: e.g. 0.005 for +-0.5% */
	double noise_target, min_time_s, max_time_s;
} stop_rule;

/* Whether sampling may stop, given the samples so far, sorted and in the
 * order taken (NULL: not known), and the kernel time they sum to: STOP_NOT until n >= min_reps; then
 * STOP_SAMPLES at max_reps, STOP_TIME at max_time_s; then, once min_time_s
 * is sampled, STOP_INTERVAL (STOP_NOISE) when the rule's target is met. */
stop_why stats_stop(const double *sorted, const double *ordered, int n, double total_s, const stop_rule *t);

/* The q-quantile (0..1) of x, linear between order statistics. */
double stats_quantile(const double *x, int n, double q);

/* The ratio of two medians, base over x (a speedup: above 1, x ran
 * faster), and its ~95% interval: the sides of the two medians' intervals,
 * as logarithms, added in quadrature. known is 0 when either has no
 * interval. */
typedef struct ratio_ci {
	int known;
	double r, lo, hi;
} ratio_ci;

void stats_ratio(const stats *base, const stats *x, ratio_ci *out);

/* A verdict on x against a baseline from their samples: "faster" when the
 * ratio's interval lies above 1, "slower" when below, "same" when it holds
 * 1 and lies within 1 +- same (e.g. 0.02), else "ambiguous" (also when
 * either has fewer than 6 samples). *out: the ratio and its interval. */
const char *stats_verdict(const double *base, int nb, const double *x, int nx, double same, ratio_ci *out);

#endif
