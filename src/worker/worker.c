/* worker.c: the GPU worker, a child process that owns the CUDA context:
 * start-up, the loop that serves one request at a time, shutdown.
 *
 * It answers every RUN with exactly one RESULT, sending PROGRESS messages
 * before; a sticky CUDA error makes it answer RES_FATAL and exit.
 *
 * A request flows through seven stages, each a file with one entry; the
 * loop owns the worker's state and hands each stage the parts it needs,
 * and takes back what the stage made for the next:
 *
 *   RUN -> prepare ------> buffers -----> fill ---------> check -------> time --------> recheck ------> reply
 *          wprepare.c      wbuffers.c     wfill.c        wcheck.c       wtime.c        wrecheck.c      wreply.c
 *          plan checked,   pool reused    initial        launch once,   samples,       the last timed  printf,
 *          context, roofs, or allocated   contents,      outputs        timeline,      launch's output module
 *          module loaded   (wfresh)       host buffers,  compared,      counters,      hashed against  unloaded;
 *          (wkernels)                     arguments      hashed         a last launch  the checked     RESULT
 *
 * A request with a fresh seed (`cuplay --verify`) goes from recheck to
 * buffers, fill and check once more, on inputs of that seed, the module
 * still loaded (serve_fresh), then to reply.
 * An info-only request goes from prepare to winfo.c and then to reply. A
 * stage that fails records the run's error and the rest are skipped; reply
 * always runs. Beside the check, check_ahead starts the references on a
 * thread before the fill writes the buffers. The stages call down only:
 * pool, contents, launch, hostbufs, staging, gpufill, gpuhash, timer, wseq,
 * roofs, wlock, wprintf, wstart, and wrun (errors, traces, progress). */
#include "worker.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sassprof.h"
#include "wbuffers.h"
#include "wcheck.h"
#include "wfill.h"
#include "winfo.h"
#include "wprepare.h"
#include "wrecheck.h"
#include "wreply.h"
#include "wtime.h"

/* The worker's state, each part owned by the module that uses it. */
typedef struct wstate {
	wchan chan;            /* the pipes to the front end */
	wstart start;          /* the device, the context and the start-up thread */
	wtimer timer;          /* the event pair, the L2 flush */
	gpufill fill;          /* the GPU fill's kernels */
	nvml_dev nvml;         /* clocks and throttling around the samples */
	wroofs roofs;          /* the copy roof and the host link, once */
	wpool pool;            /* device buffers kept from run to run */
	wstaging staging;      /* the staging area and the download buffer */
	whost host;            /* host buffers and streams of runs on host data */
	wchecks checks;        /* reference and verdict caches, the GPU hash */
	wtimes times;          /* the empty kernel's baselines, the kernel clock's state */
	wprintf printf;        /* device printf */
} wstate;

/* plan.fresh_seed: after the timed launches, the buffers, fill and check
 * stages once more, on inputs of the fresh seed, with the module of the
 * run still loaded (no new prepare): what a kernel kept from its earlier
 * launches (a stored answer) is still there. Its checks go to res->fresh;
 * an error to res. */
static void serve_fresh(wstate *ws, const plan *p, wkernels *k, const wcontents *c, result *res)
{
	plan *p2 = xmalloc(sizeof *p2);
	*p2 = *p;
	p2->seed = p->fresh_seed;
	p2->fresh_seed = 0;
	p2->t.do_check = 1;
	p2->t.do_time = 0;
	p2->t.checked_apart = 0;
	p2->nmetrics = 0;
	p2->lines = 0;
	result *res2 = xcalloc(1, sizeof *res2);
	wrun r2;
	run_begin(&r2, p2, res2, &ws->chan);
	w_progress(&ws->chan, 0, WIRE_PHASE_HOST, 0); /* new inputs and their reference: host work */
	wfresh fresh;
	ref_ahead *ahead = NULL;
	if (buffers_stage(&r2, &ws->pool, k->mod, &fresh) == 0 &&
	    (ahead = check_ahead(&r2, &ws->pool, &ws->checks), fill_stage(&r2, c, &ws->host, &fresh, k) == 0))
		check_stage(&r2, c, &ws->host, k, &ws->printf, &ws->checks, &ahead);
	check_end(&ahead);
	outsums_clear(&r2, &ws->checks.sums);
	w_trace(&r2, "fresh inputs (seed %" PRIu64 "): %d checks, %s", p->fresh_seed, res2->nchecks,
	        res2->status == RES_OK ? "run" : res2->error);
	if (res2->status != RES_OK) {
		res->status = res2->status;
		snprintf(res->error, sizeof res->error, "on fresh inputs: %.480s", res2->error);
	} else {
		res->fresh_done = 1;
		res->fresh_nchecks = res2->nchecks;
		memcpy(res->fresh, res2->checks, sizeof res->fresh);
	}
	free(res2);
	free(p2);
}

