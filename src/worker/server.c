/* server.c: the GPU worker, a child process that owns the CUDA context:
 * start-up, the loop that serves one request at a time, shutdown.
 *
 * It answers every RUN with exactly one RESULT, sending PROGRESS messages
 * before; a sticky CUDA error makes it answer RES_FATAL and exit. */
#include "server.h"

#include "kclock.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `info`: the function's attributes and the occupancy API's answers for the
 * planned launch. A query the driver does not offer stays unknown. */
static void info_pass(wrun *r)
{
	const plan_launch *l = &r->p->launch;
	func_info *fi = &r->res->fn;
	memset(fi, 0, sizeof *fi);
	fi->occ_blocks = -1;
	if (cu.FuncGetAttribute) {
		static const int attrs[] = { CU_FUNC_ATTRIBUTE_NUM_REGS, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
		                             CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,
		                             CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK };
		int32_t *dst[] = { &fi->regs, &fi->static_smem, &fi->local_bytes, &fi->const_bytes, &fi->max_threads };
		for (size_t i = 0; i < ARRAY_LEN(attrs); i++) {
			int v = 0;
			if (w_ck(r, cu.FuncGetAttribute(&v, attrs[i], r->fn), "cuFuncGetAttribute") != 0)
				return;
			*dst[i] = v;
		}
		fi->known = 1;
	}
	int threads = (int)(l->block[0] * l->block[1] * l->block[2]);
	if (cu.OccupancyMaxActiveBlocksPerMultiprocessor) {
		int blocks = 0;
		CUresult e = cu.OccupancyMaxActiveBlocksPerMultiprocessor(&blocks, r->fn, threads, l->smem);
		if (e == CUDA_SUCCESS)
			fi->occ_blocks = blocks;
		else if (cu_is_sticky(e))
			w_ck(r, e, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
	}
	if (cu.OccupancyMaxPotentialBlockSize) {
		int grid = 0, block = 0;
		CUresult e = cu.OccupancyMaxPotentialBlockSize(&grid, &block, r->fn, NULL, l->smem, 0);
		if (e == CUDA_SUCCESS) {
			fi->suggest_block = block;
			fi->suggest_grid = grid;
		} else if (cu_is_sticky(e)) {
			w_ck(r, e, "cuOccupancyMaxPotentialBlockSize");
		}
	}
	nvml_now(&r->ws->nvml, &r->res->cond);
}

/* The module goes; the buffers stay in the pool for the next run. */
static void run_cleanup(wrun *r)
{
	wstate *ws = r->ws;
	if (r->have_mod)
		cu.ModuleUnload(r->mod);
	r->have_mod = 0;
	stage_trim(ws);
}

static void serve_run(wstate *ws, const plan *p, const void *image, result *res)
{
	uint64_t t0 = now_ns();
	wrun *r = xcalloc(1, sizeof *r);
	r->t0 = t0;
	r->ws = ws;
	r->p = p;
	r->res = res;
	res->status = RES_OK;
	w_interrupted = 0;
	ws->stop = 0;
	pf_reset(ws);
	w_progress(ws, 0, WIRE_PHASE_HOST, 0);
	if (w_validate_plan(r) != 0)
		goto done;
	int first = !ws->ctx_waited;
	if (first)
		w_trace(NULL, "start-up: the first request arrived");
	if (first && !p->info_only)
		w_early_fill(r);
	const char *no_ctx = w_ctx_wait(ws); /* the run's first device call follows */
	if (first)
		w_trace(r, "the context: waited %.2f ms for it", ws->ctx_wait_ms);
	if (no_ctx) {
		w_fail(r, 1, "%s", no_ctx);
		goto done;
	}
	if (p->info_only) {
		if (w_ck(r, cu.ModuleLoadData(&r->mod, image), "cuModuleLoadData") != 0)
			goto done;
		r->have_mod = 1;
		w_start_join(ws); /* NVML */
		if (w_get_function(r, &p->launch, &r->fn) == 0)
			info_pass(r);
		goto done;
	}
	if (!ws->roof_done || (p->measure_link && !ws->link_done)) { /* roofs: measured, so alone on the GPU */
		if (w_gpu_lock(r) != 0)
			goto done;
		measure_roof(r);
		if (p->measure_link && res->status == RES_OK)
			measure_link(r);
		w_gpu_unlock(ws);
	}
	if (res->status != RES_OK)
		goto done;
	if ((p->t.do_time || p->nmetrics > 0) && p->t.flush && ensure_flush(r) != 0)
		goto done;
	if (w_ck(r, cu.ModuleLoadData(&r->mod, image), "cuModuleLoadData") != 0)
		goto done;
	r->have_mod = 1;
	if (w_get_function(r, &p->launch, &r->fn) != 0)
		goto done;
	if (p->t.do_check)
		for (int i = 0; i < p->nchecks; i++)
			if (p->checks[i].kind == CHECK_KERNEL && w_get_function(r, &p->checks[i].other, &r->other[i]) != 0)
				goto done;
	if (pool_setup(r, check_early) != 0 || pipe_setup(r) != 0)
		goto done;
	{
		CUdeviceptr ptrs[PLAN_MAX_BUFS] = {0};
		for (int i = 0; i < p->nbufs; i++)
			ptrs[i] = B(r, i)->d;
		w_build_args(&r->ka, &p->launch, ptrs);
	}
	uint64_t t1 = now_ns();
	w_trace(r, "setup done");
	res->setup_ms = (double)(t1 - t0) / 1e6;
	if (p->t.do_check && check_pass(r) != 0)
		goto done;
	uint64_t t2 = now_ns();
	res->check_ms = (double)(t2 - t1) / 1e6;
	w_trace(r, "checks done");
	/* timing and counters: alone on the GPU (server_lock.c); NVML and CUPTI set up */
	if (p->t.do_time || p->nmetrics > 0)
		w_start_join(ws);
	if (p->t.do_time) {
		if (w_stop_now(ws))
			res->status = RES_INTERRUPTED;
		else if (w_gpu_lock(r) == 0) {
			t2 = now_ns(); /* the timing's own time, not the wait for the lock */
			if (time_pass(r) == 0 && res->status == RES_OK && !w_stop_now(ws))
				trace_pass(r);
		}
	}
	res->time_ms = (double)(now_ns() - t2) / 1e6;
	w_trace(r, "timing done: %d samples", res->nsamples);
	if (p->nmetrics > 0 && res->status == RES_OK && !w_stop_now(ws) && w_gpu_lock(r) == 0)
		metrics_pass(r);
done:
	check_end(r);
	w_early_free(ws); /* those no buffer took: the run failed before its buffers */
	w_gpu_unlock(ws);
	pf_finish(r);
	run_cleanup(r);
	free(r);
	res->roof_gbps = ws->roof_gbps;
	memcpy(res->link_gbps, ws->link_gbps, sizeof res->link_gbps);
	res->launch_ms = (double)(now_ns() - t0) / 1e6;
}

static int get_attr(wstate *ws, int attr, int dflt)
{
	int v = 0;
	if (cu.DeviceGetAttribute(&v, attr, ws->dev) != CUDA_SUCCESS)
		return dflt;
	return v;
}

static int worker_init(wstate *ws, char **err)
{
	if (cu_load(err) != 0)
		return -1;
	w_trace(NULL, "start-up: the driver loaded");
	CUresult e = cu.Init(0);
	w_trace(NULL, "start-up: cuInit");
	if (e == CUDA_ERROR_NO_DEVICE)
		return fail(err, "no CUDA device");
	if (e != CUDA_SUCCESS)
		return fail(err, "cuInit failed: %s", cu_errstr(e));
	int n = 0;
	if ((e = cu.DeviceGetCount(&n)) != CUDA_SUCCESS)
		return fail(err, "cuDeviceGetCount failed: %s", cu_errstr(e));
	if (n <= 0)
		return fail(err, "no CUDA device");
	if (ws->ordinal < 0 || ws->ordinal >= n) {
		if (n == 1)
			return fail(err, "no CUDA device %d (only device 0 is present)", ws->ordinal);
		return fail(err, "no CUDA device %d (devices 0 to %d are present)", ws->ordinal, n - 1);
	}
	if ((e = cu.DeviceGet(&ws->dev, ws->ordinal)) != CUDA_SUCCESS)
		return fail(err, "cuDeviceGet failed: %s", cu_errstr(e));
	devinfo *d = &ws->info;
	memset(d, 0, sizeof *d);
	d->ordinal = ws->ordinal;
	d->count = n;
	if ((e = cu.DeviceGetName(d->name, (int)sizeof d->name, ws->dev)) != CUDA_SUCCESS)
		return fail(err, "cuDeviceGetName failed: %s", cu_errstr(e));
	d->name[sizeof d->name - 1] = 0;
	if ((e = cu.DeviceGetAttribute(&d->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ws->dev)) != CUDA_SUCCESS ||
	    (e = cu.DeviceGetAttribute(&d->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, ws->dev)) != CUDA_SUCCESS)
		return fail(err, "cuDeviceGetAttribute failed: %s", cu_errstr(e));
	d->sm_count = get_attr(ws, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0);
	d->warp_size = get_attr(ws, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32);
	d->l2_bytes = get_attr(ws, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, 0);
	d->max_threads_per_block = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024);
	d->max_block[0] = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 1024);
	d->max_block[1] = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, 1024);
	d->max_block[2] = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, 64);
	d->max_grid[0] = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 2147483647);
	d->max_grid[1] = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, 65535);
	d->max_grid[2] = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, 65535);
	d->max_smem_block = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, 48 * 1024);
	d->max_smem_optin = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, d->max_smem_block);
	if (d->max_smem_optin < d->max_smem_block)
		d->max_smem_optin = d->max_smem_block;
	d->max_smem_sm = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, d->max_smem_optin);
	d->regs_per_block = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, 65536);
	d->regs_per_sm = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, 65536);
	d->max_threads_sm = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, 2048);
	d->max_blocks_sm = get_attr(ws, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, 32);
	d->clock_khz = get_attr(ws, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 0);
	d->mem_clock_khz = get_attr(ws, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, 0);
	d->bus_width_bits = get_attr(ws, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, 0);
	if (cu.DriverGetVersion(&d->driver_version) != CUDA_SUCCESS)
		d->driver_version = 0;
	size_t tot = 0;
	if ((e = cu.DeviceTotalMem(&tot, ws->dev)) != CUDA_SUCCESS)
		return fail(err, "cuDeviceTotalMem failed: %s", cu_errstr(e));
	d->total_mem = tot;
	d->free_mem = 0; /* needs the context: MSG_DEVICE asks for it */
	w_load_host_alloc();
	/* for NVML, opened on the start-up thread */
	nvml_pci_bus_id(ws->ordinal, d->pci_bus_id, (int)sizeof d->pci_bus_id);
	w_trace(NULL, "start-up: ready for the HELLO");
	return 0;
}

