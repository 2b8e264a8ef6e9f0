/* server_base.c: what every part of the GPU worker uses: errors, traces,
 * progress messages, device and host allocation, argument building and
 * launches. */
#include "server.h"

#include <pthread.h>

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"

volatile sig_atomic_t w_interrupted;

void w_on_sigint(int sig)
{
	(void)sig;
	w_interrupted = 1;
}


/* CUPLAY_TRACE_WORKER=1: one line to stderr a phase of every run (where
 * the milliseconds of a request go). */
int w_tracing;
uint64_t w_started_ns; /* the worker's start, for the lines of its start-up */
FILE *w_errf; /* the worker's stderr: fd 2 is the printf file during a run */

void w_trace(wrun *r, const char *fmt, ...)
{
	if (!w_tracing)
		return;
	FILE *f = w_errf ? w_errf : stderr;
	va_list ap;
	va_start(ap, fmt);
	/* a run's lines from its start; start-up's from the worker's */
	fprintf(f, "cuplay worker: %8.2f ms: ", (double)(now_ns() - (r ? r->t0 : w_started_ns)) / 1e6);
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
int w_fail(wrun *r, int fatal, const char *fmt, ...)
{
	/* the check's references run on a thread of their own beside the GPU work */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&lock);
	result *res = r->res;
	int have = res->status == RES_ERROR || res->status == RES_FATAL;
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
		return w_fail(r, 1, "kernel '%s' failed a device assertion (its message is above)", name);
	if (e == CUDA_ERROR_LAUNCH_FAILED)
		return w_fail(r, 1, "kernel '%s' trapped: __trap(), or a fault the GPU does not name (%s)", name,
		              cu_errstr(e));
	return w_fail(r, cu_is_sticky(e), "kernel '%s' failed: %s", name, cu_errstr(e));
}

void *w_hmalloc(wrun *r, size_t n, const char *what)
{
	void *p = big_malloc(n);
	if (!p) {
		char b[32];
		w_fail(r, 0, "cannot allocate %s of host memory for %s", w_bytes(n, b, sizeof b), what);
	}
	return p;
}

void w_progress(wstate *ws, int n, int phase, double ms)
{
	wire_progress pg;
	memset(&pg, 0, sizeof pg);
	pg.nsamples = n;
	pg.phase = phase;
	pg.last_ms = ms;
	if (wire_send(ws->wfd, MSG_PROGRESS, &pg, sizeof pg, NULL, 0) != 0)
		ws->stop = ws->quit = 1; /* the front end is gone */
}

/* Reads any STOP / QUIT waiting on the pipe, without blocking. */
static void poll_requests(wstate *ws)
{
	for (;;) {
		struct pollfd pf = { ws->rfd, POLLIN, 0 };
		int n = poll(&pf, 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || !(pf.revents & (POLLIN | POLLHUP | POLLERR)))
			return;
		uint32_t type = 0;
		void *payload = NULL;
		uint64_t len = 0;
		int rr = wire_recv(ws->rfd, &type, &payload, &len);
		free(payload);
		if (rr != 0) {
			ws->stop = ws->quit = 1;
			return;
		}
		if (type == MSG_STOP)
			ws->stop = 1;
		else if (type == MSG_QUIT)
			ws->stop = ws->quit = 1;
		/* anything else during a run is dropped */
	}
}

int w_stop_now(wstate *ws)
{
	poll_requests(ws);
	return w_interrupted || ws->stop;
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
		w_fail(r, 0, "%s failed for %s (%s): %s", managed ? "cuMemAllocManaged" : "cuMemAlloc",
		      what, w_bytes(bytes, b, sizeof b), cu_errstr(e));
	}
	return -1;
}

host_alloc_fn w_host_alloc;
host_free_fn w_host_free;
prefetch_fn w_prefetch;

