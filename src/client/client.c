/* client.c: the GPU worker as the front end sees it: started (spawn, the
 * HELLO), sent plans, read back, and reaped. It kills a worker that makes
 * no progress, reaps one that dies, and starts a new one on the next run. */
#include "client.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "util.h"

#define KEPT "(settings kept; the next run starts a new one)"

static const char *sig_name(int s)
{
	switch (s) {
	case SIGSEGV: return "SIGSEGV";
	case SIGABRT: return "SIGABRT";
	case SIGBUS: return "SIGBUS";
	case SIGILL: return "SIGILL";
	case SIGFPE: return "SIGFPE";
	case SIGKILL: return "SIGKILL";
	case SIGTERM: return "SIGTERM";
	case SIGINT: return "SIGINT";
	case SIGQUIT: return "SIGQUIT";
	case SIGPIPE: return "SIGPIPE";
	case SIGHUP: return "SIGHUP";
	case SIGTRAP: return "SIGTRAP";
	case SIGSYS: return "SIGSYS";
	case SIGXCPU: return "SIGXCPU";
	default: return NULL;
	}
}

/* "was killed by SIGSEGV (segmentation fault)" or "exited with status 3". */
static void describe_status(int have, int st, char *buf, size_t n)
{
	if (!have) {
		snprintf(buf, n, "ended (exit status unknown)");
	} else if (WIFEXITED(st)) {
		snprintf(buf, n, "exited with status %d", WEXITSTATUS(st));
	} else if (WIFSIGNALED(st)) {
		int s = WTERMSIG(st);
		const char *nm = sig_name(s);
		const char *desc = strsignal(s);
		char d[64] = "";
		if (desc) {
			snprintf(d, sizeof d, "%s", desc);
			if (d[0] >= 'A' && d[0] <= 'Z')
				d[0] = (char)(d[0] - 'A' + 'a');
		}
		if (nm)
			snprintf(buf, n, "was killed by %s%s%s%s", nm, d[0] ? " (" : "", d, d[0] ? ")" : "");
		else
			snprintf(buf, n, "was killed by signal %d%s%s%s", s, d[0] ? " (" : "", d, d[0] ? ")" : "");
	} else {
		snprintf(buf, n, "was stopped");
	}
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Waits up to grace_ms for the worker to exit, then kills it; closes the
 * pipes. Returns 1 with *status when the exit status is known. */
static int reap(wclient *w, int grace_ms, int *status)
{
	int st = 0, got = 0;
	if (w->wfd >= 0) {
		close(w->wfd); /* EOF: an idle worker leaves by itself */
		w->wfd = -1;
	}
	if (w->pid > 0) {
		uint64_t end = now_ns() + (uint64_t)(grace_ms > 0 ? grace_ms : 0) * 1000000ull;
		for (;;) {
			pid_t r = waitpid(w->pid, &st, WNOHANG);
			if (r == w->pid) {
				got = 1;
				break;
			}
			if (r < 0 && errno != EINTR)
				break; /* ECHILD: reaped elsewhere */
			if (now_ns() >= end) {
				kill(w->pid, SIGKILL);
				for (;;) {
					r = waitpid(w->pid, &st, 0);
					if (r == w->pid) {
						got = 1;
						break;
					}
					if (r < 0 && errno != EINTR)
						break;
				}
				break;
			}
			sleep_ms(5);
		}
	}
	if (w->rfd >= 0)
		close(w->rfd);
	w->rfd = -1;
	w->pid = 0;
	if (status)
		*status = st;
	return got;
}

/* A worker that left (or stopped answering): reap it and say how it
 * ended, "the GPU worker <how><after>". Returns -1. */
static int worker_ended(wclient *w, const char *after, char **err)
{
	int st = 0, have = reap(w, 2000, &st);
	char how[128];
	describe_status(have, st, how, sizeof how);
	return fail(err, "the GPU worker %s%s", how, after);
}

/* Starts `[PREFIX...] EXE --worker RFD WFD DEVICE WIRE_VERSION`: prefix NULL runs the
 * worker itself, else prefix[0] (a path) wraps it, e.g. a sanitizer. */
/* The worker's command line: the wrapper's words, this binary, --worker
 * and its descriptors, device and wire version (the numbers' text in sa;
 * the caller frees the array). */
typedef struct spawn_args {
	char r[24], w[24], d[24], v[24];
	char self[4096];
} spawn_args;

static char **worker_argv(const wclient *w, const char *const *prefix, int rfd, int wfd, spawn_args *sa)
{
	const char *exe = w->exe && strchr(w->exe, '/') ? w->exe : "/proc/self/exe";
	if (prefix && !(w->exe && strchr(w->exe, '/'))) {
		/* a wrapper would read /proc/self/exe as itself */
		ssize_t n = readlink("/proc/self/exe", sa->self, sizeof sa->self - 1);
		if (n > 0) {
			sa->self[n] = 0;
			exe = sa->self;
		}
	}
	snprintf(sa->r, sizeof sa->r, "%d", rfd);
	snprintf(sa->w, sizeof sa->w, "%d", wfd);
	snprintf(sa->d, sizeof sa->d, "%d", w->device);
	snprintf(sa->v, sizeof sa->v, "%d", WIRE_VERSION);
	int np = 0;
	while (prefix && prefix[np])
		np++;
	char **argv = xcalloc((size_t)np + 7, sizeof *argv);
	for (int i = 0; i < np; i++)
		argv[i] = (char *)prefix[i];
	argv[np] = (char *)exe;
	argv[np + 1] = (char *)"--worker";
	argv[np + 2] = sa->r;
	argv[np + 3] = sa->w;
	argv[np + 4] = sa->d;
	argv[np + 5] = sa->v;
	return argv;
}

/* Under a wrapper the worker is told so (CUPLAY_WORKER_WRAPPED=1): it then
 * leaves CUPTI alone at start-up. Made before the fork: the child only
 * execs. NULL without a wrapper (the environment as it is). */
static char **wrapped_env(const char *const *prefix)
{
	if (!prefix)
		return NULL;
	size_t ne = 0;
	while (environ[ne])
		ne++;
	char **envp = xcalloc(ne + 2, sizeof *envp);
	size_t k = 0;
	for (size_t i = 0; i < ne; i++)
		if (strncmp(environ[i], "CUPLAY_WORKER_WRAPPED=", 22) != 0)
			envp[k++] = environ[i];
	envp[k] = (char *)"CUPLAY_WORKER_WRAPPED=1";
	return envp;
}

static int spawn(wclient *w, const char *const *prefix, char **err)
{
	if (w->pid > 0)
		return 0;
	/* One socket pair a direction, used like pipes: sockets take
	 * MSG_NOSIGNAL, so a dead worker costs EPIPE, not the front end's
	 * SIGPIPE. Close-on-exec: only the worker's own ends survive exec. */
	int to[2] = { -1, -1 }, from[2] = { -1, -1 };
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, to) != 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, from) != 0) {
		int e = errno;
		for (int i = 0; i < 2; i++) {
			if (to[i] >= 0)
				close(to[i]);
			if (from[i] >= 0)
				close(from[i]);
		}
		return fail(err, "cannot start the GPU worker: socketpair: %s", strerror(e));
	}
	spawn_args *sa = xcalloc(1, sizeof *sa);
	char **argv = worker_argv(w, prefix, to[0], from[1], sa);
	char **envp = wrapped_env(prefix);
	/* A Ctrl-C at the terminal reaches the worker too: blocked until its
	 * handler is in place (worker_main unblocks it), so one typed while it
	 * starts cannot end it; a wrapper gets SIGINT as it comes */
	child_opts o;
	child_opts_init(&o);
	o.path = argv[0];
	o.argv = argv;
	o.envp = envp;
	o.keep[0] = to[0];
	o.keep[1] = from[1];
	o.sigint = prefix ? CHILD_SIGINT_DEFAULT : CHILD_SIGINT_BLOCKED;
	o.die_with_parent = 1;
	pid_t pid = child_start(&o);
	int e = errno;
	char *path = xstrdup(argv[0]);
	free(envp);
	free(argv);
	free(sa);
	close(to[0]);
	close(from[1]);
	if (pid < 0) {
		close(to[1]);
		close(from[0]);
		int r = fail(err, "cannot run the GPU worker '%s': %s", path, strerror(e));
		free(path);
		return r;
	}
	free(path);
	w->pid = pid;
	w->rfd = from[0];
	w->wfd = to[1];
	w->hello_pending = 1;
	return 0;
}