/* The context and what goes with it; NULL, or why not. */
static const char *make_context(wstate *ws)
{
	CUresult e;
	if ((e = cu.DevicePrimaryCtxRetain(&ws->ctx, ws->dev)) != CUDA_SUCCESS) {
		snprintf(ws->start_err, sizeof ws->start_err, "cuDevicePrimaryCtxRetain failed: %s", cu_errstr(e));
		return ws->start_err;
	}
	ws->have_ctx = 1;
	if ((e = cu.CtxSetCurrent(ws->ctx)) != CUDA_SUCCESS) {
		snprintf(ws->start_err, sizeof ws->start_err, "cuCtxSetCurrent failed: %s", cu_errstr(e));
		return ws->start_err;
	}
	if ((e = cu.EventCreate(&ws->ev0, CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
	    (e = cu.EventCreate(&ws->ev1, CU_EVENT_DEFAULT)) != CUDA_SUCCESS) {
		snprintf(ws->start_err, sizeof ws->start_err, "cuEventCreate failed: %s", cu_errstr(e));
		return ws->start_err;
	}
	return NULL;
}

/* The start-up thread: the context (the longest part of a worker's
 * start-up, about 100 ms), then CUPTI's one-time set-up for the kernel
 * clock, announced to w_ctx_wait once both are done; then NVML. The first
 * timed run would otherwise pay CUPTI's set-up and NVML's start. CUPTI is
 * set up before the announcement, not beside the first run: its set-up
 * (activity enabled, a forced flush) on this thread while the run's thread
 * copied to or from the GPU sometimes left both waiting on each other
 * inside the driver. Until the announcement the run only does host work
 * (w_early_fill), so nothing else touches the device meanwhile. */
static void *start_main(void *arg)
{
	wstate *ws = arg;
	const char *why = make_context(ws);
	if (why) {
		w_trace(NULL, "start-up: no context: %s", why);
	} else {
		w_trace(NULL, "start-up: the context");
		if (!ws->wrapped) { /* under compute-sanitizer, which never times: CUPTI stays unloaded */
			char *kwhy = NULL;
			if (kclock_prepare(&kwhy) == 0)
				w_trace(NULL, "start-up: CUPTI set up for the kernel clock");
			else
				w_trace(NULL, "start-up: no kernel clock yet: %s", kwhy ? kwhy : "?");
			free(kwhy); /* the first kclock_start says it again */
		}
	}
	pthread_mutex_lock(&ws->start_mu);
	ws->ctx_state = why ? CTX_FAILED : CTX_READY;
	pthread_cond_broadcast(&ws->start_cv);
	pthread_mutex_unlock(&ws->start_mu);
	if (why)
		return NULL;
	/* After the signal: the first request's host work and the roofs go on
	 * meanwhile; the fill's first user waits for it (fill_random). */
	fill_load(ws);
	/* NVML (clocks, throttling) is optional, and its start-up can take a
	 * while; it makes no CUDA calls */
	nvml_open(&ws->nvml, ws->ordinal, ws->info.pci_bus_id);
	w_trace(NULL, "start-up: NVML");
	return NULL;
}

/* Starts the start-up thread; SIGINT stays with the main thread. */
static int start_thread(wstate *ws, char **err)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int e = pthread_create(&ws->start_thread, NULL, start_main, ws);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0)
		return fail(err, "cannot start the GPU worker: pthread_create: %s", strerror(e));
	ws->start_running = 1;
	return 0;
}

