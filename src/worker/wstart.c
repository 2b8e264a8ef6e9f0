/* wstart.c: the GPU worker's start-up: the device and its facts (before
 * the HELLO), then the context, made on a thread of its own while the
 * first request's host work goes on, with what goes beside it (CUPTI's
 * set-up, the event pair, the GPU fill's kernels, NVML). */
#include "wstart.h"

#include "kclock.h"
#include "wclaim.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int get_attr(wstart *ws, int attr, int dflt)
{
	int v = 0;
	if (cu.DeviceGetAttribute(&v, attr, ws->dev) != CUDA_SUCCESS)
		return dflt;
	return v;
}

/* The GPU this worker claims for its process's session (wclaim.c): the
 * one asked for, counted; asked for none (ordinal -1), the least claimed
 * of the GPUs of device 0's kind. Where no claim can be had: the one asked
 * for, else device 0. The claim is held while the worker lives. */
static int claim_fd = -1;
static int claim_device(wstart *ws, int n)
{
	const char *off = getenv("CUPLAY_GPU_LOCK");
	int want = ws->ordinal;
	if (n <= 1 || (off && strcmp(off, "0") == 0) || want >= n)
		return want < 0 ? 0 : want;
	char ids[CLAIM_MAX_GPUS][32];
	const char *idp[CLAIM_MAX_GPUS];
	int ord[CLAIM_MAX_GPUS], m = 0;
	char kind[128] = "", name[128];
	CUdevice d;
	for (int i = 0; i < n && m < CLAIM_MAX_GPUS; i++) {
		if (cu.DeviceGet(&d, i) != CUDA_SUCCESS || cu.DeviceGetName(name, (int)sizeof name, d) != CUDA_SUCCESS)
			continue;
		name[sizeof name - 1] = 0;
		if (!kind[0])
			snprintf(kind, sizeof kind, "%s", name);
		if (want < 0 ? strcmp(name, kind) != 0 : i != want)
			continue; /* another kind of GPU is never picked for one */
		if (nvml_pci_bus_id(i, ids[m], (int)sizeof ids[m]) != 0)
			snprintf(ids[m], sizeof ids[m], "cuda%d", i);
		idp[m] = ids[m];
		ord[m++] = i;
	}
	const char *why = NULL;
	int k = m > 0 ? gpu_claim(gpu_lock_dir(), idp, m, want < 0 ? -1 : 0, &claim_fd, NULL, &why) : 0;
	if (why)
		w_trace(NULL, "start-up: no claim of a GPU: %s", why);
	int pick = m > 0 && k >= 0 && k < m ? ord[k] : (want < 0 ? 0 : want);
	w_trace(NULL, "start-up: GPU %d claimed for this session", pick);
	return pick;
}

int start_device(wstart *ws, char **err)
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
	ws->ordinal = claim_device(ws, n);
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
	w_load_prefetch();
	/* for NVML, opened on the start-up thread */
	nvml_pci_bus_id(ws->ordinal, d->pci_bus_id, (int)sizeof d->pci_bus_id);
	w_trace(NULL, "start-up: ready for the HELLO");
	return 0;
}

/* The context and what goes with it; NULL, or why not. */
static const char *make_context(wstart *ws)
{
	CUresult e;
	if ((e = cu.DevicePrimaryCtxRetain(&ws->ctx, ws->dev)) != CUDA_SUCCESS) {
		snprintf(ws->err, sizeof ws->err, "cuDevicePrimaryCtxRetain failed: %s", cu_errstr(e));
		return ws->err;
	}
	ws->have_ctx = 1;
	if ((e = cu.CtxSetCurrent(ws->ctx)) != CUDA_SUCCESS) {
		snprintf(ws->err, sizeof ws->err, "cuCtxSetCurrent failed: %s", cu_errstr(e));
		return ws->err;
	}
	if ((e = timer_events(ws->timer)) != CUDA_SUCCESS) {
		snprintf(ws->err, sizeof ws->err, "cuEventCreate failed: %s", cu_errstr(e));
		return ws->err;
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
	wstart *ws = arg;
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
	pthread_mutex_lock(&ws->mu);
	ws->ctx_state = why ? CTX_FAILED : CTX_READY;
	pthread_cond_broadcast(&ws->cv);
	pthread_mutex_unlock(&ws->mu);
	if (why) {
		fill_none(ws->fill);
		return NULL;
	}
	/* After the signal: the first request's host work and the roofs go on
	 * meanwhile; the fill's first user waits for it (fill_random). */
	fill_load(ws->fill);
	/* NVML (clocks, throttling) is optional, and its start-up can take a
	 * while; it makes no CUDA calls */
	nvml_open(ws->nvml, ws->ordinal, ws->info.pci_bus_id);
	w_trace(NULL, "start-up: NVML");
	return NULL;
}

/* Starts the start-up thread; SIGINT stays with the main thread. */
int start_thread(wstart *ws, char **err)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int e = pthread_create(&ws->thread, NULL, start_main, ws);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0)
		return fail(err, "cannot start the GPU worker: pthread_create: %s", strerror(e));
	ws->running = 1;
	return 0;
}

const char *start_ctx_wait(wstart *ws)
{
	if (ws->ctx_waited)
		return ws->ctx_state == CTX_READY ? NULL : ws->err;
	uint64_t t0 = now_ns();
	pthread_mutex_lock(&ws->mu);
	while (ws->ctx_state == CTX_PENDING)
		pthread_cond_wait(&ws->cv, &ws->mu);
	int state = ws->ctx_state;
	pthread_mutex_unlock(&ws->mu);
	if (state == CTX_READY) {
		CUresult e = cu.CtxSetCurrent(ws->ctx);
		if (e != CUDA_SUCCESS) {
			snprintf(ws->err, sizeof ws->err, "cuCtxSetCurrent failed: %s", cu_errstr(e));
			pthread_mutex_lock(&ws->mu);
			ws->ctx_state = CTX_FAILED;
			pthread_mutex_unlock(&ws->mu);
		}
	}
	ws->ctx_waited = 1;
	ws->ctx_wait_ms = ms_since(t0);
	w_trace(NULL, "start-up: the first device call waited %.2f ms for the context", ws->ctx_wait_ms);
	return ws->ctx_state == CTX_READY ? NULL : ws->err;
}

void start_join(wstart *ws)
{
	if (!ws->running)
		return;
	uint64_t t0 = now_ns();
	pthread_join(ws->thread, NULL);
	ws->running = 0;
	w_trace(NULL, "start-up: joined the start-up thread (waited %.2f ms)", ms_since(t0));
}

void start_release(wstart *ws)
{
	if (ws->have_ctx)
		cu.DevicePrimaryCtxRelease(ws->dev);
	ws->have_ctx = 0;
}