static void serve_run(wstate *ws, const plan *p, const void *image, result *res)
{
	wrun r;
	run_begin(&r, p, res, &ws->chan);
	pf_reset(&r, &ws->printf);
	w_progress(&ws->chan, 0, WIRE_PHASE_HOST, 0);
	wcontents c = { &ws->pool, &ws->fill, &ws->staging };
	wkernels k;              /* prepare's: the module, its kernels, the launch's arguments */
	wfresh fresh;            /* buffers': pristine copies the fill writes */
	ref_ahead *ahead = NULL; /* the check's references, started beside the fill */
	if (prepare_stage(&r, &ws->start, &ws->pool, &ws->roofs, &ws->timer, image, &k) == 0) {
		if (p->info_only)
			info_stage(&r, &k, &ws->nvml);
		else if (buffers_stage(&r, &ws->pool, k.mod, &fresh) == 0 &&
		         (ahead = check_ahead(&r, &ws->pool, &ws->checks), fill_stage(&r, &c, &ws->host, &fresh, &k) == 0) &&
		         check_stage(&r, &c, &ws->host, &k, &ws->printf, &ws->checks, &ahead) == 0 &&
		         time_stage(&r, &ws->times, &c, &ws->host, &k, &ws->start, &ws->timer, &ws->checks.hash,
		                    &ws->checks.sums) == 0 &&
		         recheck_stage(&r, &c, &ws->checks) == 0 && p->fresh_seed && res->status == RES_OK) {
			check_end(&ahead);
			outsums_clear(&r, &ws->checks.sums);
			serve_fresh(ws, p, &k, &c, res);
		}
	}
	check_end(&ahead);
	outsums_clear(&r, &ws->checks.sums);
	reply_stage(&r, &ws->pool, &ws->printf, &k, &ws->staging, &ws->roofs);
}

/* MSG_DEVICE: the device again, with its free memory now. 0, or -1 when
 * the worker cannot go on (MSG_ERROR sent). */
static int answer_device(wstate *ws)
{
	const char *why = start_ctx_wait(&ws->start);
	char msg[600];
	devinfo *info = &ws->start.info;
	if (!why) {
		size_t fr = 0, tot = 0;
		CUresult e = cu.MemGetInfo(&fr, &tot);
		if (e == CUDA_SUCCESS) {
			info->free_mem = fr;
			return wire_send(ws->chan.wfd, MSG_DEVICE, info, sizeof *info, NULL, 0) == 0 ? 0 : -1;
		}
		snprintf(msg, sizeof msg, "cuMemGetInfo failed: %s", cu_errstr(e));
		why = msg;
	}
	/* the front end gone: the -1 says the rest */
	(void)wire_send(ws->chan.wfd, MSG_ERROR, why, strlen(why), NULL, 0);
	return -1;
}