int wc_spawn(wclient *w, char **err)
{
	return spawn(w, NULL, err);
}

/* Waits up to hello_s seconds for the HELLO of a spawned worker. */
static int await_hello(wclient *w, int hello_s, char **err)
{
	w->hello_pending = 0;
	w->other_build = 0;
	uint64_t deadline = now_ns() + (uint64_t)hello_s * 1000000000ull;
	for (;;) {
		uint64_t now = now_ns();
		if (now >= deadline) {
			reap(w, 0, NULL);
			return fail(err, "the GPU worker did not start within %d s", hello_s);
		}
		int left = (int)((deadline - now) / 1000000ull) + 1;
		struct pollfd pf = { w->rfd, POLLIN, 0 };
		int n = poll(&pf, 1, left);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			reap(w, 0, NULL);
			return fail(err, "cannot start the GPU worker: poll: %s", strerror(e));
		}
		if (n == 0)
			continue;
		uint32_t type = 0;
		void *payload = NULL;
		uint64_t len = 0;
		int rr = wire_recv_until(w->rfd, &type, &payload, &len, deadline, NULL);
		if (rr < 0 && errno == ETIMEDOUT) {
			reap(w, 0, NULL);
			return fail(err, "the GPU worker did not start within %d s", hello_s);
		}
		if (rr != 0)
			return worker_ended(w, " before it started", err);
		if (type == MSG_HELLO) {
			int r = wire_hello_read(payload, len, &w->dev, err);
			free(payload);
			if (r != 0) {
				w->other_build = 1;
				reap(w, 2000, NULL); /* end of input: it leaves */
			}
			return r;
		}
		if (type == MSG_ERROR) {
			char *m = xstrdup(payload ? (const char *)payload : "the GPU worker failed to start");
			free(payload);
			reap(w, 2000, NULL);
			w->other_build = strncmp(m, WIRE_OTHER_BUILD, strlen(WIRE_OTHER_BUILD)) == 0;
			fail(err, "%s", m);
			free(m);
			return -1;
		}
		free(payload);
		reap(w, 0, NULL);
		return fail(err, "the GPU worker sent an unexpected message (type %u) at start", type);
	}
}

