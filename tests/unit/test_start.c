/* test_start.c: the GPU worker's start-up against a stand-in driver
 * (cuda_mock.c beside this file, built into a temporary libcuda.so.1 that
 * the worker finds on LD_LIBRARY_PATH), without a GPU: the HELLO goes
 * before the context is made; the free memory (`device`) and the first run
 * wait for it, with the context current where they make their calls; a
 * context that cannot be made becomes the run's error, and `device`'s; a
 * worker asked to leave, or sent SIGINT, while its context is being made
 * still behaves; a worker started in the background is seen ready once
 * its HELLO has come.
 *
 * This program is its own worker: `test_start --worker RFD WFD DEVICE
 * VERSION` runs worker_main, and the client execs /proc/self/exe. */
#include "test.h"
#include "mockbuild.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sass.h"
#include "util.h"
#include "client.h"
#include "worker.h"

static char tmpdir[] = "/tmp/cuplay-start-XXXXXX";
static char *log_path;

/* Builds src (beside this file) into tmpdir/so_name. */
static int build(const char *cc, const char *src, const char *so_name)
{
	char *so = xasprintf("%s/%s", tmpdir, so_name);
	int rc = mock_build("start", cc, src, so);
	free(so);
	return rc == 0 ? 0 : -1;
}

/* The mock's settings for the next worker; the log emptied. */
static void mock(const char *ctx_ms, int fail)
{
	setenv("MOCK_CTX_MS", ctx_ms, 1);
	if (fail)
		setenv("MOCK_CTX_FAIL", "1", 1);
	else
		unsetenv("MOCK_CTX_FAIL");
	FILE *f = fopen(log_path, "w");
	if (f)
		fclose(f);
}

static char *mock_log(void)
{
	char *text = NULL;
	size_t n = 0;
	if (read_file(log_path, &text, &n) != 0)
		return xstrdup("");
	return text;
}

/* Where line `what` is in the log (its offset), or -1. */
static long at(const char *log, const char *what)
{
	size_t n = strlen(what);
	for (const char *p = log; (p = strstr(p, what)) != NULL; p++)
		if ((p == log || p[-1] == '\n') && (p[n] == '\n' || p[n] == ' ' || !p[n]))
			return (long)(p - log);
	return -1;
}

static wclient client(void)
{
	wclient w;
	memset(&w, 0, sizeof w);
	w.rfd = w.wfd = -1;
	w.exe = NULL; /* /proc/self/exe: this program */
	return w;
}

/* The HELLO does not wait for the context (its 600 ms); the free memory
 * does, and is asked for with the context current. */
TEST(hello_first)
{
	mock("600", 0);
	wclient w = client();
	char *err = NULL;
	uint64_t t0 = now_ns();
	CHECK(wc_start(&w, &err) == 0);
	double hello_ms = ms_since(t0);
	CHECK(hello_ms < 450);
	CHECK_STREQ(w.dev.name, "Mock GPU");
	CHECK(w.dev.total_mem == (uint64_t)80 << 30 && w.dev.free_mem == 0);
	CHECK(w.dev.cc_major == 9 && w.dev.sm_count == 132);
	CHECK(wc_device(&w, &err) == 0);
	double dev_ms = ms_since(t0);
	CHECK(dev_ms >= 590);
	CHECK(w.dev.free_mem == (uint64_t)3 << 30 && w.dev.total_mem == (uint64_t)80 << 30);
	CHECK(wc_device(&w, &err) == 0); /* again: no wait */
	CHECK(ms_since(t0) - dev_ms < 300);
	wc_stop(&w);
	CHECK(w.pid == 0);
	char *log = mock_log();
	CHECK(at(log, "hello-ready") >= 0 && at(log, "ctx-done") > at(log, "hello-ready"));
	CHECK(at(log, "meminfo") > at(log, "ctx-done"));
	CHECK(at(log, "nocontext") < 0);
	if (hello_ms >= 450 || at(log, "nocontext") >= 0)
		fprintf(stderr, "start: HELLO after %.1f ms; the mock's log:\n%s", hello_ms, log);
	free(log);
	free(err);
}

