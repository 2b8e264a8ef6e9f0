/* wseq.h: a sequence's timing (`//@ sequence`), for the time stage: its
 * samples on the kernel clock split into steps and gaps, the sequence as
 * one CUDA graph against its steps launched one by one, and its counters
 * as one. */
#ifndef CUPLAY_WSEQ_H
#define CUPLAY_WSEQ_H

#include "launch.h"
#include "timer.h"

/* What comes before a sample (the time stage's prologue: resets, flush),
 * queued, not waited for: 0, or -1 with the run's error recorded. */
typedef int (*wseq_prologue)(void *ctx, int n);

/* One run's parts: each sample's steps and gaps. */
typedef struct wseq {
	double *parts;
} wseq;

void seq_free(wseq *sq);
/* Samples n .. n+count-1 on the kernel clock, each from an idle GPU (its
 * prologue waited for), into ms[]: count, 0 when the steps' records did
 * not all come (why says so: the caller goes over to events), -1 on an
 * error. */
int seq_clock_samples(wrun *r, wseq *sq, wpool *pool, wkernels *k, wseq_prologue pro, void *ctx, int n,
                      int count, double *ms, char *why, size_t whylen);
/* After the samples on the kernel clock: the steps and gaps of the median
 * sample (res->seq.stream), which add up to it. */
void seq_split_result(wrun *r, const wseq *sq);
/* `timing graph on`: the steps captured into a CUDA graph, then the graph
 * and the steps launched one by one timed in turns between CUDA events,
 * from an idle GPU (res->seq). 0, or -1 on an error; a driver without
 * graphs is a note. */
int seq_graph_pass(wrun *r, wpool *pool, wkernels *k, wtimer *tm, wseq_prologue pro, void *ctx);
/* The steps captured into a CUDA graph and the graph launched once, as the
 * graph's samples were, after its prologue; waited for. 0, or -1 on an
 * error. */
int seq_graph_once(wrun *r, wpool *pool, wkernels *k, wseq_prologue pro, void *ctx);
/* The counters of ns kernels (per[r * n + i]) as one: a `.sum` added, a
 * `.max` the largest, a `.min` the smallest; any other (averages, ratios,
 * rates) averaged weighted by each kernel's gpu__time_duration.sum where
 * that is among the names, else evenly. ns = 1: copied. */
void seq_combine_metrics(const char *const *names, int n, int ns, const double *per, double *out);

#endif