int wc_hello_ready(const wclient *w)
{
	if (w->pid <= 0 || !w->hello_pending)
		return 0;
	struct pollfd pf = { w->rfd, POLLIN, 0 };
	return poll(&pf, 1, 0) == 1 && (pf.revents & (POLLIN | POLLHUP)) != 0;
}

int wc_start(wclient *w, char **err)
{
	if (w->pid > 0 && !w->hello_pending)
		return 0;
	if (w->pid <= 0 && wc_spawn(w, err) != 0)
		return -1;
	return await_hello(w, 30, err);
}

int wc_start_under(wclient *w, const char *const *prefix, int hello_s, char **err)
{
	if (w->pid > 0 && !w->hello_pending)
		return 0;
	if (w->pid <= 0 && spawn(w, prefix, err) != 0)
		return -1;
	return await_hello(w, hello_s > 0 ? hello_s : 30, err);
}

int wc_device(wclient *w, char **err)
{
	if (wc_start(w, err) != 0)
		return -1;
	if (wire_send(w->wfd, MSG_DEVICE, NULL, 0, NULL, 0) != 0)
		return worker_ended(w, "", err);
	uint64_t deadline = now_ns() + 30ull * 1000000000ull; /* as long as a start */
	for (;;) {
		uint32_t type = 0;
		void *payload = NULL;
		uint64_t len = 0;
		int rr = wire_recv_until(w->rfd, &type, &payload, &len, deadline, NULL);
		if (rr < 0) {
			int e = errno;
			reap(w, 0, NULL);
			if (e == ETIMEDOUT)
				return fail(err, "the GPU worker did not answer within 30 s: worker stopped");
			return fail(err, "reading from the GPU worker: %s: worker stopped", strerror(e));
		}
		if (rr == 1)
			return worker_ended(w, "", err);
		if (type == MSG_DEVICE && len == sizeof(devinfo)) {
			memcpy(&w->dev, payload, sizeof w->dev);
			w->dev.name[sizeof w->dev.name - 1] = 0;
			w->dev.pci_bus_id[sizeof w->dev.pci_bus_id - 1] = 0;
			free(payload);
			return 0;
		}
		if (type == MSG_ERROR) {
			char *m = xstrdup(payload ? (const char *)payload : "unknown error");
			free(payload);
			reap(w, 2000, NULL);
			fail(err, "%s", m);
			free(m);
			return -1;
		}
		free(payload); /* a late message of an earlier run: ignore */
	}
}