/* MSG_DEVICE: the device again, with its free memory now. 0, or -1 when
 * the worker cannot go on (MSG_ERROR sent). */
static int answer_device(wstate *ws)
{
	const char *why = w_ctx_wait(ws);
	char msg[600];
	if (!why) {
		size_t fr = 0, tot = 0;
		CUresult e = cu.MemGetInfo(&fr, &tot);
		if (e == CUDA_SUCCESS) {
			ws->info.free_mem = fr;
			return wire_send(ws->wfd, MSG_DEVICE, &ws->info, sizeof ws->info, NULL, 0) == 0 ? 0 : -1;
		}
		snprintf(msg, sizeof msg, "cuMemGetInfo failed: %s", cu_errstr(e));
		why = msg;
	}
	wire_send(ws->wfd, MSG_ERROR, why, strlen(why), NULL, 0);
	return -1;
}

static void worker_fini(wstate *ws)
{
	w_start_join(ws);
	w_early_free(ws);
	ref_cache_clear(&ws->refs);
	if (!cu_loaded())
		return;
	if (ws->have_ctx && !ws->ctx_waited)
		cu.CtxSetCurrent(ws->ctx); /* made on the start-up thread; no request came */
	prof_shutdown();
	nvml_close();
	for (int i = 0; i < PLAN_MAX_BUFS; i++)
		pool_release(NULL, &ws->pool[i]);
	stage_free(ws);
	pipe_fini(ws);
	hash_free(ws);
	fill_free(ws);
	if (ws->flush)
		cu.MemFree(ws->flush);
	if (ws->have_flush_fn)
		cu.ModuleUnload(ws->flush_mod);
	if (ws->ev0)
		cu.EventDestroy(ws->ev0);
	if (ws->ev1)
		cu.EventDestroy(ws->ev1);
	if (ws->have_ctx)
		cu.DevicePrimaryCtxRelease(ws->dev);
	ws->flush = 0;
	ws->ev0 = ws->ev1 = NULL;
	ws->have_ctx = 0;
}

