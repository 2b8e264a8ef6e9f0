/* expect.h: assertions on earlier results, which turn a session into a
 * checked lab.
 *
 *   expect KERNEL[SEL] correct
 *   expect A[SEL] faster|slower B[SEL] [by X]    ratio of medians
 *   expect KERNEL[SEL] gbps|roof|time|gflops|overlap OP X    OP: < <= > >=
 *   expect KERNEL[SEL] metric NAME OP X              a counter (`metrics`)
 *   expect KERNEL[SEL] bound memory|compute|latency|launch
 *   expect KERNEL[SEL] limiter dram|l2|l1|sm
 *   expect KERNEL[SEL] rule [not] NAME               `explain`'s diagnosis
 *
 * SEL picks the latest run whose values include each NAME=VALUE given, e.g.
 * transpose_tiled[PAD=0] or transpose_tiled[PAD=1,N=8192]; without SEL, the
 * latest run of the kernel. `time` is the median in ms; `roof` a fraction
 * of the measured memory roof (of the host link's, on host data); `overlap`
 * the share of copy time under kernels in the run's timeline. Without
 * counters, a diagnosis other than launch-bound is skipped, saying why. */
#ifndef CUPLAY_EXPECT_H
#define CUPLAY_EXPECT_H

#include "app.h"

/* argv[0] is "expect". 0 held (or skipped without a GPU), -1 failed (printed). */
int expect_run(app *a, int argc, char **argv);

/* The latest record matching "kernel[NAME=VALUE,...]", or NULL. */
const run_record *expect_find(const app *a, const char *label);
/* The latest timed result for label, past later untimed ones (a `metrics`
 * run, a compile-only run); NULL when there is none. */
const run_record *expect_find_timed(const app *a, const char *label);

#endif