void wc_stop_wait(wclient *w, int grace_ms)
{
	free(w->extra);
	w->extra = NULL;
	w->extra_len = 0;
	if (w->pid <= 0)
		return;
	if (w->hello_pending) {
		/* still starting (the driver, the context): it holds nothing of
		 * the user's, and would read the QUIT only once started */
		reap(w, 0, NULL);
		return;
	}
	/* a worker that cannot be told to quit gets no grace (one whose end
	 * is already closed reads EOF and leaves by itself) */
	if (w->wfd >= 0 && wire_send(w->wfd, MSG_QUIT, NULL, 0, NULL, 0) != 0)
		grace_ms = 0;
	reap(w, grace_ms, NULL);
}

int wc_gpu_absent(char **why)
{
	/* the NVIDIA driver's control device (Linux), or WSL's GPU device */
	if (access("/dev/nvidiactl", F_OK) == 0 || access("/dev/dxg", F_OK) == 0)
		return 0;
	void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (lib)
		dlclose(lib);
	if (why)
		*why = xstrdup(lib ? "no CUDA device" : "no CUDA driver found");
	return 1;
}

void wc_stop(wclient *w)
{
	wc_stop_wait(w, 2000);
}

/* A worker that died during a run: reap it and say how it ended. */
static int worker_died(wclient *w, const char *name, char **err)
{
	char *after = xasprintf(" while running '%s' " KEPT, name);
	int r = worker_ended(w, after, err);
	free(after);
	return r;
}

/* Where a run stands while the front end waits for its result. */
typedef struct waiting_run {
	const char *name;          /* the kernel, for messages */
	double timeout_s;
	uint64_t last, stop_at;    /* the last progress; when STOP was sent */
	int host_phase, stopped, waiting;
} waiting_run;

/* The worker started if it is not running (or died while idle), and the
 * plan and cubin sent. 0, or -1 with *err. */
static int send_run(wclient *w, const plan *p, const void *cubin, size_t cubin_len, const char *name, char **err)
{
	if (w->pid > 0) {
		/* a worker that died while idle (OOM killer, kill -9) is replaced
		 * quietly */
		int st;
		if (waitpid(w->pid, &st, WNOHANG) == w->pid) {
			w->pid = 0;
			reap(w, 0, NULL); /* closes the sockets */
		}
	}
	if (w->pid <= 0 && wc_start(w, err) != 0)
		return -1;
	if ((uint64_t)cubin_len > WIRE_MAX_PAYLOAD - sizeof(plan))
		return fail(err, "the compiled module of '%s' is too large (%zu bytes)", p->launch.name, cubin_len);
	plan *pp = xmalloc(sizeof *pp);
	memcpy(pp, p, sizeof *pp);
	pp->cubin_len = cubin_len;
	int sent = wire_send(w->wfd, MSG_RUN, pp, sizeof *pp, cubin, cubin_len);
	free(pp);
	return sent != 0 ? worker_died(w, name, err) : 0;
}

