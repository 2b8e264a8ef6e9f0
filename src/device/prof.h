/* prof.h: hardware counters of one kernel launch with CUPTI's Range
 * Profiler (AutoRange): CUPTI puts a range around each kernel launch, and
 * either replays the kernel once per pass itself, saving and restoring the
 * memory it touches (kernel replay: one call of the launch callback), or
 * leaves each pass's launch and what comes before it to the caller (user
 * replay).
 * libcupti is loaded with dlopen from $CUPLAY_CUPTI (a file) if set, else
 * $CUDA_HOME (extras/CUPTI/lib64, lib64, targets/.../lib), the built-in
 * toolkit, or the library path; it loads libnvperf_host and
 * libnvperf_target from its own directory.
 *
 * Counters may be unavailable for reasons that are nobody's bug: no CUPTI,
 * a user without profiling permission, another profiler (ncu, nsys,
 * compute-sanitizer) attached, a device or setup CUPTI does not support.
 * Those come back as PROF_UNAVAILABLE with a one-line reason, apart from
 * real errors (PROF_ERROR). Runs in the process that owns the context (the
 * worker). */
#ifndef CUPLAY_PROF_H
#define CUPLAY_PROF_H

#include <stdint.h>

#include "cudrv.h"

typedef enum prof_status {
	PROF_OK = 0,
	PROF_UNAVAILABLE = 1, /* counters cannot be read here; carry on without them */
	PROF_ERROR = 2,       /* a CUPTI call failed, or a metric this GPU does not have */
	PROF_LAUNCH = 3       /* the launch callback failed: its own arg says why; the
	                         context may be broken (check cu_is_sticky) */
} prof_status;

typedef struct prof_info {
	int passes;       /* replay passes the metrics needed */
	int ranges;       /* kernel launches profiled (1 expected) */
	int dropped;      /* ranges CUPTI dropped (a launch that started several kernels) */
	double ms;        /* wall time from start to decoded counters */
	int user_replay;  /* 1: the caller's launches replayed the kernel, one per pass */
	int launches;     /* calls of the launch callback */
	char chip[32];    /* "GH100" */
} prof_info;

/* Loads libcupti once. 1 when the Range Profiler API is there; 0 with *why
 * (caller frees): "CUPTI not found (...): set CUDA_HOME to the CUDA toolkit"
 * or "CUPTI too old: no 'cuptiRangeProfilerEnable' in '...'". A 1 does not
 * promise permission: that shows only when collecting. */
int prof_available(char **why);
/* The path libcupti was loaded from, or NULL. */
const char *prof_library(void);

/* Collects the n raw ncu metrics (names as ncu spells them, e.g.
 * "dram__bytes_read.sum") for one kernel: sets the profiler up on ctx,
 * calls launch(arg), which must launch the kernel once (asynchronously is
 * fine) and return 0, or non-zero when the launch failed; then decodes and
 * evaluates. values[i] is metric i. The context must be current. info may
 * be NULL. Every CUPTI call is checked; *err (caller frees) is one line
 * naming the call, e.g. "cuptiRangeProfilerEnable failed:
 * CUPTI_ERROR_UNKNOWN (...)", or for PROF_UNAVAILABLE the reason and what to
 * do: "hardware counters not permitted for this user: run as root or set
 * the driver option NVreg_RestrictProfilingToAdminUsers=0
 * (cuptiRangeProfilerEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)". An
 * unknown metric: PROF_ERROR, "metric 'x' does not exist on this GPU (GH100)". */
prof_status prof_collect(CUcontext ctx, CUdevice dev, const char *const *metrics, int n,
                         int (*launch)(void *arg), void *arg, double *values, prof_info *info,
                         char **err);
/* The same with user replay: before each pass, outside the profiled range,
 * prologue(arg) restores what the kernel writes (CUPTI then saves and
 * restores nothing) and may flush the L2, as before a timed sample; then
 * launch(arg) launches the kernel once. Each pass starts as a timed sample
 * does, so the counters (DRAM writes above all) describe the kernel as it
 * is timed. A CUPTI that refuses user replay gets kernel replay, the
 * prologue called once (info->user_replay says which). Non-zero from the
 * prologue: PROF_LAUNCH. */
prof_status prof_collect_replay(CUcontext ctx, CUdevice dev, const char *const *metrics, int n,
                                int (*prologue)(void *arg), int (*launch)(void *arg), void *arg,
                                double *values, prof_info *info, char **err);

/* The same for nranges kernels launched by one call of launch (a
 * sequence's steps): a range each, values[r * n + i] metric i of range r. */
prof_status prof_collect_ranges(CUcontext ctx, CUdevice dev, const char *const *metrics, int n, int nranges,
                                int (*prologue)(void *arg), int (*launch)(void *arg), void *arg,
                                double *values, prof_info *info, char **err);

/* The same metrics for nsamples launches, each its own pass in one
 * profiling session (set up once): prologue(arg) outside the range, then
 * launch(arg) makes one kernel; values[i * n + m] metric m of launch i.
 * Only for metrics of one pass under user replay (gpu__time_duration.sum):
 * PROF_ERROR otherwise. info->ms: the samples' time, setup excluded. */
prof_status prof_collect_each(CUcontext ctx, CUdevice dev, const char *const *metrics, int n, int nsamples,
                              int (*prologue)(void *arg), int (*launch)(void *arg), void *arg, double *values,
                              prof_info *info, char **err);

/* cuptiProfilerDeInitialize, when the profiler was initialised; call before
 * the worker exits (and, should timings after a collect differ, after each). */
void prof_shutdown(void);

/* 1 for CUPTI results that mean "counters unavailable here" rather than an
 * error; the explanation for them (NULL for others). For tests and callers
 * that classify codes themselves. */
int prof_is_unavailable(int cupti_result);
const char *prof_explain(int cupti_result);

/* A METRICS reply on the wire (fixed size, no pointers): status, the raw
 * values in request order, and either an error line or the profile facts. */
#define PROF_MAX_METRICS 48
typedef struct prof_reply {
	int32_t status;          /* prof_status */
	int32_t n;               /* values */
	int32_t passes, ranges, dropped;
	double ms;
	char chip[32];
	double values[PROF_MAX_METRICS];
	char error[512];
} prof_reply;

#endif