static plan *new_plan(void)
{
	plan *p = calloc(1, sizeof *p);
	snprintf(p->launch.name, sizeof p->launch.name, "k");
	snprintf(p->launch.lowered, sizeof p->launch.lowered, "k");
	p->seed = 1234;
	for (int i = 0; i < 3; i++)
		p->launch.grid[i] = p->launch.block[i] = 1;
	plan_buf *b = &p->bufs[p->nbufs++]; /* filled on the host while the context is made */
	snprintf(b->name, sizeof b->name, "in");
	b->type = DT_FLOAT;
	b->count = 1 << 20;
	b->init = INIT_RANDOM;
	p->t.do_check = 1;
	p->t.do_time = 1;
	p->t.max_time_s = 0.1;
	return p;
}

/* A run sent at once waits for the context and goes on with it current:
 * the mock answers its first GPU work NOT_SUPPORTED, never INVALID_CONTEXT. */
TEST(first_run)
{
	mock("300", 0);
	wclient w = client();
	char *err = NULL;
	CHECK(wc_start(&w, &err) == 0);
	plan *p = new_plan();
	result *res = calloc(1, sizeof *res);
	for (int i = 0; i < 2; i++) {
		memset(res, 0, sizeof *res);
		CHECK(wc_run(&w, p, "\x7f" "ELF", 4, 10, NULL, NULL, NULL, res, &err) == 0);
		CHECK(res->status == RES_ERROR);
		CHECK(strstr(res->error, "CUDA_ERROR_NOT_SUPPORTED") != NULL);
		CHECK(strstr(res->error, "INVALID_CONTEXT") == NULL);
		if (res->status != RES_ERROR || !strstr(res->error, "CUDA_ERROR_NOT_SUPPORTED"))
			fprintf(stderr, "start: run %d: status %d: %s\n", i + 1, res->status, res->error);
	}
	wc_stop(&w);
	char *log = mock_log();
	CHECK(at(log, "ctx-done") > at(log, "hello-ready"));
	CHECK(at(log, "nocontext") < 0); /* nor when the worker left */
	if (at(log, "nocontext") >= 0)
		fprintf(stderr, "start: the mock's log:\n%s", log);
	free(log);
	free(res);
	free(p);
	free(err);
}

#define NO_CTX "cuDevicePrimaryCtxRetain failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"

/* The context cannot be made: the first run's error (fatal: the worker
 * leaves), and `device`'s. */
TEST(context_fails)
{
	mock("100", 1);
	wclient w = client();
	char *err = NULL;
	CHECK(wc_start(&w, &err) == 0);
	plan *p = new_plan();
	result *res = calloc(1, sizeof *res);
	CHECK(wc_run(&w, p, "\x7f" "ELF", 4, 10, NULL, NULL, NULL, res, &err) == 0);
	CHECK(res->status == RES_FATAL);
	CHECK_STREQ(res->error, NO_CTX);
	CHECK(w.pid == 0); /* it left, and was reaped */

	CHECK(wc_start(&w, &err) == 0);
	CHECK(wc_device(&w, &err) == -1);
	CHECK_STREQ(err, NO_CTX);
	CHECK(w.pid == 0);
	free(res);
	free(p);
	free(err);
}

/* Asked to leave while its context is being made: it leaves once the
 * context is there, well within wc_stop's 2 s before a kill. SIGINT then
 * (the terminal's Ctrl-C reaches the worker too) harms nothing. */
TEST(quit_and_sigint_while_starting)
{
	mock("700", 0);
	wclient w = client();
	char *err = NULL;
	CHECK(wc_start(&w, &err) == 0);
	uint64_t t0 = now_ns();
	wc_stop(&w);
	double ms = ms_since(t0);
	CHECK(w.pid == 0 && ms < 1800);
	char *log = mock_log();
	CHECK(at(log, "ctx-done") >= 0 && at(log, "nocontext") < 0);
	free(log);

	mock("400", 0);
	CHECK(wc_start(&w, &err) == 0);
	CHECK(w.pid > 0 && kill(w.pid, SIGINT) == 0);
	usleep(50 * 1000);
	CHECK(kill(w.pid, SIGINT) == 0);
	CHECK(wc_device(&w, &err) == 0);
	CHECK(w.dev.free_mem == (uint64_t)3 << 30);
	wc_stop(&w);
	free(err);
}