/* The deadline: no progress for the limit of the current phase; host work
 * cannot be interrupted, so after Ctrl-C it gets 2 s. Waiting for another
 * process to finish measuring has no limit (Ctrl-C ends it). *limit: the
 * phase's. */
static uint64_t run_deadline(const waiting_run *wr, uint64_t *limit)
{
	const uint64_t host_limit_ns = 600ull * 1000000000ull;
	uint64_t gpu_limit_ns = wr->timeout_s > 0 ? (uint64_t)(wr->timeout_s * 1e9) : 0;
	*limit = wr->waiting ? 0 : gpu_limit_ns;
	if (*limit && wr->host_phase && *limit < host_limit_ns)
		*limit = host_limit_ns;
	uint64_t deadline = *limit ? wr->last + *limit : UINT64_MAX;
	if (wr->stopped && (wr->host_phase || wr->waiting) && wr->stop_at + 2000000000ull < deadline)
		deadline = wr->stop_at + 2000000000ull;
	return deadline;
}

/* The deadline passed: the worker goes; -1 with why. */
static int run_overdue(wclient *w, const waiting_run *wr, uint64_t limit, char **err)
{
	reap(w, 0, NULL);
	if (wr->stopped && (wr->host_phase || wr->waiting))
		return fail(err, "run of '%s' interrupted: worker stopped " KEPT, wr->name);
	if (wr->host_phase)
		return fail(err, "the GPU worker made no progress for %g s while preparing '%s': "
		            "worker stopped " KEPT, (double)limit / 1e9, wr->name);
	return fail(err, "kernel '%s' made no progress for %g s: worker stopped " KEPT, wr->name, wr->timeout_s);
}

/* A RESULT's payload into res, its counts and strings made safe. */
static void take_result(wclient *w, result *res, const void *payload)
{
	memcpy(res, payload, sizeof *res);
	res->error[sizeof res->error - 1] = 0;
	if (res->nsamples < 0)
		res->nsamples = 0;
	if (res->nsamples > RES_MAX_SAMPLES)
		res->nsamples = RES_MAX_SAMPLES;
	if (res->nchecks < 0)
		res->nchecks = 0;
	if (res->nchecks > PLAN_MAX_CHECKS)
		res->nchecks = PLAN_MAX_CHECKS;
	if (res->prof.n < 0 || res->prof.n > PROF_MAX_METRICS)
		res->prof.n = 0;
	res->prof.error[sizeof res->prof.error - 1] = 0;
	res->prof.chip[sizeof res->prof.chip - 1] = 0;
	res->cond.why[sizeof res->cond.why - 1] = 0;
	if (res->status == RES_FATAL) /* it exits by itself; the caller says so */
		reap(w, w->fatal_grace_ms > 0 ? w->fatal_grace_ms : 5000, NULL);
}

/* One message during a run (payload freed here): 1 the result is in res;
 * 0 go on waiting; -1 the worker failed (*err). */
static int run_message(wclient *w, waiting_run *wr, uint32_t type, void *payload, uint64_t len,
                       wc_progress cb, void *ctx, result *res, char **err)
{
	if (type == MSG_PROGRESS && len == sizeof(wire_progress)) {
		wire_progress pg;
		memcpy(&pg, payload, sizeof pg);
		free(payload);
		wr->last = now_ns();
		wr->host_phase = pg.phase == WIRE_PHASE_HOST;
		wr->waiting = pg.phase == WIRE_PHASE_WAIT;
		if (cb && pg.nsamples > 0)
			cb(ctx, pg.nsamples, pg.last_ms);
		return 0;
	}
	if (type == MSG_NOTE) {
		if (w->note && payload)
			w->note(w->note_ctx, (const char *)payload);
		free(payload);
		wr->last = now_ns();
		return 0;
	}
	if (type == MSG_RESULT && len >= sizeof(result)) {
		take_result(w, res, payload);
		/* what follows the result: a `lines` plan's per-line records */
		free(w->extra);
		w->extra = NULL;
		w->extra_len = (size_t)(len - sizeof(result));
		if (w->extra_len) {
			w->extra = xmalloc(w->extra_len);
			memcpy(w->extra, (const char *)payload + sizeof(result), w->extra_len);
		}
		free(payload);
		return 1;
	}
	if (type == MSG_ERROR) {
		char *m = xstrdup(payload ? (const char *)payload : "unknown error");
		free(payload);
		reap(w, 0, NULL);
		fail(err, "the GPU worker failed: %s " KEPT, m);
		free(m);
		return -1;
	}
	free(payload); /* unknown: ignore */
	return 0;
}

