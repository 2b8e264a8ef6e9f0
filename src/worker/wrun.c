/* wrun.c: what every part of the GPU worker uses: the run's errors,
 * traces, progress messages and notes, device and host allocation. */
#include "wrun.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


volatile sig_atomic_t w_interrupted;

void run_begin(wrun *r, const plan *p, result *res, wchan *chan)
{
	memset(r, 0, sizeof *r);
	r->t0 = now_ns();
	r->p = p;
	r->res = res;
	r->chan = chan;
	res->status = RES_OK;
	w_interrupted = 0;
	chan->stop = 0;
}

void w_on_sigint(int sig)
{
	(void)sig;
	w_interrupted = 1;
}


/* CUPLAY_TRACE_WORKER=1: one line to stderr a phase of every run (where
 * the milliseconds of a request go). */
int w_tracing;
uint64_t w_started_ns; /* the worker's start, for the lines of its start-up */
FILE *w_errf;

void w_trace(const wrun *r, const char *fmt, ...)
{
	if (!w_tracing)
		return;
	FILE *f = w_errf ? w_errf : stderr;
	va_list ap;
	va_start(ap, fmt);
	/* a run's lines from its start; start-up's from the worker's */
	fprintf(f, "cuplay worker: %8.2f ms: ", ms_since(r ? r->t0 : w_started_ns));
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fflush(f);
	va_end(ap);
}

const char *w_bytes(uint64_t n, char *buf, size_t len)
{
	if (n >= GiB)
		snprintf(buf, len, "%.1f GiB", (double)n / (double)GiB);
	else if (n >= MiB)
		snprintf(buf, len, "%.1f MiB", (double)n / (double)MiB);
	else if (n >= KiB)
		snprintf(buf, len, "%.1f KiB", (double)n / (double)KiB);
	else
		snprintf(buf, len, "%" PRIu64 " bytes", n);
	return buf;
}

/* Records the run's error (a FATAL one replaces an earlier plain one);
 * returns -1. */
int w_fail(wrun *r, w_severity sev, const char *fmt, ...)
{
	/* the check's references run on a thread of their own beside the GPU work */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&lock);
	result *res = r->res;
	int have = res->status == RES_ERROR || res->status == RES_FATAL;
	int fatal = sev == W_FATAL;
	if (!have || (fatal && res->status != RES_FATAL)) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(res->error, sizeof res->error, fmt, ap);
		va_end(ap);
		res->status = fatal ? RES_FATAL : RES_ERROR;
	}
	pthread_mutex_unlock(&lock);
	return -1;
}

/* A CUDA call's status: "CALL failed: CUDA_ERROR_X (text)". */
int w_ck(wrun *r, CUresult e, const char *call)
{
	if (e == CUDA_SUCCESS)
		return 0;
	return w_fail(r, cu_is_sticky(e), "%s failed: %s", call, cu_errstr(e));
}

/* The status of waiting for a kernel: "kernel 'NAME' failed: ...". */
int w_ck_kernel(wrun *r, CUresult e, const char *name)
{
	if (e == CUDA_SUCCESS)
		return 0;
	if (e == CUDA_ERROR_ASSERT)
		return w_fail(r, W_FATAL, "kernel '%s' failed a device assertion (its message is above)", name);
	if (e == CUDA_ERROR_LAUNCH_FAILED)
		return w_fail(r, W_FATAL, "kernel '%s' trapped: __trap(), or a fault the GPU does not name (%s)", name,
		              cu_errstr(e));
	return w_fail(r, cu_is_sticky(e), "kernel '%s' failed: %s", name, cu_errstr(e));
}

void *w_hmalloc(wrun *r, size_t n, const char *what)
{
	void *p = big_malloc(n);
	if (!p) {
		char b[32];
		w_fail(r, W_ERROR, "cannot allocate %s of host memory for %s", w_bytes(n, b, sizeof b), what);
	}
	return p;
}

void w_progress(wchan *c, int n, int phase, double ms)
{
	wire_progress pg;
	memset(&pg, 0, sizeof pg);
	pg.nsamples = n;
	pg.phase = phase;
	pg.last_ms = ms;
	if (wire_send(c->wfd, MSG_PROGRESS, &pg, sizeof pg, NULL, 0) != 0)
		c->stop = c->quit = 1; /* the front end is gone */
}

void w_note(wchan *c, const char *text)
{
	if (wire_send(c->wfd, MSG_NOTE, text, strlen(text), NULL, 0) != 0)
		c->stop = c->quit = 1;
}

/* Reads any STOP / QUIT waiting on the pipe, without blocking. */
static void poll_requests(wchan *c)
{
	for (;;) {
		struct pollfd pf = { c->rfd, POLLIN, 0 };
		int n = poll(&pf, 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || !(pf.revents & (POLLIN | POLLHUP | POLLERR)))
			return;
		uint32_t type = 0;
		void *payload = NULL;
		uint64_t len = 0;
		int rr = wire_recv(c->rfd, &type, &payload, &len);
		free(payload);
		if (rr != 0) {
			c->stop = c->quit = 1;
			return;
		}
		if (type == MSG_STOP)
			c->stop = 1;
		else if (type == MSG_QUIT)
			c->stop = c->quit = 1;
		/* anything else during a run is dropped */
	}
}

int w_stop_now(wchan *c)
{
	poll_requests(c);
	return w_interrupted || c->stop;
}

/* Allocates device memory; out of memory is only returned (the caller may
 * make room and try again), any other failure is reported. */
CUresult w_dalloc_try(wrun *r, CUdeviceptr *d, size_t bytes, int managed, const char *what)
{
	CUresult e = managed ? cu.MemAllocManaged(d, bytes ? bytes : 1, CU_MEM_ATTACH_GLOBAL)
	                     : cu.MemAlloc(d, bytes ? bytes : 1);
	if (e == CUDA_SUCCESS)
		return e;
	*d = 0;
	if (e != CUDA_ERROR_OUT_OF_MEMORY) {
		char b[32];
		w_fail(r, cu_is_sticky(e), "%s failed for %s (%s): %s",
		      managed ? "cuMemAllocManaged" : "cuMemAlloc", what,
		      w_bytes(bytes, b, sizeof b), cu_errstr(e));
	}
	return e;
}

int w_dalloc(wrun *r, CUdeviceptr *d, size_t bytes, int managed, const char *what)
{
	CUresult e = w_dalloc_try(r, d, bytes, managed, what);
	if (e == CUDA_SUCCESS)
		return 0;
	if (e == CUDA_ERROR_OUT_OF_MEMORY) {
		char b[32];
		w_fail(r, W_ERROR, "%s failed for %s (%s): %s", managed ? "cuMemAllocManaged" : "cuMemAlloc",
		      what, w_bytes(bytes, b, sizeof b), cu_errstr(e));
	}
	return -1;
}

prefetch_fn w_prefetch;

void w_load_prefetch(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (!lib)
		return;
	/* as in cudrv.c: the bytes of a void * into a function pointer */
	void *pf = dlsym(lib, "cuMemPrefetchAsync_v2");
	if (pf)
		memcpy(&w_prefetch, &pf, sizeof pf);
	dlclose(lib); /* cu_load's handle keeps the library loaded */
}