static void worker_fini(wstate *ws)
{
	wstart *st = &ws->start;
	start_join(st);
	pool_early_free(&ws->pool);
	ref_cache_clear(&ws->checks.refs);
	if (!cu_loaded()) {
		fill_free(&ws->fill);
		return;
	}
	if (st->have_ctx && !st->ctx_waited)
		cu.CtxSetCurrent(st->ctx); /* made on the start-up thread; no request came */
	prof_shutdown();
	sassprof_shutdown();
	nvml_close();
	for (int i = 0; i < PLAN_MAX_BUFS; i++)
		pool_release(NULL, &ws->pool.buf[i]);
	stage_free(&ws->staging);
	pipe_fini(&ws->host);
	hash_free(&ws->checks.hash);
	fill_free(&ws->fill);
	timer_free(&ws->timer);
	start_release(st);
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

/* A RUN's payload (the plan, then the cubin; freed here) served into res. */
static void serve_request(wstate *ws, void *payload, uint64_t len, result *res)
{
	if (len < sizeof(plan)) {
		res->status = RES_ERROR;
		snprintf(res->error, sizeof res->error, "bad request to the GPU worker (%" PRIu64 " bytes)", len);
		free(payload);
		return;
	}
	plan *p = xmalloc(sizeof *p);
	memcpy(p, payload, sizeof *p);
	if (p->cubin_len != len - sizeof *p) {
		res->status = RES_ERROR;
		snprintf(res->error, sizeof res->error, "bad request to the GPU worker: "
		         "%" PRIu64 " cubin bytes announced, %" PRIu64 " sent",
		         p->cubin_len, (uint64_t)(len - sizeof *p));
		free(payload);
		free(p);
		return;
	}
	/* Own copy: aligned for the ELF reader, NUL-terminated for PTX. */
	char *image = xmalloc((size_t)p->cubin_len + 1);
	memcpy(image, (char *)payload + sizeof *p, (size_t)p->cubin_len);
	image[p->cubin_len] = 0;
	free(payload);
	sanitize_plan(p);
	serve_run(ws, p, image, res);
	free(image);
	free(p);
}

/* The loop: one message at a time until QUIT or the pipe closes. The
 * worker's exit code: 0, 1 (the pipe failed), 2 (a fatal error). */
static int serve(wstate *ws)
{
	for (;;) {
		uint32_t type = 0;
		void *payload = NULL;
		uint64_t len = 0;
		int rr = wire_recv(ws->chan.rfd, &type, &payload, &len);
		if (rr != 0)
			return rr == 1 ? 0 : 1;
		if (type != MSG_RUN) { /* a late STOP, or noise */
			free(payload);
			if (type == MSG_QUIT)
				return 0;
			if (type == MSG_DEVICE && answer_device(ws) != 0)
				return 1;
			continue;
		}
		result *res = xcalloc(1, sizeof *res);
		serve_request(ws, payload, len, res);
		int fatal = res->status == RES_FATAL;
		int sent = reply_send(&ws->chan, res); /* with the per-line run's records, if any */
		free(res);
		if (sent != 0)
			return 1;
		if (fatal)
			return 2;
		if (ws->chan.quit)
			return 0;
	}
}

/* SIGINT sets w_interrupted (a run stops); SIGPIPE is ignored. */
static void worker_signals(void)
{
	signal(SIGPIPE, SIG_IGN);
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
}

/* The state before the driver is touched. */
static void worker_state(wstate *ws, int rfd, int wfd, int device)
{
	memset(ws, 0, sizeof *ws);
	ws->chan.rfd = rfd;
	ws->chan.wfd = wfd;
	ws->start.ordinal = device;
	const char *wrapped = getenv("CUPLAY_WORKER_WRAPPED"); /* set by the client under a wrapper */
	ws->start.wrapped = wrapped && strcmp(wrapped, "1") == 0;
	ws->start.timer = &ws->timer;
	ws->start.fill = &ws->fill;
	ws->start.nvml = &ws->nvml;
	pf_open(&ws->printf); /* before the driver: device printf goes there */
	const char *tr = getenv("CUPLAY_TRACE_WORKER");
	w_tracing = tr && tr[0] && strcmp(tr, "0") != 0;
	w_started_ns = now_ns();
	ws->times.trace_loop = getenv("CUPLAY_TRACE") != NULL;
	ref_cache_init(&ws->checks.refs, REF_CACHE_ENTRIES, REF_CACHE_BYTES);
	fill_init(&ws->fill, 0);
	pthread_mutex_init(&ws->start.mu, NULL);
	pthread_cond_init(&ws->start.cv, NULL);
}

/* The device's facts where the modules that use them look. */
static void device_known(wstate *ws)
{
	const devinfo *d = &ws->start.info;
	ws->fill.sm_count = d->sm_count;
	ws->checks.hash.sm_count = d->sm_count;
	ws->timer.sm_count = d->sm_count;
	ws->timer.l2_bytes = d->l2_bytes;
}

int worker_main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int rfd = atoi(argv[0]), wfd = atoi(argv[1]), device = atoi(argv[2]);
	char *err = NULL;
	signal(SIGPIPE, SIG_IGN);
	if (wire_version_check(argc > 3 ? argv[3] : NULL, &err) != 0) {
		(void)wire_send(wfd, MSG_ERROR, err, strlen(err), NULL, 0); /* leaving either way */
		free(err);
		return 1;
	}
	wstate *ws = xmalloc(sizeof *ws);
	worker_state(ws, rfd, wfd, device);
	worker_signals();
	int code = 1;
	if (start_device(&ws->start, &err) != 0 || (device_known(ws), start_thread(&ws->start, &err)) != 0) {
		const char *m = err ? err : "cannot start the GPU worker";
		(void)wire_send(wfd, MSG_ERROR, m, strlen(m), NULL, 0); /* leaving either way */
		free(err);
	} else {
		wire_hello hello;
		wire_hello_make(&hello, &ws->start.info);
		if (wire_send(wfd, MSG_HELLO, &hello, sizeof hello, NULL, 0) == 0) {
			w_trace(NULL, "start-up: the HELLO sent");
			code = serve(ws);
		}
	}
	worker_fini(ws);
	pthread_cond_destroy(&ws->start.cv);
	pthread_mutex_destroy(&ws->start.mu);
	free(ws);
	return code;
}