/* Makes the strings of a plan from the wire safe to print. */
static void sanitize_launch(plan_launch *l)
{
	l->name[PLAN_NAME - 1] = 0;
	l->lowered[PLAN_LOWERED - 1] = 0;
}

static void sanitize_plan(plan *p)
{
	for (int i = 0; i < PLAN_MAX_BUFS; i++)
		p->bufs[i].name[sizeof p->bufs[i].name - 1] = 0;
	sanitize_launch(&p->launch);
	for (int i = 0; i < PLAN_MAX_CHECKS; i++) {
		p->checks[i].ref[sizeof p->checks[i].ref - 1] = 0;
		sanitize_launch(&p->checks[i].other);
	}
	if (p->nmetrics < 0 || p->nmetrics > PROF_MAX_METRICS)
		p->nmetrics = 0;
	for (int i = 0; i < PROF_MAX_METRICS; i++)
		p->metrics[i][PLAN_METRIC_NAME - 1] = 0;
}

int worker_main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int rfd = atoi(argv[0]), wfd = atoi(argv[1]), device = atoi(argv[2]);
	char *err = NULL;
	signal(SIGPIPE, SIG_IGN);
	if (wire_version_check(argc > 3 ? argv[3] : NULL, &err) != 0) {
		wire_send(wfd, MSG_ERROR, err, strlen(err), NULL, 0);
		free(err);
		return 1;
	}
	wstate ws;
	memset(&ws, 0, sizeof ws);
	ws.rfd = rfd;
	ws.wfd = wfd;
	ws.ordinal = device;
	const char *wrapped = getenv("CUPLAY_WORKER_WRAPPED"); /* set by the client under a wrapper */
	ws.wrapped = wrapped && strcmp(wrapped, "1") == 0;
	pf_open(&ws); /* before the driver: device printf goes there */

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = w_on_sigint;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigset_t ss;
	sigemptyset(&ss);
	sigaddset(&ss, SIGINT);
	sigprocmask(SIG_UNBLOCK, &ss, NULL);

	const char *tr = getenv("CUPLAY_TRACE_WORKER");
	w_tracing = tr && tr[0] && strcmp(tr, "0") != 0;
	w_started_ns = now_ns();
	ws.trace_loop = getenv("CUPLAY_TRACE") != NULL;
	ref_cache_init(&ws.refs, REF_CACHE_ENTRIES, REF_CACHE_BYTES);

	pthread_mutex_init(&ws.start_mu, NULL);
	pthread_cond_init(&ws.start_cv, NULL);
	if (worker_init(&ws, &err) != 0 || start_thread(&ws, &err) != 0) {
		const char *m = err ? err : "cannot start the GPU worker";
		wire_send(wfd, MSG_ERROR, m, strlen(m), NULL, 0);
		free(err);
		worker_fini(&ws);
		return 1;
	}
	wire_hello hello;
	wire_hello_make(&hello, &ws.info);
	if (wire_send(wfd, MSG_HELLO, &hello, sizeof hello, NULL, 0) != 0) {
		worker_fini(&ws);
		return 1;
	}
	w_trace(NULL, "start-up: the HELLO sent");
	int code = 0;
	for (;;) {
		uint32_t type = 0;
		void *payload = NULL;
		uint64_t len = 0;
		int rr = wire_recv(rfd, &type, &payload, &len);
		if (rr == 1)
			break;
		if (rr < 0) {
			code = 1;
			break;
		}
		if (type == MSG_QUIT) {
			free(payload);
			break;
		}
		if (type == MSG_DEVICE) {
			free(payload);
			if (answer_device(&ws) != 0) {
				code = 1;
				break;
			}
			continue;
		}
		if (type != MSG_RUN) { /* a late STOP, or noise */
			free(payload);
			continue;
		}
		result *res = xcalloc(1, sizeof *res);
		if (len < sizeof(plan)) {
			res->status = RES_ERROR;
			snprintf(res->error, sizeof res->error, "bad request to the GPU worker (%" PRIu64 " bytes)", len);
		} else {
			plan *p = xmalloc(sizeof *p);
			memcpy(p, payload, sizeof *p);
			if (p->cubin_len != len - sizeof *p) {
				res->status = RES_ERROR;
				snprintf(res->error, sizeof res->error, "bad request to the GPU worker: "
				         "%" PRIu64 " cubin bytes announced, %" PRIu64 " sent",
				         p->cubin_len, (uint64_t)(len - sizeof *p));
			} else {
				/* Own copy: aligned for the ELF reader, NUL-terminated for PTX. */
				char *image = xmalloc((size_t)p->cubin_len + 1);
				memcpy(image, (char *)payload + sizeof *p, (size_t)p->cubin_len);
				image[p->cubin_len] = 0;
				free(payload);
				payload = NULL;
				sanitize_plan(p);
				serve_run(&ws, p, image, res);
				free(image);
			}
			free(p);
		}
		free(payload);
		int fatal = res->status == RES_FATAL;
		int sent = wire_send(wfd, MSG_RESULT, res, sizeof *res, NULL, 0);
		free(res);
		if (sent != 0) {
			code = 1;
			break;
		}
		if (fatal) {
			code = 2;
			break;
		}
		if (ws.quit)
			break;
	}
	worker_fini(&ws);
	pthread_cond_destroy(&ws.start_cv);
	pthread_mutex_destroy(&ws.start_mu);
	return code;
}
