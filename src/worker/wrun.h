/* wrun.h: the request the GPU worker is serving, as every part of the
 * worker sees it: its plan, its result, the pipe to the front end, and
 * the helpers that report on it (errors, traces, progress, allocation).
 * The worker's own state is not here: worker.c owns it and hands each
 * stage the part it needs (worker.c draws the stages). */
#ifndef CUPLAY_WRUN_H
#define CUPLAY_WRUN_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "cudrv.h"
#include "util.h"
#include "wire.h"

/* The pipe to the front end and what came down it during a run. */
typedef struct wchan {
	int rfd, wfd;
	int stop, quit;        /* STOP / QUIT (or the front end gone) seen */
	void *extra;           /* bytes to send after the next result (the per-line run's); owned */
	size_t extra_len;
} wchan;

/* One request. */
typedef struct wrun {
	const plan *p;
	result *res;
	wchan *chan;
	uint64_t t0;           /* the request's start, for traces */
	uint64_t launches;     /* of the user's kernels in this run */
	uint64_t filled;       /* bytes the GPU fill wrote in this run */
	uint64_t uploaded;     /* bytes uploaded from host copies in this run */
} wrun;

/* A run begins: its result OK, no STOP seen yet. */
void run_begin(wrun *r, const plan *p, result *res, wchan *chan);

/* A launch's kernel as the cubin names it (mangled, unless extern "C"). */
static inline const char *kernel_symbol(const plan_launch *l)
{
	return l->lowered[0] ? l->lowered : l->name;
}

extern volatile sig_atomic_t w_interrupted; /* SIGINT seen (w_on_sigint) */
extern int w_tracing;                       /* CUPLAY_TRACE_WORKER */
extern uint64_t w_started_ns;               /* when the worker started (w_trace(NULL, ...)) */
extern FILE *w_errf;                        /* the worker's stderr: fd 2 is the printf file during a run */
void w_on_sigint(int sig);
/* CUPLAY_TRACE_WORKER=1: one line a phase of every run, to the worker's own
 * stderr (w_errf). */
void w_trace(const wrun *r, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* "1.5 GiB", "12 bytes": sizes in messages. */
const char *w_bytes(uint64_t n, char *buf, size_t len);
/* How bad an error is: the run failed (the worker goes on), or the
 * context is broken (a sticky error: RES_FATAL, the worker leaves). */
typedef enum w_severity { W_ERROR = 0, W_FATAL = 1 } w_severity;
/* Records the run's error (a FATAL one replaces an earlier plain one);
 * returns -1, as every stage and helper of the worker does on an error. */
int w_fail(wrun *r, w_severity sev, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* A CUDA call's status: 0, or -1 with "CALL failed: CUDA_ERROR_X (text)". */
int w_ck(wrun *r, CUresult e, const char *call);
/* The status of waiting for a kernel: "kernel 'NAME' failed: ...". */
int w_ck_kernel(wrun *r, CUresult e, const char *name);
void *w_hmalloc(wrun *r, size_t n, const char *what);
void w_progress(wchan *c, int n, int phase, double ms);
/* A one-line note for the user ("waiting for GPU 0 ..."). */
void w_note(wchan *c, const char *text);
/* Reads STOP / QUIT without blocking: 1 when the run should stop. */
int w_stop_now(wchan *c);
/* Device memory: out of memory is only returned by w_dalloc_try (the
 * caller may make room and try again); w_dalloc reports every failure. */
CUresult w_dalloc_try(wrun *r, CUdeviceptr *d, size_t bytes, int managed, const char *what);
int w_dalloc(wrun *r, CUdeviceptr *d, size_t bytes, int managed, const char *what);

/* cuMemPrefetchAsync_v2 (CUDA 12.2+): sends managed pages back to the host
 * before each timed launch, so every sample pays the first-touch migration
 * that unified memory costs (lecture 002). */
typedef struct cu_mem_location { int type, id; } cu_mem_location;
enum { CU_MEM_LOCATION_TYPE_DEVICE_ = 1, CU_MEM_LOCATION_TYPE_HOST_ = 2 };
typedef CUresult (*prefetch_fn)(CUdeviceptr p, size_t bytes, cu_mem_location loc, unsigned int flags, CUstream s);
extern prefetch_fn w_prefetch;
/* Looks it up in the libcuda that cu_load opened (NULL where it lacks it). */
void w_load_prefetch(void);

#endif
