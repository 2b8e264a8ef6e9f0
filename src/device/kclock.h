/* kclock.h: how long kernels ran by the GPU's own clock, from CUPTI's
 * Activity API: CUPTI_ACTIVITY_KIND_KERNEL records, whose start and end the
 * GPU writes around each kernel with kernels serialized. On an H100 they
 * agree with Nsight Compute's gpu__time_duration within 2% from 4 us
 * kernels up (BENCHMARKS.md). The concurrent-kernel records
 * (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) read about 1.5 us shorter than
 * ncu there, and a pair of CUDA events around the launch about 0.6 us
 * longer: a sixteenth of a 10 us kernel.
 *
 * One per process (CUPTI's activity buffers are process-wide), used by the
 * worker, which owns the context. libcupti comes from cuptilib.c. */
#ifndef CUPLAY_KCLOCK_H
#define CUPLAY_KCLOCK_H

#include <stdint.h>

/* Starts recording kernels. 0, or -1 with *why (caller frees) when kernel
 * timestamps cannot be had here: "CUPTI not found (...)", "kernel
 * timestamps taken by another profiler (ncu, nsys or compute-sanitizer?):
 * cuptiActivityEnable: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED". The
 * first start in a process loads and sets up CUPTI (about 15 ms). */
int kclock_start(char **why);

/* CUPTI's one-time set-up (loading it, registering the activity buffers,
 * a first enable and flush), with the context current, ahead of the first
 * kclock_start, which then costs little. Records nothing. 0, or -1 with
 * *why as kclock_start would say it (the first kclock_start tries again). */
int kclock_prepare(char **why);

/* After the caller has synchronized the context: has CUPTI deliver its
 * finished records, and moves the durations (ms) of the kernels whose
 * symbol is `symbol` (as in the cubin: mangled) into ms[], oldest first, at
 * most max. Records of other kernels are dropped. Returns how many, or -1
 * with *why (caller frees) when CUPTI failed or records were lost. */
int kclock_take(const char *symbol, double *ms, int max, char **why);

/* The same for several kernels at once (a sequence's steps): the records
 * of the kernels whose symbol is one of symbols[0..nsym), each as the index
 * of its symbol and its start and end, ordered by start; at most max.
 * Returns how many, or -1 with *why. */
#define KCLOCK_MAX_SYMBOLS 16
typedef struct kspan {
	int32_t sym;
	uint64_t start_ns, end_ns;
} kspan;
int kclock_take_spans(const char *const *symbols, int nsym, kspan *out, int max, char **why);

/* Stops recording and drops what is pending. Safe to call when not started. */
void kclock_stop(void);

/* The timeline of a run: its copies and kernels with their streams, from
 * CUPTI_ACTIVITY_KIND_MEMCPY and CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL
 * records (kernels not serialized: streams overlap as they would). Not
 * while kclock_start's recording is on. */
enum { SPAN_KERNEL = 1, SPAN_H2D = 2, SPAN_D2H = 3, SPAN_COPY = 4 /* another copy */ };
typedef struct tl_span {
	int32_t kind;                /* SPAN_* */
	uint32_t stream;             /* CUPTI's stream id */
	uint64_t start_ns, end_ns;   /* the GPU's timestamps */
	uint64_t bytes;              /* a copy's */
} tl_span;

/* Starts recording copies and kernels: 0, or -1 with *why (caller frees). */
int ktrace_start(char **why);
/* After the caller has synchronized the context: the spans recorded since
 * ktrace_start, at most max, in the order CUPTI gave them; *lost: those
 * that did not fit. -1 with *why when CUPTI failed. */
int ktrace_take(tl_span *out, int max, int *lost, char **why);
/* Stops recording and drops what is pending. */
void ktrace_stop(void);

#endif