void w_load_host_alloc(void)
{
	const char *env = getenv("CUPLAY_PAGEABLE");
	if (env && env[0] && strcmp(env, "0") != 0)
		return;
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	if (!lib)
		return;
	void *a = dlsym(lib, "cuMemHostAlloc"), *f = dlsym(lib, "cuMemFreeHost");
	if (a && f) {
		/* as in cudrv.c: the bytes of a void * into a function pointer */
		memcpy(&w_host_alloc, &a, sizeof a);
		memcpy(&w_host_free, &f, sizeof f);
	}
	void *pf = dlsym(lib, "cuMemPrefetchAsync_v2");
	if (pf)
		memcpy(&w_prefetch, &pf, sizeof pf);
	dlclose(lib); /* cu_load's handle keeps the library loaded */
}

const char *w_ctx_wait(wstate *ws)
{
	if (ws->ctx_waited)
		return ws->ctx_state == CTX_READY ? NULL : ws->start_err;
	uint64_t t0 = now_ns();
	pthread_mutex_lock(&ws->start_mu);
	while (ws->ctx_state == CTX_PENDING)
		pthread_cond_wait(&ws->start_cv, &ws->start_mu);
	int state = ws->ctx_state;
	pthread_mutex_unlock(&ws->start_mu);
	if (state == CTX_READY) {
		CUresult e = cu.CtxSetCurrent(ws->ctx);
		if (e != CUDA_SUCCESS) {
			snprintf(ws->start_err, sizeof ws->start_err, "cuCtxSetCurrent failed: %s", cu_errstr(e));
			pthread_mutex_lock(&ws->start_mu);
			ws->ctx_state = CTX_FAILED;
			pthread_mutex_unlock(&ws->start_mu);
		}
	}
	ws->ctx_waited = 1;
	ws->ctx_wait_ms = (double)(now_ns() - t0) / 1e6;
	w_trace(NULL, "start-up: the first device call waited %.2f ms for the context", ws->ctx_wait_ms);
	return ws->ctx_state == CTX_READY ? NULL : ws->start_err;
}

void w_start_join(wstate *ws)
{
	if (!ws->start_running)
		return;
	uint64_t t0 = now_ns();
	pthread_join(ws->start_thread, NULL);
	ws->start_running = 0;
	w_trace(NULL, "start-up: joined the start-up thread (waited %.2f ms)", (double)(now_ns() - t0) / 1e6);
}

void w_early_fill(wrun *r)
{
	const plan *p = r->p;
	wstate *ws = r->ws;
	w_early_free(ws);
	int n = 0;
	for (int i = 0; i < p->nbufs && i < PLAN_MAX_BUFS; i++) {
		const plan_buf *pb = &p->bufs[i];
		/* what pool_host_of fills for an upload: no memset will do */
		if (pb->global || (pb->init != INIT_RANDOM && pb->init != INIT_IOTA) || pb->count == 0)
			continue;
		size_t bytes = (size_t)(pb->count * dtype_size(pb->type));
		void *h = big_malloc(bytes);
		if (!h)
			continue;
		buffer_fill(h, pb->type, pb->count, pb->init, pb->value, buffer_seed(p->seed, pb->name));
		ws->early[i] = h;
		ws->early_bytes[i] = bytes;
		n++;
	}
	if (n > 0)
		w_trace(r, "host copies of %d buffer%s filled while the context is made", n, n == 1 ? "" : "s");
}

void *w_early_take(wrun *r, int i, size_t bytes)
{
	wstate *ws = r->ws;
	if (i < 0 || i >= PLAN_MAX_BUFS || !ws->early[i])
		return NULL;
	void *h = ws->early[i];
	ws->early[i] = NULL;
	if (ws->early_bytes[i] != bytes) {
		free(h);
		return NULL;
	}
	return h;
}

void w_early_free(wstate *ws)
{
	for (int i = 0; i < PLAN_MAX_BUFS; i++) {
		free(ws->early[i]);
		ws->early[i] = NULL;
	}
}