/* A message that could not be read whole: the worker goes; -1 with why. */
static int run_unreadable(wclient *w, const waiting_run *wr, int e, char **err)
{
	reap(w, 0, NULL);
	if (e == EINTR)
		return fail(err, "run of '%s' interrupted: worker stopped " KEPT, wr->name);
	if (e == ETIMEDOUT)
		return fail(err, "the GPU worker stopped in the middle of a message while running '%s': "
		            "worker stopped " KEPT, wr->name);
	return fail(err, "reading from the GPU worker: %s: worker stopped " KEPT, strerror(e));
}

int wc_run(wclient *w, const plan *p, const void *cubin, size_t cubin_len,
           double timeout_s, volatile sig_atomic_t *interrupt, wc_progress cb, void *ctx,
           result *res, char **err)
{
	memset(res, 0, sizeof *res);
	char name[PLAN_NAME];
	snprintf(name, sizeof name, "%s", p->launch.name);
	if (send_run(w, p, cubin, cubin_len, name, err) != 0)
		return -1;
	waiting_run wr = { .name = name, .timeout_s = timeout_s, .last = now_ns() };
	for (;;) {
		uint64_t now = now_ns();
		if (interrupt && *interrupt && !wr.stopped) {
			wr.stopped = 1;
			wr.stop_at = now;
			if (w->pid > 0)
				kill(w->pid, SIGINT);
			/* a worker that cannot be told to stop is stopped */
			if (wire_send(w->wfd, MSG_STOP, NULL, 0, NULL, 0) != 0) {
				reap(w, 0, NULL);
				return fail(err, "run of '%s' interrupted: worker stopped " KEPT, name);
			}
		}
		uint64_t limit;
		uint64_t deadline = run_deadline(&wr, &limit);
		if (now >= deadline)
			return run_overdue(w, &wr, limit, err);
		uint64_t wait_ns = deadline - now;
		int wait_ms = wait_ns > 100000000ull ? 100 : (int)(wait_ns / 1000000ull) + 1;
		struct pollfd pf = { w->rfd, POLLIN, 0 };
		int n = poll(&pf, 1, wait_ms);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			reap(w, 0, NULL);
			return fail(err, "waiting for the GPU worker: poll: %s", strerror(e));
		}
		if (n == 0)
			continue;
		uint32_t type = 0;
		void *payload = NULL;
		uint64_t len = 0;
		/* a message has begun: the rest of it within the phase's deadline
		 * and the message limit, and Ctrl-C (before STOP was sent) ends
		 * the wait: a worker stuck half way never holds the front end */
		uint64_t msg_limit = (uint64_t)(w->msg_limit_ms > 0 ? w->msg_limit_ms : 5000) * 1000000ull;
		uint64_t msg_deadline = now_ns() + msg_limit;
		if (deadline < msg_deadline)
			msg_deadline = deadline;
		int rr = wire_recv_until(w->rfd, &type, &payload, &len, msg_deadline, wr.stopped ? NULL : interrupt);
		if (rr == 1)
			return worker_died(w, name, err);
		if (rr < 0)
			return run_unreadable(w, &wr, errno, err);
		int m = run_message(w, &wr, type, payload, len, cb, ctx, res, err);
		if (m != 0)
			return m > 0 ? 0 : -1;
	}
}
