/* ccserver.h: NVRTC in a child process that the front end can abandon.
 *
 * A compile can take long (CUB, a header whose macros double twenty times)
 * and NVRTC cannot be told to stop. So compiles run in a long-lived child,
 * this same binary as `--compile-server FD`, which keeps NVRTC loaded and
 * warm, and its heap of precompiled headers, from one compile to the next.
 * The front end waits for the answer with poll: Ctrl-C (the interrupt
 * flag) or the compile time limit kills the child and returns at once with
 * one line, every setting kept; a new child starts at once, warming up
 * while the user types. A child that crashes (NVRTC on strange input) costs
 * one line too. Without ccs_init, compiles run in the calling process (the
 * unit tests, the fuzzers). */
#ifndef CUPLAY_CCSERVER_H
#define CUPLAY_CCSERVER_H

#include <signal.h>
#include "nvrtc.h"

#define CCS_LIMIT_DEFAULT 120.0 /* seconds a compile may take */

/* Compiles go to a child from now on: exe (this binary's path; NULL or
 * without a '/': /proc/self/exe) run as `exe --compile-server FD`.
 * interrupt: polled while waiting (non-zero: stop). CUPLAY_COMPILE_INPROC=1
 * keeps compiles in this process. */
void ccs_init(const char *exe, volatile sig_atomic_t *interrupt);
int ccs_enabled(void);
/* The time limit of one compile, in seconds (0: none). */
void ccs_set_limit(double seconds);
double ccs_limit(void);
/* Starts the child now, without waiting for it: it loads NVRTC and
 * compiles a warm-up kernel while the user does other things. */
void ccs_prestart(void);
/* nvrtc_run, in the child when enabled (else here). An interrupted or
 * stopped compile: -1 with *err, "compile of 'k.cu' interrupted: the
 * compiler was stopped (settings kept)". */
int ccs_run(const nvrtc_job *job, nvrtc_out *out, char **err);
/* A compile in the background: job sent to the child, nobody waiting.
 * A ccs_run of the same job then waits for its answer (nothing is
 * compiled twice); one of another job, or ccs_submit of another, stops it
 * with its process (superseded). A second child starts beside it and
 * warms NVRTC up, the next one when the job is stopped, so the compile
 * wanted instead does not wait for a warm-up. 0, or -1 when it cannot be
 * sent (no child: compiles in this process, or none can start). */
int ccs_submit(const nvrtc_job *job);
/* 1 while a job submitted is not answered. */
int ccs_pending(void);
/* Stops a job submitted and its process (the spare takes its place, or a
 * new one warms up): 1 when there was one. */
int ccs_cancel(void);
/* The answer of a job submitted, when it has come: 1 with *out, -1 with
 * *err (the compile's error), 0 when there is none yet (or no job). */
int ccs_collect(nvrtc_out *out, char **err);
/* Compiles jobs[0..n) at once in up to width compiler processes: the
 * server and width-1 more, started for the batch and let go after it.
 * rc[j] 0 with outs[j], or -1 with errs[j] (caller frees both). Ctrl-C
 * stops them all: -1 (the jobs not done failed); else 0. */
int ccs_run_batch(const nvrtc_job *const *jobs, int n, int width, nvrtc_out *outs, int *rc, char **errs);
/* ccs_prestart, and the spare a job in the background has beside it,
 * warming up now (at an interactive prompt, where compiles go ahead in the
 * background: the first one stopped does not wait for a warm-up either). */
void ccs_prestart_spare(void);
/* Lets the child go (it ends at the end of its input; one compiling in the
 * background is stopped, and the spare). */
void ccs_stop(void);

/* The encodings that cross, for the unit tests and the fuzzers. A job
 * decoded is a copy that owns its strings (ccs_job_free). */
typedef struct ccs_job ccs_job;
char *ccs_encode_job(const nvrtc_job *j, size_t *len);
int ccs_decode_job(const char *p, size_t len, ccs_job **out); /* 0, or -1: not a job */
const nvrtc_job *ccs_job_get(const ccs_job *b);
void ccs_job_free(ccs_job *b);
char *ccs_encode_answer(int rc, const char *err, const nvrtc_out *o, size_t *len);
/* 0 with *o (an answer of success), -1 with *err (the compile's error, or
 * "the compiler process sent an answer that cannot be read"). */
int ccs_decode_answer(const char *p, size_t len, nvrtc_out *o, char **err);

/* The child: `--compile-server FD`, the arguments after the option.
 * Serves compiles until the socket closes; returns the exit code. */
int ccs_main(int argc, char **argv);

#endif