static int check_launch(wrun *r, const plan_launch *l)
{
	const plan *p = r->p;
	if (l->nargs < 0 || l->nargs > PLAN_MAX_ARGS)
		return w_fail(r, 0, "kernel '%s' has %d arguments; at most %d are supported",
		             l->name, l->nargs, PLAN_MAX_ARGS);
	for (int i = 0; i < l->nargs; i++) {
		const plan_arg *a = &l->args[i];
		if (a->kind <= ARG_NONE || a->kind > ARG_F64)
			return w_fail(r, 0, "kernel '%s' parameter %d has a type that cannot be passed",
			             l->name, i + 1);
		if (a->kind == ARG_PTR && (a->buf < 0 || a->buf >= p->nbufs))
			return w_fail(r, 0, "kernel '%s' parameter %d names no buffer", l->name, i + 1);
	}
	for (int i = 0; i < 3; i++)
		if (l->grid[i] == 0 || l->block[i] == 0)
			return w_fail(r, 0, "kernel '%s' has an empty launch: grid %ux%ux%u, block %ux%ux%u",
			             l->name, l->grid[0], l->grid[1], l->grid[2],
			             l->block[0], l->block[1], l->block[2]);
	return 0;
}

int w_validate_plan(wrun *r)
{
	const plan *p = r->p;
	if (p->nbufs < 0 || p->nbufs > PLAN_MAX_BUFS)
		return w_fail(r, 0, "%d buffers; at most %d are supported", p->nbufs, PLAN_MAX_BUFS);
	for (int i = 0; i < p->nbufs; i++) {
		const plan_buf *b = &p->bufs[i];
		size_t es = dtype_size(b->type);
		if (es == 0)
			return w_fail(r, 0, "buffer '%s' has an unknown element type", b->name);
		if (b->count > ((uint64_t)1 << 47) || b->count > (uint64_t)(SIZE_MAX / 8))
			return w_fail(r, 0, "buffer '%s' is too large (%" PRIu64 " elements)", b->name, b->count);
		if (b->init == INIT_LIST && (p->nlist > PLAN_MAX_LIST || b->list_off > p->nlist ||
		                             b->list_n > p->nlist - b->list_off ||
		                             b->list_n != b->count * (uint64_t)dtype_lanes(b->type)))
			return w_fail(r, 0, "global '%s' has a bad list of values", b->name);
		if (b->global && (!memchr(b->sym, 0, sizeof b->sym) || !b->sym[0]))
			return w_fail(r, 0, "global '%s' has no symbol", b->name);
	}
	if (check_launch(r, &p->launch) != 0)
		return -1;
	if (p->nchunks < 0 || p->nchunks > PLAN_MAX_CHUNKS)
		return w_fail(r, 0, "%d chunks; at most %d are supported", p->nchunks, PLAN_MAX_CHUNKS);
	for (int i = 0; i < p->nbufs; i++) {
		const plan_buf *b = &p->bufs[i];
		if (!b->copy_in && !b->copy_out)
			continue;
		if (b->managed || b->global || p->nchunks == 0)
			return w_fail(r, 0, "buffer '%s' is copied from the host, but is %s", b->name,
			              b->managed ? "managed" : b->global ? "a global" : "in no pipeline");
		for (int c = 0; c < p->nchunks; c++) {
			const plan_chunk *k = &p->chunks[c];
			uint64_t end = p->nchunks > 1 || b->per ? (k->start + k->len) * b->per : b->count;
			if (k->len > b->count || k->start > b->count || end > b->count || (p->nchunks > 1 && !b->per))
				return w_fail(r, 0, "chunk %d of buffer '%s' is outside it", c + 1, b->name);
		}
	}
	if (p->nchecks < 0 || p->nchecks > PLAN_MAX_CHECKS)
		return w_fail(r, 0, "%d checks; at most %d are supported", p->nchecks, PLAN_MAX_CHECKS);
	for (int i = 0; i < p->nchecks; i++) {
		const plan_check *c = &p->checks[i];
		if (c->out < 0 || c->out >= p->nbufs)
			return w_fail(r, 0, "check %d names no output buffer", i + 1);
		if (c->kind == CHECK_KERNEL) {
			if (check_launch(r, &c->other) != 0)
				return -1;
		} else if (c->kind == CHECK_REF) {
			if (c->nargs < 0 || c->nargs > SPEC_MAX_CHECK_ARGS)
				return w_fail(r, 0, "check of '%s' has %d arguments", p->bufs[c->out].name, c->nargs);
			for (int j = 0; j < c->nargs; j++)
				if (c->args[j].kind == ARG_PTR && (c->args[j].buf < 0 || c->args[j].buf >= p->nbufs))
					return w_fail(r, 0, "check of '%s': argument %d names no buffer",
					             p->bufs[c->out].name, j + 1);
		} else {
			return w_fail(r, 0, "check %d has an unknown kind", i + 1);
		}
	}
	return 0;
}