/* The prompt's background start: a worker spawned and left to start. A
 * Ctrl-C at once (before its handler is in place) does not end it; asked to
 * leave before its HELLO (here a cuInit of 1.5 s), it is killed at once. */
TEST(background_start)
{
	mock("100", 0);
	setenv("MOCK_INIT_MS", "300", 1);
	wclient w = client();
	char *err = NULL;
	CHECK(wc_spawn(&w, &err) == 0 && w.pid > 0 && w.hello_pending);
	CHECK(kill(w.pid, SIGINT) == 0);
	CHECK(wc_start(&w, &err) == 0);
	CHECK(wc_device(&w, &err) == 0 && w.dev.free_mem == (uint64_t)3 << 30);
	wc_stop(&w);
	CHECK(w.pid == 0);

	mock("100", 0);
	setenv("MOCK_INIT_MS", "1500", 1);
	CHECK(wc_spawn(&w, &err) == 0);
	pid_t pid = w.pid;
	usleep(100 * 1000);
	wc_stop(&w);
	CHECK(w.pid == 0);
	CHECK(kill(pid, 0) != 0); /* reaped: gone */
	usleep(1600 * 1000);      /* past its cuInit: had it lived, it would have said HELLO */
	char *log = mock_log();
	CHECK(at(log, "init-begin") >= 0 && at(log, "hello-ready") < 0);
	free(log);
	unsetenv("MOCK_INIT_MS");
	free(err);
}

/* The prompt's look at a worker started in the background: not ready
 * while its cuInit (400 ms) goes on, ready once its HELLO has come, and
 * wc_start then takes it without waiting; none for a worker not spawned,
 * or one whose HELLO was read. */
TEST(hello_ready)
{
	mock("100", 0);
	setenv("MOCK_INIT_MS", "400", 1);
	wclient w = client();
	char *err = NULL;
	CHECK(!wc_hello_ready(&w));
	CHECK(wc_spawn(&w, &err) == 0);
	uint64_t t0 = now_ns();
	CHECK(!wc_hello_ready(&w));
	while (!wc_hello_ready(&w) && ms_since(t0) < 10000)
		usleep(5 * 1000);
	CHECK(ms_since(t0) >= 350 && ms_since(t0) < 10000);
	uint64_t t1 = now_ns();
	CHECK(wc_start(&w, &err) == 0 && !w.hello_pending);
	CHECK(ms_since(t1) < 50);
	CHECK_STREQ(w.dev.name, "Mock GPU");
	CHECK(!wc_hello_ready(&w));
	wc_stop(&w);
	unsetenv("MOCK_INIT_MS");
	free(err);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "--worker") == 0)
		return worker_main(argc - 2, argv + 2);
	char *cc = mock_find_cc();
	if (!cc || !mkdtemp(tmpdir)) {
		printf("start: skipped: %s\n", cc ? "no temporary folder" : "no C compiler ($CC or cc)");
		free(cc);
		return 0;
	}
	int built = build(cc, "cuda_mock.c", "libcuda.so.1") == 0 && build(cc, "cupti_mock.c", "libcupti_mock.so") == 0;
	free(cc);
	CHECK(built);
	if (built) {
		log_path = xasprintf("%s/log", tmpdir);
		char *cupti = xasprintf("%s/libcupti_mock.so", tmpdir);
		setenv("LD_LIBRARY_PATH", tmpdir, 1); /* the workers' libcuda.so.1 */
		setenv("CUPLAY_CUPTI", cupti, 1);
		setenv("CUPLAY_GPU_LOCK", "0", 1);
		setenv("MOCK_LOG", log_path, 1);
		unsetenv("CUPLAY_TRACE_WORKER");
		free(cupti);
		RUN(hello_first);
		RUN(first_run);
		RUN(context_fails);
		RUN(quit_and_sigint_while_starting);
		RUN(background_start);
		RUN(hello_ready);
	}
	mock_rmdir(tmpdir);
	CHECK(access(tmpdir, F_OK) != 0);
	free(log_path);
	return test_report("start");
}
