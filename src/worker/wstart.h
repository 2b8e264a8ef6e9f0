/* wstart.h: the GPU worker's start-up: the device, then the context on a
 * thread of its own. */
#ifndef CUPLAY_WSTART_H
#define CUPLAY_WSTART_H

#include <pthread.h>

#include "gpufill.h"
#include "nvml.h"
#include "timer.h"

/* The context's state at start-up (wstart.ctx_state). */
enum { CTX_PENDING, CTX_READY, CTX_FAILED };

typedef struct wstart {
	int ordinal;
	int wrapped;           /* started under a wrapper (compute-sanitizer): no CUPTI set-up */
	CUdevice dev;
	CUcontext ctx;
	int have_ctx;
	devinfo info;
	/* The HELLO goes once the device is known; the context and CUPTI's
	 * set-up, then NVML, are made on a thread of their own while the
	 * first request's host work goes on. */
	pthread_t thread;
	int running;           /* the thread was started and is not joined yet */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int ctx_state;         /* CTX_*: written under mu, final once not pending */
	char err[512];         /* why there is no context (CTX_FAILED) */
	int ctx_waited;        /* start_ctx_wait has returned once: the context is current here */
	double ctx_wait_ms;    /* how long that first wait took */
	/* made on the thread beside the context */
	wtimer *timer;         /* the event pair */
	gpufill *fill;         /* the fill's kernels */
	nvml_dev *nvml;
} wstart;

/* The driver, the device and its facts (ws->info); -1 with *err. */
int start_device(wstart *ws, char **err);
/* Starts the start-up thread; SIGINT stays with the main thread. */
int start_thread(wstart *ws, char **err);
/* Before the first device call of any request: waits for the start-up
 * thread's context and makes it current on the calling thread. NULL when
 * it is there, else why not (the start-up's error, which the request then
 * reports). Cheap after the first call. Only the worker's main thread calls
 * it; a thread of its own that makes CUDA calls sets the context itself. */
const char *start_ctx_wait(wstart *ws);
/* Waits for the rest of the start-up thread's work (NVML) before its
 * first use; idempotent. */
void start_join(wstart *ws);
/* The context goes. */
void start_release(wstart *ws);

#endif