/* The function of a launch in the module, with its dynamic shared memory
 * allowed. */
int w_get_function(wrun *r, const plan_launch *l, CUfunction *fn)
{
	const char *symbol = kernel_symbol(l);
	CUresult e = cu.ModuleGetFunction(fn, r->mod, symbol);
	if (e == CUDA_ERROR_NOT_FOUND)
		return w_fail(r, 0, "kernel '%s' is not in the compiled module (looked for '%s')", l->name, symbol);
	if (w_ck(r, e, "cuModuleGetFunction") != 0)
		return -1;
	if (l->smem == 0)
		return 0;
	int static_smem = 0;
	if (cu.FuncGetAttribute &&
	    cu.FuncGetAttribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, *fn) != CUDA_SUCCESS)
		static_smem = 0;
	if ((uint64_t)l->smem + (uint64_t)(static_smem > 0 ? static_smem : 0) <= 48 * KiB)
		return 0;
	e = cu.FuncSetAttribute(*fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)l->smem);
	if (e != CUDA_SUCCESS)
		return w_fail(r, cu_is_sticky(e), "kernel '%s' asks for %u bytes of dynamic shared memory "
		             "(%d static): cuFuncSetAttribute failed: %s", l->name, l->smem, static_smem,
		             cu_errstr(e));
	return 0;
}

void w_build_args(kargs *ka, const plan_launch *l, const CUdeviceptr *ptrs)
{
	memset(ka, 0, sizeof *ka);
	for (int i = 0; i < l->nargs; i++) {
		const plan_arg *a = &l->args[i];
		argval *v = &ka->v[i];
		switch (a->kind) {
		case ARG_PTR: v->p = ptrs[a->buf]; break;
		case ARG_I32: v->i32 = (int32_t)a->i; break;
		case ARG_U32: v->u32 = (uint32_t)a->i; break;
		case ARG_I64: v->i64 = a->i; break;
		case ARG_U64: v->u64 = (uint64_t)a->i; break;
		case ARG_F32: v->f32 = (float)a->f; break;
		case ARG_F64: v->f64 = a->f; break;
		default: break;
		}
		ka->params[i] = v;
	}
	ka->params[l->nargs] = NULL;
}

int w_launch(wrun *r, CUfunction fn, const plan_launch *l, kargs *ka)
{
	return w_launch_on(r, fn, l, ka, NULL);
}

/* Every launch may change every output (a check kernel writes the others). */
int w_launch_on(wrun *r, CUfunction fn, const plan_launch *l, kargs *ka, CUstream st)
{
	for (int i = 0; i < r->p->nbufs; i++)
		if (r->p->bufs[i].output)
			B(r, i)->dirty = 1;
	r->ws->launches++;
	if (l->cluster[0]) {
		if (!cu.LaunchKernelEx)
			return w_fail(r, 0, "kernel '%s' runs in clusters, but this driver has no cuLaunchKernelEx "
			              "(CUDA 12 or later)", l->name);
		CUlaunchAttribute attr;
		memset(&attr, 0, sizeof attr);
		attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
		attr.value.clusterDim.x = l->cluster[0];
		attr.value.clusterDim.y = l->cluster[1];
		attr.value.clusterDim.z = l->cluster[2];
		CUlaunchConfig cfg = { l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
		                       l->smem, st, &attr, 1 };
		return w_ck(r, cu.LaunchKernelEx(&cfg, fn, ka->params, NULL), "cuLaunchKernelEx");
	}
	return w_ck(r, cu.LaunchKernel(fn, l->grid[0], l->grid[1], l->grid[2],
	                             l->block[0], l->block[1], l->block[2],
	                             l->smem, st, ka->params, NULL), "cuLaunchKernel");
}
