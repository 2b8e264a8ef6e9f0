/* wtime.h: stage 5 of a request (worker.c draws them all). */
#ifndef CUPLAY_WTIME_H
#define CUPLAY_WTIME_H

#include "contents.h"
#include "gpuhash.h"
#include "launch.h"
#include "wstart.h"

/* What timing keeps from run to run. */
typedef struct wtimes {
	int empty_done;        /* an empty kernel, timed once: single and batched */
	double empty_ms, empty_batch_ms;
	int empty_kernel_done; /* ... and on the kernel clock */
	double empty_kernel_ms;
	char kclock_why[256];  /* why the kernel clock cannot be had in this worker; "" */
	int trace_loop;        /* CUPLAY_TRACE: time the parts of a sample's prologue for its line */
} wtimes;

/* The timed samples until the stopping rule says enough, each on reset
 * outputs and (with flush) a cold L2, then the timeline's run; the
 * counters pass; the last launch, made as the samples were, its outputs
 * left for a comparison with those hashed in *sums (the checked launch's;
 * in a run timed without its check, the first launch's, taken here);
 * alone on the GPU. res->time_ms. 0, or -1 when the run did not end OK. */
int time_stage(wrun *r, wtimes *tt, const wcontents *c, const whost *wh, wkernels *k, wstart *st, wtimer *tm,
               gpuhash *gh, outsums *sums);

#endif
