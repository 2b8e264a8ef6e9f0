/* client.h: the front end's side of the GPU worker, a child process that
 * owns the CUDA context (worker/worker.h is the child's side).
 *
 * The front end starts it lazily (this same binary, `--worker RFD WFD DEVICE
 * WIRE_VERSION`),
 * sends it plans and reads back results over two pipes. A sticky CUDA error,
 * a crash or a kernel that makes no progress for `timeout` seconds costs only
 * the worker: the front end kills it, reports one line and starts a fresh
 * one on the next run. */
#ifndef CUPLAY_CLIENT_H
#define CUPLAY_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "plan.h"
#include "wire.h"

typedef struct wclient {
	pid_t pid;    /* 0: not running */
	int rfd, wfd;
	int device;
	devinfo dev;
	const char *exe; /* path of this binary, for exec */
	int hello_pending; /* spawned; its HELLO not read yet */
	int other_build;   /* the last start failed: the worker is from another
	                      build of cuplay (WIRE_OTHER_BUILD); restarting cannot help */
	int fatal_grace_ms; /* how long a worker that answered RES_FATAL gets to
	                       exit before it is killed (0: 5 s); a wrapper such as
	                       compute-sanitizer has its report to write */
	int msg_limit_ms;   /* a message that has begun must end within this
	                       (0: 5 s), or the worker is stopped */
	/* the worker's one-line notes during a run ("waiting for GPU 0 (another
	   cuplay is measuring)"), for the user; NULL: dropped */
	void (*note)(void *ctx, const char *text);
	void *note_ctx;
	/* the bytes the last result came with (a `lines` plan's per-line
	   records, sassprof.h's sp_head and sp_pc); NULL none; owned, replaced
	   by the next result; the caller may take them (and set NULL) */
	void *extra;
	size_t extra_len;
} wclient;

/* Starts the worker process without waiting for it: the CUDA context is
 * created while the front end does other work. wc_start then waits. */
int wc_spawn(wclient *w, char **err);

/* 1 when a worker spawned in the background has said something (its
 * HELLO, or why it cannot start): wc_start reads it without waiting. */
int wc_hello_ready(const wclient *w);

/* Progress callback, called as samples arrive (may be NULL): the client
 * draws nothing; the command that runs (cmd/run's progress) does.
 * tests/layers.sh lists where it is taken (src/README.md). */
typedef void (*wc_progress)(void *ctx, int nsamples, double last_ms);

/* Starts the worker if not running: two socket pairs used as pipes, fork,
 * execv(exe, {exe, "--worker", RFD, WFD, DEVICE}), then waits up to 30 s for
 * its HELLO (sets w->dev). exe NULL or without a '/' means /proc/self/exe.
 * -1 with *err ("no CUDA driver found (...)", "no CUDA device", "cuInit
 * failed: ...") when it cannot. Leaves the front end's signals alone. */
int wc_start(wclient *w, char **err);

/* Sends the plan and cubin (p->cubin_len is set from cubin_len); waits for
 * the result, starting the worker first if it is not running (or died while
 * idle). GPU work that reports no progress for timeout_s seconds (0: no
 * limit) kills the worker: -1, "kernel 'K' made no progress for 10 s: worker
 * stopped (settings kept; the next run starts a new one)"; host work
 * (buffers, CPU references) gets max(timeout_s, 600 s). A worker that dies
 * is reaped: -1, "the GPU worker was killed by SIGSEGV (...) while running
 * 'K' (settings kept; ...)". Returns 0 when a result record was received:
 * res->status says how the run went; after RES_FATAL (res->error is the
 * one-line cause) the worker has been reaped and the next call starts a new
 * one. *interrupt (may be NULL) is polled: when it becomes non-zero the
 * worker gets STOP and SIGINT and answers RES_INTERRUPTED with the samples
 * so far (host work that does not answer within 2 s is killed: -1). */
int wc_run(wclient *w, const plan *p, const void *cubin, size_t cubin_len,
           double timeout_s, volatile sig_atomic_t *interrupt, wc_progress cb, void *ctx,
           result *res, char **err);

/* The same under a wrapper: execv(prefix[0], {prefix..., exe, "--worker",
 * RFD, WFD, DEVICE}) (exe made absolute), e.g. a one-shot worker under
 * compute-sanitizer; waits up to hello_s seconds for its HELLO. w->pid is
 * the wrapper's. */
int wc_start_under(wclient *w, const char *const *prefix, int hello_s, char **err);

/* The device again (w->dev), with its free memory now, which the HELLO
 * cannot carry: the worker answers once its context exists. Starts the
 * worker if it is not running. -1 with *err: the worker's start-up error
 * ("cuDevicePrimaryCtxRetain failed: ..."), after which it has left. */
int wc_device(wclient *w, char **err);

/* Asks the worker to leave, then reaps it (killed after 2 s). A worker
 * spawned but not yet heard from (still loading the driver and making its
 * context) is killed at once. */
void wc_stop(wclient *w);
/* The same, waiting up to grace_ms before the kill (a wrapper may have a
 * report to write). */
void wc_stop_wait(wclient *w, int grace_ms);

/* 1 with *why (caller frees: "no CUDA driver found", "no CUDA device")
 * when this machine has no GPU device for a worker to open: no
 * /dev/nvidiactl (nor WSL's /dev/dxg). Then nothing need be started. 0
 * when there may be one (only a worker's start can tell). */
int wc_gpu_absent(char **why);

#endif
