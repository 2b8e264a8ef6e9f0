/* test_worker.c: the worker protocol and client, and (where a GPU answers)
 * the worker end to end on hand-built plans and a PTX module.
 *
 * This program is its own worker: `test_worker --worker RFD WFD DEVICE VERSION`
 * runs worker_main, and the client execs /proc/self/exe. */
#include "test.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ref.h"
#include "stats.h"
#include "util.h"
#include "client.h"
#include "worker.h"

/* ------------------------------------------------------------- framing */

TEST(framing_roundtrip)
{
	int fd[2];
	CHECK(pipe(fd) == 0);
	const char a[] = "hello ", b[] = "world";
	CHECK(wire_send(fd[1], 7, a, 6, b, 5) == 0);
	CHECK(wire_send(fd[1], MSG_STOP, NULL, 0, NULL, 0) == 0);
	wire_progress pg = { 12, WIRE_PHASE_GPU, 0.5 };
	CHECK(wire_send(fd[1], MSG_PROGRESS, &pg, sizeof pg, NULL, 0) == 0);
	close(fd[1]);

	uint32_t type = 0;
	void *p = NULL;
	uint64_t len = 0;
	CHECK(wire_recv(fd[0], &type, &p, &len) == 0);
	CHECK(type == 7 && len == 11);
	CHECK_STREQ((const char *)p, "hello world"); /* NUL-terminated */
	free(p);
	CHECK(wire_recv(fd[0], &type, &p, &len) == 0);
	CHECK(type == MSG_STOP && len == 0 && p == NULL);
	CHECK(wire_recv(fd[0], &type, &p, &len) == 0);
	CHECK(type == MSG_PROGRESS && len == sizeof pg);
	wire_progress got;
	memcpy(&got, p, sizeof got);
	CHECK(got.nsamples == 12 && got.phase == WIRE_PHASE_GPU && got.last_ms == 0.5);
	free(p);
	CHECK(wire_recv(fd[0], &type, &p, &len) == 1); /* EOF */
	close(fd[0]);
}

/* A message larger than the pipe's buffer, written by another process. */
TEST(framing_large)
{
	enum { N = 1 << 20 };
	unsigned char *big = malloc(N);
	for (int i = 0; i < N; i++)
		big[i] = (unsigned char)(i * 7 + 3);
	int fd[2];
	CHECK(pipe(fd) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(fd[0]);
		int r = wire_send(fd[1], MSG_RUN, big, 1000, big + 1000, N - 1000);
		_exit(r == 0 ? 0 : 1);
	}
	close(fd[1]);
	uint32_t type = 0;
	void *p = NULL;
	uint64_t len = 0;
	CHECK(wire_recv(fd[0], &type, &p, &len) == 0);
	CHECK(type == MSG_RUN && len == N);
	CHECK(p && memcmp(p, big, N) == 0);
	free(p);
	int st = 0;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fd[0]);
	free(big);
}

/* The worker's channel is a socket: a gone reader is EPIPE, not a signal
 * (SIGPIPE keeps its default action here: a signal would end the test). */
TEST(framing_socket)
{
	signal(SIGPIPE, SIG_DFL);
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	CHECK(wire_send(sv[0], MSG_QUIT, "q", 1, NULL, 0) == 0);
	uint32_t type = 0;
	void *p = NULL;
	uint64_t len = 0;
	CHECK(wire_recv(sv[1], &type, &p, &len) == 0 && type == MSG_QUIT && len == 1);
	free(p);
	close(sv[1]);
	errno = 0;
	CHECK(wire_send(sv[0], MSG_QUIT, NULL, 0, NULL, 0) == -1 && errno == EPIPE);
	close(sv[0]);
}

TEST(framing_bad)
{
	int fd[2];
	uint32_t type = 0;
	void *p = NULL;
	uint64_t len = 0;

	/* a header cut short */
	CHECK(pipe(fd) == 0);
	CHECK(write(fd[1], "\x01\x00\x00", 3) == 3);
	close(fd[1]);
	errno = 0;
	CHECK(wire_recv(fd[0], &type, &p, &len) == -1 && errno == EPROTO);
	close(fd[0]);

	/* a payload cut short */
	CHECK(pipe(fd) == 0);
	unsigned char hdr[12];
	uint32_t t = MSG_RESULT;
	uint64_t n = 100;
	memcpy(hdr, &t, 4);
	memcpy(hdr + 4, &n, 8);
	CHECK(write(fd[1], hdr, 12) == 12);
	CHECK(write(fd[1], "abc", 3) == 3);
	close(fd[1]);
	errno = 0;
	CHECK(wire_recv(fd[0], &type, &p, &len) == -1 && errno == EPROTO && p == NULL);
	close(fd[0]);

	/* an absurd length */
	CHECK(pipe(fd) == 0);
	n = (uint64_t)1 << 40;
	memcpy(hdr + 4, &n, 8);
	CHECK(write(fd[1], hdr, 12) == 12);
	close(fd[1]);
	errno = 0;
	CHECK(wire_recv(fd[0], &type, &p, &len) == -1 && errno == EPROTO);
	close(fd[0]);

	/* writing to a closed pipe: EPIPE, not SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	CHECK(pipe(fd) == 0);
	close(fd[0]);
	errno = 0;
	CHECK(wire_send(fd[1], MSG_QUIT, NULL, 0, NULL, 0) == -1 && errno == EPIPE);
	close(fd[1]);
}

/* ---------------------------------------------------- compile-only facts */

/* ------------------------------------------------ builds that differ */

static void devinfo_for_test(devinfo *d)
{
	memset(d, 0, sizeof *d);
	d->count = 1;
	d->cc_major = 9;
	d->sm_count = 132;
	snprintf(d->name, sizeof d->name, "Test GPU");
}

TEST(hello)
{
	devinfo d, got;
	devinfo_for_test(&d);
	wire_hello h;
	wire_hello_make(&h, &d);
	char *err = NULL;
	memset(&got, 0, sizeof got);
	CHECK(wire_hello_read(&h, sizeof h, &got, &err) == 0 && err == NULL);
	CHECK_STREQ(got.name, "Test GPU");
	CHECK(got.sm_count == 132 && got.count == 1);

	wire_hello o = h;
	o.version = WIRE_VERSION + 1;
	CHECK(wire_hello_read(&o, sizeof o, &got, &err) == -1);
	char want[200];
	snprintf(want, sizeof want, "the GPU worker is from another build of cuplay (wire version %d, this is %d): "
	         "restart cuplay", WIRE_VERSION + 1, WIRE_VERSION);
	CHECK_STREQ(err, want);
	free(err);
	err = NULL;

	/* before the version: a bare devinfo */
	CHECK(wire_hello_read(&d, sizeof d, &got, &err) == -1);
	snprintf(want, sizeof want, "the GPU worker is from another build of cuplay (wire version 0, this is %d): "
	         "restart cuplay", WIRE_VERSION);
	CHECK_STREQ(err, want);
	free(err);
	err = NULL;
	CHECK(wire_hello_read(NULL, 0, &got, &err) == -1 && err && strstr(err, "(wire version 0,"));
	free(err);
	err = NULL;

	/* one version, structs of another size (a change without a new version) */
	o = h;
	o.sizes[WIRE_SIZE_PLAN] += 4;
	CHECK(wire_hello_read(&o, sizeof o, &got, &err) == -1);
	snprintf(want, sizeof want, "the GPU worker is from another build of cuplay (its plan is %zu bytes, here %zu): "
	         "restart cuplay", sizeof(plan) + 4, sizeof(plan));
	CHECK_STREQ(err, want);
	free(err);
	err = NULL;
	CHECK(wire_hello_read(&h, sizeof h - 8, &got, &err) == -1 && err && strstr(err, "its HELLO is"));
	free(err);
	err = NULL;
	/* every size is checked */
	for (int i = 0; i < WIRE_SIZE_PROGRESS + 1; i++) {
		o = h;
		o.sizes[i]++;
		CHECK(wire_hello_read(&o, sizeof o, &got, &err) == -1 && err && strchr(err, '\n') == NULL);
		free(err);
		err = NULL;
	}
}

TEST(version_arg)
{
	char v[16], want[200];
	snprintf(v, sizeof v, "%d", WIRE_VERSION);
	char *err = NULL;
	CHECK(wire_version_check(v, &err) == 0 && err == NULL);
	CHECK(wire_version_check(NULL, &err) == -1);
	snprintf(want, sizeof want, "the GPU worker is from another build of cuplay (wire version %d, this is 0): "
	         "restart cuplay", WIRE_VERSION);
	CHECK_STREQ(err, want);
	free(err);
	err = NULL;
	CHECK(wire_version_check("3x", &err) == -1 && err && strstr(err, "this is 3x)"));
	free(err);
	err = NULL;

	/* the worker itself: refuses before it loads the driver, with one
	 * MSG_ERROR line, whether or not this machine has a GPU */
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	char fd[16];
	snprintf(fd, sizeof fd, "%d", sv[1]);
	char *args[] = { fd, fd, (char *)"0", (char *)"0", NULL };
	CHECK(worker_main(4, args) == 1);
	uint32_t type = 0;
	void *p = NULL;
	uint64_t len = 0;
	CHECK(wire_recv(sv[0], &type, &p, &len) == 0 && type == MSG_ERROR);
	snprintf(want, sizeof want, "the GPU worker is from another build of cuplay (wire version %d, this is 0): "
	         "restart cuplay", WIRE_VERSION);
	CHECK_STREQ((const char *)p, want);
	free(p);
	close(sv[0]);
	close(sv[1]);
}

/* ------------------------------------------------------------ the client */

static wclient client(const char *exe)
{
	wclient w;
	memset(&w, 0, sizeof w);
	w.rfd = w.wfd = -1;
	w.exe = exe;
	w.device = 0;
	return w;
}

TEST(client_bad_exe)
{
	wclient w = client("/nonexistent/cuplay");
	char *err = NULL;
	CHECK(wc_start(&w, &err) == -1);
	CHECK_STREQ(err, "cannot run the GPU worker '/nonexistent/cuplay': No such file or directory");
	CHECK(w.pid == 0);
	wc_stop(&w); /* not running: nothing to do */
	CHECK(w.pid == 0);

	/* a program that is not a worker */
	if (access("/bin/true", X_OK) == 0) {
		w = client("/bin/true");
		CHECK(wc_start(&w, &err) == -1);
		CHECK_STREQ(err, "the GPU worker exited with status 0 before it started");
		CHECK(w.pid == 0);
	}

	/* wc_run starts the worker itself, and says why it cannot */
	w = client("/nonexistent/cuplay");
	plan *p = calloc(1, sizeof *p);
	result *res = calloc(1, sizeof *res);
	strcpy(p->launch.name, "k");
	CHECK(wc_run(&w, p, "x", 1, 10, NULL, NULL, NULL, res, &err) == -1);
	CHECK_STREQ(err, "cannot run the GPU worker '/nonexistent/cuplay': No such file or directory");
	free(p);
	free(res);
	free(err);
}

/* Through the client: a worker of another build (this program standing
 * in for one, see other_build) and the line the front end gets. */
static void start_other(const char *mode, const char *arg, const char *want_part)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	CHECK(n > 0);
	if (n <= 0)
		return;
	self[n] = 0;
	const char *prefix[] = { self, mode, arg, NULL };
	wclient w = client(NULL);
	char *err = NULL;
	CHECK(wc_start_under(&w, prefix, 10, &err) == -1);
	CHECK(w.pid == 0 && w.other_build == 1);
	CHECK(err && strncmp(err, "the GPU worker is from another build of cuplay (", 48) == 0);
	CHECK(err && strstr(err, want_part) != NULL);
	CHECK(err && strchr(err, '\n') == NULL);
	if (!err || !strstr(err, want_part))
		fprintf(stderr, "  got: %s\n", err ? err : "(null)");
	free(err);
}

TEST(client_other_build)
{
	char want[64];
	/* the worker refuses the front end's version (before cuInit: the same
	 * line with or without a driver) */
	snprintf(want, sizeof want, "(wire version %d, this is 0): restart cuplay", WIRE_VERSION);
	start_other("--as-version", "0", want);
	/* the front end refuses the worker's HELLO */
	snprintf(want, sizeof want, "(wire version %d, this is %d): restart cuplay", WIRE_VERSION + 1, WIRE_VERSION);
	start_other("--hello", "newer", want);
	snprintf(want, sizeof want, "(wire version 0, this is %d): restart cuplay", WIRE_VERSION);
	start_other("--hello", "bare", want);
	start_other("--hello", "size", "(its result is ");
}

/* A message goes as one write: on a socket that keeps writes apart
 * (SOCK_SEQPACKET), one read gets the header and a result's 19 KB. */
TEST(framing_one_write)
{
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
	int big = 1 << 20;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
	size_t n = sizeof(result);
	char *body = calloc(1, n);
	memset(body, 7, n);
	CHECK(wire_send(sv[0], MSG_RESULT, body, 100, body + 100, n - 100) == 0);
	char *buf = malloc(n + 64);
	ssize_t r = recv(sv[1], buf, n + 64, 0);
	CHECK(r == (ssize_t)(12 + n));
	free(buf);
	free(body);
	close(sv[0]);
	close(sv[1]);
}

/* Every wait of a read, after its first byte too, ends at the deadline or
 * when the stop flag is set. */
static volatile sig_atomic_t g_stop_flag;
static void set_stop(int sig)
{
	(void)sig;
	g_stop_flag = 1;
}

TEST(framing_stall)
{
	int fd[2];
	CHECK(pipe(fd) == 0);
	unsigned char hdr[12];
	uint32_t t = MSG_RESULT;
	uint64_t n = 100;
	memcpy(hdr, &t, 4);
	memcpy(hdr + 4, &n, 8);
	CHECK(write(fd[1], hdr, 12) == 12);
	CHECK(write(fd[1], "abc", 3) == 3); /* and no more */
	uint32_t type = 0;
	void *p = NULL;
	uint64_t len = 0;
	uint64_t t0 = now_ns();
	errno = 0;
	CHECK(wire_recv_until(fd[0], &type, &p, &len, t0 + 200000000ull, NULL) == -1 && errno == ETIMEDOUT);
	double s = (double)(now_ns() - t0) / 1e9;
	CHECK(s >= 0.19 && s < 2);
	CHECK(p == NULL);
	/* half a header, then a stop (a Ctrl-C) 200 ms later */
	int fd2[2];
	CHECK(pipe(fd2) == 0);
	CHECK(write(fd2[1], hdr, 5) == 5);
	g_stop_flag = 0;
	signal(SIGALRM, set_stop);
	struct itimerval it = { { 0, 0 }, { 0, 200000 } };
	setitimer(ITIMER_REAL, &it, NULL);
	t0 = now_ns();
	errno = 0;
	CHECK(wire_recv_until(fd2[0], &type, &p, &len, 0, &g_stop_flag) == -1 && errno == EINTR);
	s = (double)(now_ns() - t0) / 1e9;
	CHECK(s >= 0.15 && s < 2);
	signal(SIGALRM, SIG_DFL);
	/* a whole message with a stop already set: read, not refused */
	CHECK(write(fd[1], "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456", 97) == 97);
	CHECK(wire_recv_until(fd[0], &type, &p, &len, 0, &g_stop_flag) == -1); /* the stalled one's rest: no header */
	free(p);
	for (int i = 0; i < 2; i++) {
		close(fd[i]);
		close(fd2[i]);
	}
}

/* Through the client: a worker (this program, see fake_worker) whose result
 * stalls half way. The front end is back within the message limit, or at
 * once on Ctrl-C, with the worker stopped. */
static void stalled_run(const char *mode, int msg_limit_ms, int alarm_ms, const char *want, double max_s)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	CHECK(n > 0);
	if (n <= 0)
		return;
	self[n] = 0;
	const char *prefix[] = { self, "--stall", mode, NULL };
	wclient w = client(NULL);
	w.msg_limit_ms = msg_limit_ms;
	char *err = NULL;
	CHECK(wc_start_under(&w, prefix, 10, &err) == 0);
	if (w.pid <= 0) {
		fprintf(stderr, "  fake worker: %s\n", err ? err : "?");
		free(err);
		return;
	}
	plan *p = calloc(1, sizeof *p);
	result *res = calloc(1, sizeof *res);
	strcpy(p->launch.name, "k");
	g_stop_flag = 0;
	if (alarm_ms) {
		signal(SIGALRM, set_stop);
		struct itimerval it = { { 0, 0 }, { 0, alarm_ms * 1000 } };
		setitimer(ITIMER_REAL, &it, NULL);
	}
	uint64_t t0 = now_ns();
	CHECK(wc_run(&w, p, "x", 1, 0, &g_stop_flag, NULL, NULL, res, &err) == -1);
	double s = (double)(now_ns() - t0) / 1e9;
	CHECK(s < max_s);
	CHECK_STREQ(err, want);
	CHECK(w.pid == 0);
	if (s >= max_s)
		fprintf(stderr, "  %s: back after %.2f s\n", mode, s);
	signal(SIGALRM, SIG_DFL);
	free(err);
	free(p);
	free(res);
	wc_stop(&w);
}

/* A worker that waits for the GPU (another process measures): its note
 * reaches the front end, and the wait is not a kernel without progress. */
static char g_note[256];
static int g_nnotes;
static void on_note(void *ctx, const char *text)
{
	(void)ctx;
	snprintf(g_note, sizeof g_note, "%s", text);
	g_nnotes++;
}

TEST(client_waits_for_gpu)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	CHECK(n > 0);
	if (n <= 0)
		return;
	self[n] = 0;
	const char *prefix[] = { self, "--stall", "wait", NULL };
	wclient w = client(NULL);
	w.note = on_note;
	char *err = NULL;
	CHECK(wc_start_under(&w, prefix, 10, &err) == 0);
	plan *p = calloc(1, sizeof *p);
	result *res = calloc(1, sizeof *res);
	strcpy(p->launch.name, "k");
	g_nnotes = 0;
	/* a timeout of 0.3 s; the worker waits 1 s for the GPU, then answers */
	CHECK(wc_run(&w, p, "x", 1, 0.3, NULL, NULL, NULL, res, &err) == 0);
	CHECK(g_nnotes == 1);
	CHECK_STREQ(g_note, "waiting for GPU 0 (another cuplay is measuring)");
	CHECK(res->status == RES_OK && w.pid > 0);
	if (err)
		fprintf(stderr, "  %s\n", err);
	free(err);
	free(p);
	free(res);
	wc_stop(&w);
}

TEST(client_stall)
{
	/* the body stalls: no timeout (0) and no Ctrl-C, the message limit */
	stalled_run("body", 300, 0, "the GPU worker stopped in the middle of a message while running 'k': "
	            "worker stopped (settings kept; the next run starts a new one)", 3);
	/* the header stalls; Ctrl-C 200 ms in */
	stalled_run("header", 0, 200, "run of 'k' interrupted: worker stopped (settings kept; the next run "
	            "starts a new one)", 2);
	/* the body stalls; Ctrl-C 200 ms in */
	stalled_run("body", 0, 200, "run of 'k' interrupted: worker stopped (settings kept; the next run "
	            "starts a new one)", 2);
}

/* ----------------------------------------------- end to end, with a GPU */

static const char *ptx =
	".version 7.0\n"
	".target sm_80\n"
	".address_size 64\n"
	" // .globl add\n"
	".extern .shared .align 16 .b8 s[];\n"
	".visible .entry add(\n"
	" .param .u64 add_param_0,\n"
	" .param .u64 add_param_1,\n"
	" .param .u64 add_param_2,\n"
	" .param .u32 add_param_3\n"
	")\n"
	"{\n"
	" .reg .pred %p<2>;\n"
	" .reg .f32 %f<4>;\n"
	" .reg .b32 %r<6>;\n"
	" .reg .b64 %rd<11>;\n"
	" ld.param.u64 %rd1, [add_param_0];\n"
	" ld.param.u64 %rd2, [add_param_1];\n"
	" ld.param.u64 %rd3, [add_param_2];\n"
	" ld.param.u32 %r2, [add_param_3];\n"
	" mov.u32 %r3, %ctaid.x;\n"
	" mov.u32 %r4, %ntid.x;\n"
	" mov.u32 %r5, %tid.x;\n"
	" mad.lo.s32 %r1, %r3, %r4, %r5;\n"
	" setp.ge.s32 %p1, %r1, %r2;\n"
	" @%p1 bra $L__BB0_2;\n"
	" cvta.to.global.u64 %rd4, %rd1;\n"
	" mul.wide.s32 %rd5, %r1, 4;\n"
	" add.s64 %rd6, %rd4, %rd5;\n"
	" cvta.to.global.u64 %rd7, %rd2;\n"
	" add.s64 %rd8, %rd7, %rd5;\n"
	" ld.global.f32 %f1, [%rd8];\n"
	" ld.global.f32 %f2, [%rd6];\n"
	" add.f32 %f3, %f2, %f1;\n"
	" cvta.to.global.u64 %rd9, %rd3;\n"
	" add.s64 %rd10, %rd9, %rd5;\n"
	" st.global.f32 [%rd10], %f3;\n"
	"$L__BB0_2:\n"
	" ret;\n"
	"}\n"
	" // .globl add_wrong\n"
	".visible .entry add_wrong(\n"
	" .param .u64 add_wrong_param_0,\n"
	" .param .u64 add_wrong_param_1,\n"
	" .param .u64 add_wrong_param_2,\n"
	" .param .u32 add_wrong_param_3\n"
	")\n"
	"{\n"
	" .reg .pred %p<3>;\n"
	" .reg .f32 %f<6>;\n"
	" .reg .b32 %r<6>;\n"
	" .reg .b64 %rd<11>;\n"
	" ld.param.u64 %rd1, [add_wrong_param_0];\n"
	" ld.param.u64 %rd2, [add_wrong_param_1];\n"
	" ld.param.u64 %rd3, [add_wrong_param_2];\n"
	" ld.param.u32 %r2, [add_wrong_param_3];\n"
	" mov.u32 %r3, %ctaid.x;\n"
	" mov.u32 %r4, %ntid.x;\n"
	" mov.u32 %r5, %tid.x;\n"
	" mad.lo.s32 %r1, %r3, %r4, %r5;\n"
	" setp.ge.s32 %p1, %r1, %r2;\n"
	" @%p1 bra $L__BB1_2;\n"
	" cvta.to.global.u64 %rd4, %rd1;\n"
	" mul.wide.s32 %rd5, %r1, 4;\n"
	" add.s64 %rd6, %rd4, %rd5;\n"
	" cvta.to.global.u64 %rd7, %rd2;\n"
	" add.s64 %rd8, %rd7, %rd5;\n"
	" ld.global.f32 %f1, [%rd8];\n"
	" ld.global.f32 %f2, [%rd6];\n"
	" add.f32 %f3, %f2, %f1;\n"
	" setp.eq.s32 %p2, %r1, 5;\n"
	" selp.f32 %f4, 0f3F800000, 0f00000000, %p2;\n"
	" add.f32 %f5, %f4, %f3;\n"
	" cvta.to.global.u64 %rd9, %rd3;\n"
	" add.s64 %rd10, %rd9, %rd5;\n"
	" st.global.f32 [%rd10], %f5;\n"
	"$L__BB1_2:\n"
	" ret;\n"
	"}\n"
	" // .globl add_int\n"
	".visible .entry add_int(\n"
	" .param .u64 add_int_param_0,\n"
	" .param .u64 add_int_param_1,\n"
	" .param .u64 add_int_param_2,\n"
	" .param .u32 add_int_param_3\n"
	")\n"
	"{\n"
	" .reg .pred %p<2>;\n"
	" .reg .b32 %r<9>;\n"
	" .reg .b64 %rd<11>;\n"
	" ld.param.u64 %rd1, [add_int_param_0];\n"
	" ld.param.u64 %rd2, [add_int_param_1];\n"
	" ld.param.u64 %rd3, [add_int_param_2];\n"
	" ld.param.u32 %r2, [add_int_param_3];\n"
	" mov.u32 %r3, %ctaid.x;\n"
	" mov.u32 %r4, %ntid.x;\n"
	" mov.u32 %r5, %tid.x;\n"
	" mad.lo.s32 %r1, %r3, %r4, %r5;\n"
	" setp.ge.s32 %p1, %r1, %r2;\n"
	" @%p1 bra $L__BB2_2;\n"
	" cvta.to.global.u64 %rd4, %rd1;\n"
	" mul.wide.s32 %rd5, %r1, 4;\n"
	" add.s64 %rd6, %rd4, %rd5;\n"
	" cvta.to.global.u64 %rd7, %rd2;\n"
	" add.s64 %rd8, %rd7, %rd5;\n"
	" ld.global.u32 %r6, [%rd8];\n"
	" ld.global.u32 %r7, [%rd6];\n"
	" add.s32 %r8, %r6, %r7;\n"
	" cvta.to.global.u64 %rd9, %rd3;\n"
	" add.s64 %rd10, %rd9, %rd5;\n"
	" st.global.u32 [%rd10], %r8;\n"
	"$L__BB2_2:\n"
	" ret;\n"
	"}\n"
	" // .globl saxpy\n"
	".visible .entry saxpy(\n"
	" .param .f32 saxpy_param_0,\n"
	" .param .u64 saxpy_param_1,\n"
	" .param .u64 saxpy_param_2,\n"
	" .param .u64 saxpy_param_3\n"
	")\n"
	"{\n"
	" .reg .pred %p<2>;\n"
	" .reg .f32 %f<5>;\n"
	" .reg .b32 %r<4>;\n"
	" .reg .b64 %rd<12>;\n"
	" ld.param.f32 %f1, [saxpy_param_0];\n"
	" ld.param.u64 %rd2, [saxpy_param_1];\n"
	" ld.param.u64 %rd3, [saxpy_param_2];\n"
	" ld.param.u64 %rd4, [saxpy_param_3];\n"
	" mov.u32 %r1, %ctaid.x;\n"
	" mov.u32 %r2, %ntid.x;\n"
	" mul.wide.u32 %rd5, %r1, %r2;\n"
	" mov.u32 %r3, %tid.x;\n"
	" cvt.u64.u32 %rd6, %r3;\n"
	" add.s64 %rd1, %rd5, %rd6;\n"
	" setp.ge.s64 %p1, %rd1, %rd4;\n"
	" @%p1 bra $L__BB3_2;\n"
	" cvta.to.global.u64 %rd7, %rd3;\n"
	" cvta.to.global.u64 %rd8, %rd2;\n"
	" shl.b64 %rd9, %rd1, 2;\n"
	" add.s64 %rd10, %rd8, %rd9;\n"
	" ld.global.f32 %f2, [%rd10];\n"
	" add.s64 %rd11, %rd7, %rd9;\n"
	" ld.global.f32 %f3, [%rd11];\n"
	" fma.rn.f32 %f4, %f2, %f1, %f3;\n"
	" st.global.f32 [%rd11], %f4;\n"
	"$L__BB3_2:\n"
	" ret;\n"
	"}\n"
	" // .globl sum_atomic\n"
	".visible .entry sum_atomic(\n"
	" .param .u64 sum_atomic_param_0,\n"
	" .param .u64 sum_atomic_param_1,\n"
	" .param .u32 sum_atomic_param_2\n"
	")\n"
	"{\n"
	" .reg .pred %p<2>;\n"
	" .reg .f32 %f<3>;\n"
	" .reg .b32 %r<6>;\n"
	" .reg .b64 %rd<7>;\n"
	" ld.param.u64 %rd1, [sum_atomic_param_0];\n"
	" ld.param.u64 %rd2, [sum_atomic_param_1];\n"
	" ld.param.u32 %r2, [sum_atomic_param_2];\n"
	" mov.u32 %r3, %ctaid.x;\n"
	" mov.u32 %r4, %ntid.x;\n"
	" mov.u32 %r5, %tid.x;\n"
	" mad.lo.s32 %r1, %r3, %r4, %r5;\n"
	" setp.ge.u32 %p1, %r1, %r2;\n"
	" @%p1 bra $L__BB4_2;\n"
	" cvta.to.global.u64 %rd3, %rd1;\n"
	" mul.wide.u32 %rd4, %r1, 4;\n"
	" add.s64 %rd5, %rd3, %rd4;\n"
	" ld.global.f32 %f1, [%rd5];\n"
	" cvta.to.global.u64 %rd6, %rd2;\n"
	" atom.global.add.f32 %f2, [%rd6], %f1;\n"
	"$L__BB4_2:\n"
	" ret;\n"
	"}\n"
	" // .globl copy_smem\n"
	".visible .entry copy_smem(\n"
	" .param .u64 copy_smem_param_0,\n"
	" .param .u64 copy_smem_param_1,\n"
	" .param .u32 copy_smem_param_2\n"
	")\n"
	"{\n"
	" .reg .pred %p<3>;\n"
	" .reg .f32 %f<8>;\n"
	" .reg .b32 %r<14>;\n"
	" .reg .b64 %rd<9>;\n"
	" ld.param.u64 %rd1, [copy_smem_param_0];\n"
	" ld.param.u64 %rd2, [copy_smem_param_1];\n"
	" ld.param.u32 %r5, [copy_smem_param_2];\n"
	" mov.u32 %r6, %ntid.x;\n"
	" mov.u32 %r7, %ctaid.x;\n"
	" mov.u32 %r1, %tid.x;\n"
	" mad.lo.s32 %r2, %r7, %r6, %r1;\n"
	" setp.ge.s32 %p1, %r2, %r5;\n"
	" mov.f32 %f7, 0f00000000;\n"
	" @%p1 bra $L__BB5_2;\n"
	" cvta.to.global.u64 %rd3, %rd1;\n"
	" mul.wide.s32 %rd4, %r2, 4;\n"
	" add.s64 %rd5, %rd3, %rd4;\n"
	" ld.global.f32 %f7, [%rd5];\n"
	"$L__BB5_2:\n"
	" shl.b32 %r8, %r1, 2;\n"
	" mov.u32 %r9, s;\n"
	" add.s32 %r3, %r9, %r8;\n"
	" st.shared.f32 [%r3], %f7;\n"
	" mov.u32 %r10, 16383;\n"
	" sub.s32 %r11, %r10, %r1;\n"
	" shl.b32 %r12, %r11, 2;\n"
	" add.s32 %r4, %r9, %r12;\n"
	" mov.u32 %r13, 1065353216;\n"
	" st.shared.u32 [%r4], %r13;\n"
	" bar.sync 0;\n"
	" @%p1 bra $L__BB5_4;\n"
	" ld.shared.f32 %f4, [%r3];\n"
	" ld.shared.f32 %f5, [%r4];\n"
	" mul.f32 %f6, %f4, %f5;\n"
	" cvta.to.global.u64 %rd6, %rd2;\n"
	" mul.wide.s32 %rd7, %r2, 4;\n"
	" add.s64 %rd8, %rd6, %rd7;\n"
	" st.global.f32 [%rd8], %f6;\n"
	"$L__BB5_4:\n"
	" ret;\n"
	"}\n"
	" // .globl scale_d\n"
	".visible .entry scale_d(\n"
	" .param .u64 scale_d_param_0,\n"
	" .param .u64 scale_d_param_1,\n"
	" .param .f64 scale_d_param_2,\n"
	" .param .u64 scale_d_param_3\n"
	")\n"
	"{\n"
	" .reg .pred %p<2>;\n"
	" .reg .b32 %r<4>;\n"
	" .reg .f64 %fd<4>;\n"
	" .reg .b64 %rd<12>;\n"
	" ld.param.u64 %rd2, [scale_d_param_0];\n"
	" ld.param.u64 %rd3, [scale_d_param_1];\n"
	" ld.param.f64 %fd1, [scale_d_param_2];\n"
	" ld.param.u64 %rd4, [scale_d_param_3];\n"
	" mov.u32 %r1, %ctaid.x;\n"
	" mov.u32 %r2, %ntid.x;\n"
	" mul.wide.u32 %rd5, %r1, %r2;\n"
	" mov.u32 %r3, %tid.x;\n"
	" cvt.u64.u32 %rd6, %r3;\n"
	" add.s64 %rd1, %rd5, %rd6;\n"
	" setp.ge.u64 %p1, %rd1, %rd4;\n"
	" @%p1 bra $L__BB6_2;\n"
	" cvta.to.global.u64 %rd7, %rd2;\n"
	" shl.b64 %rd8, %rd1, 3;\n"
	" add.s64 %rd9, %rd7, %rd8;\n"
	" ld.global.f64 %fd2, [%rd9];\n"
	" mul.f64 %fd3, %fd2, %fd1;\n"
	" cvta.to.global.u64 %rd10, %rd3;\n"
	" add.s64 %rd11, %rd10, %rd8;\n"
	" st.global.f64 [%rd11], %fd3;\n"
	"$L__BB6_2:\n"
	" ret;\n"
	"}\n"
	" // .globl crash\n"
	".visible .entry crash(\n"
	" .param .u64 crash_param_0\n"
	")\n"
	"{\n"
	" .reg .b32 %r<3>;\n"
	" .reg .b64 %rd<6>;\n"
	" ld.param.u64 %rd1, [crash_param_0];\n"
	" cvta.to.global.u64 %rd2, %rd1;\n"
	" mov.u32 %r1, %tid.x;\n"
	" mul.wide.u32 %rd3, %r1, 4;\n"
	" add.s64 %rd4, %rd2, %rd3;\n"
	" add.s64 %rd5, %rd4, 4398046511104;\n"
	" mov.u32 %r2, 1065353216;\n"
	" st.global.u32 [%rd5], %r2;\n"
	" ret;\n"
	"}\n"
	" // .globl spin\n"
	".visible .entry spin(\n"
	" .param .u64 spin_param_0,\n"
	" .param .u64 spin_param_1\n"
	")\n"
	"{\n"
	" .reg .pred %p<2>;\n"
	" .reg .b32 %r<3>;\n"
	" .reg .b64 %rd<5>;\n"
	" ld.param.u64 %rd3, [spin_param_0];\n"
	" ld.param.u64 %rd4, [spin_param_1];\n"
	" cvta.to.global.u64 %rd1, %rd4;\n"
	" cvta.to.global.u64 %rd2, %rd3;\n"
	"$L__BB8_1:\n"
	" ld.volatile.global.u32 %r1, [%rd2];\n"
	" setp.eq.s32 %p1, %r1, 0;\n"
	" @%p1 bra $L__BB8_1;\n"
	" mov.u32 %r2, 1065353216;\n"
	" st.global.u32 [%rd1], %r2;\n"
	" ret;\n"
	"}\n";

static plan *new_plan(const char *kernel)
{
	plan *p = calloc(1, sizeof *p);
	snprintf(p->launch.name, sizeof p->launch.name, "%s", kernel);
	snprintf(p->launch.lowered, sizeof p->launch.lowered, "%s", kernel);
	p->seed = 1234;
	p->t.warmup = 2;
	p->t.min_reps = 10;
	p->t.max_reps = 50;
	p->t.target = 0.5;
	p->t.noise_target = 0.5;
	p->t.min_time_s = 0;
	p->t.max_time_s = 0.5;
	p->t.flush = 1;
	p->t.do_check = 1;
	p->t.do_time = 1;
	return p;
}

static int add_buf(plan *p, const char *name, dtype t, uint64_t n, init_kind init, int output)
{
	plan_buf *b = &p->bufs[p->nbufs];
	snprintf(b->name, sizeof b->name, "%s", name);
	b->type = t;
	b->count = n;
	b->init = init;
	b->output = output;
	return p->nbufs++;
}

static void arg_ptr(plan_launch *l, int buf)
{
	l->args[l->nargs].kind = ARG_PTR;
	l->args[l->nargs++].buf = buf;
}

static void arg_int(plan_launch *l, arg_kind k, int64_t v)
{
	l->args[l->nargs].kind = k;
	l->args[l->nargs++].i = v;
}

static void arg_float(plan_launch *l, arg_kind k, double v)
{
	l->args[l->nargs].kind = k;
	l->args[l->nargs++].f = v;
}

static void geometry(plan_launch *l, uint64_t n, uint32_t block)
{
	l->grid[0] = (uint32_t)((n + block - 1) / block);
	l->grid[1] = l->grid[2] = 1;
	l->block[0] = block;
	l->block[1] = l->block[2] = 1;
}

static plan_check *check_ref(plan *p, int out, const char *ref, double tol)
{
	plan_check *c = &p->checks[p->nchecks++];
	c->kind = CHECK_REF;
	c->out = out;
	snprintf(c->ref, sizeof c->ref, "%s", ref);
	c->tol = tol;
	return c;
}

static void cref_buf(plan_check *c, int buf)
{
	c->args[c->nargs].kind = ARG_PTR;
	c->args[c->nargs++].buf = buf;
}

static void cref_num(plan_check *c, double v)
{
	c->args[c->nargs].kind = ARG_F64;
	c->args[c->nargs].f = v;
	c->args[c->nargs++].i = (int64_t)v;
}

static int progress_calls;
static void on_progress(void *ctx, int n, double ms)
{
	(void)ctx;
	if (n > 0 && ms > 0)
		progress_calls++;
}

/* The add kernel on n floats: a, b random, c poison output. */
static plan *add_plan(const char *kernel, uint64_t n)
{
	plan *p = new_plan(kernel);
	int a = add_buf(p, "a", DT_FLOAT, n, INIT_RANDOM, 0);
	int b = add_buf(p, "b", DT_FLOAT, n, INIT_RANDOM, 0);
	int c = add_buf(p, "c", DT_FLOAT, n, INIT_POISON, 1);
	arg_ptr(&p->launch, a);
	arg_ptr(&p->launch, b);
	arg_ptr(&p->launch, c);
	arg_int(&p->launch, ARG_I32, (int64_t)n);
	geometry(&p->launch, n, 256);
	plan_check *ch = check_ref(p, c, "add", 1e-5);
	cref_buf(ch, a);
	cref_buf(ch, b);
	return p;
}

/* The add kernel on host data: a, b copied in, c copied out, n cut in k
 * chunks (plan.c's plan_chunks) on as many streams; pinned or pageable. */
static plan *host_add_plan(const char *kernel, uint64_t n, int k, int host)
{
	plan *p = add_plan(kernel, n);
	for (int i = 0; i < 3; i++) {
		p->bufs[i].host = host;
		p->bufs[i].per = 1;
		p->bufs[i].copy_in = i < 2;
		p->bufs[i].copy_out = i == 2;
	}
	p->bufs[2].unread = 1;
	p->split_args = 1u << 3;
	if (plan_chunks(n, k, p->chunks) != 0)
		return p;
	p->nchunks = k;
	for (int c = 0; c < k; c++) {
		plan_launch l = p->launch;
		geometry(&l, p->chunks[c].len, 256);
		memcpy(p->chunks[c].grid, l.grid, sizeof l.grid);
	}
	p->bus_h2d = 2.0 * 4 * (double)n;
	p->bus_d2h = 4.0 * (double)n;
	p->measure_link = 1;
	return p;
}

static int run(wclient *w, const plan *p, double timeout, volatile sig_atomic_t *intr, result *res, char **err)
{
	return wc_run(w, p, ptx, strlen(ptx), timeout, intr, on_progress, NULL, res, err);
}

/* Progress callbacks that act in the middle of sampling. */
static volatile sig_atomic_t late_intr;
static void intr_at_3(void *ctx, int n, double ms)
{
	(void)ctx;
	(void)ms;
	if (n >= 3)
		late_intr = 1;
}

static void term_at_3(void *ctx, int n, double ms)
{
	wclient *w = ctx;
	(void)ms;
	if (n == 3 && w->pid > 0)
		kill(w->pid, SIGTERM);
}

/* The buffer pool and the reference cache: a second run of the same plan
 * reuses the device buffers and the reference, with the same results. */
static int same_checks(const result *a, const result *b)
{
	if (a->nchecks != b->nchecks)
		return 0;
	for (int i = 0; i < a->nchecks; i++) {
		const check_result *x = &a->checks[i], *y = &b->checks[i];
		if (strcmp(x->buf, y->buf) != 0 || x->ok != y->ok || x->bad_index != y->bad_index ||
		    x->nonfinite != y->nonfinite || memcmp(&x->rel_err, &y->rel_err, sizeof x->rel_err) != 0 ||
		    memcmp(&x->got, &y->got, sizeof x->got) != 0 || memcmp(&x->want, &y->want, sizeof x->want) != 0)
			return 0;
	}
	return 1;
}

static void pool_tests(wclient *w)
{
	result *res = calloc(1, sizeof *res), *first = calloc(1, sizeof *first);
	char *err = NULL;

	/* the same plan twice: the second run uploads nothing and reuses the
	 * reference */
	plan *p = add_plan("add", 1 << 24);
	p->seed = 777; /* nothing pooled from earlier tests */
	CHECK(run(w, p, 10, NULL, first, &err) == 0 && first->status == RES_OK);
	CHECK(first->nchecks == 1 && first->checks[0].ok);
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
	CHECK(same_checks(first, res));
	CHECK(res->setup_ms < first->setup_ms);
	CHECK(res->check_ms < first->check_ms);
	printf("  gpu: add 64 MiB twice: setup %.1f -> %.1f ms, check %.1f -> %.1f ms, request %.0f -> %.0f ms\n",
	       first->setup_ms, res->setup_ms, first->check_ms, res->check_ms, first->launch_ms, res->launch_ms);
	/* another variant on the same buffers: reused, and its own result */
	snprintf(p->launch.name, PLAN_NAME, "add_wrong");
	snprintf(p->launch.lowered, PLAN_LOWERED, "add_wrong");
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
	CHECK(res->nchecks == 1 && !res->checks[0].ok && res->checks[0].bad_index == 5);
	snprintf(p->launch.name, PLAN_NAME, "add");
	snprintf(p->launch.lowered, PLAN_LOWERED, "add");
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK && same_checks(first, res));
	free(p);

	/* plans that follow each other with other buffers: each is right */
	for (int round = 0; round < 2; round++) {
		p = add_plan("add", 3000 + 1000 * (uint64_t)round);
		CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
		CHECK(res->nchecks == 1 && res->checks[0].ok && res->checks[0].rel_err < 1e-7);
		free(p);
		p = new_plan("scale_d");
		{
			int a = add_buf(p, "a", DT_DOUBLE, 5000, INIT_RANDOM, 0);
			int out = add_buf(p, "out", DT_DOUBLE, 5000, INIT_POISON, 1);
			arg_ptr(&p->launch, a);
			arg_ptr(&p->launch, out);
			arg_float(&p->launch, ARG_F64, 3.0);
			arg_int(&p->launch, ARG_U64, 5000);
			geometry(&p->launch, 5000, 128);
			plan_check *ch = check_ref(p, out, "scale", 1e-10);
			cref_buf(ch, a);
			cref_num(ch, 3.0);
		}
		CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
		CHECK(res->nchecks == 1 && res->checks[0].ok && res->checks[0].rel_err == 0);
		/* the same buffers, another scalar: another reference */
		p->launch.args[2].f = 2.0;
		CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
		CHECK(res->nchecks == 1 && !res->checks[0].ok && res->checks[0].bad_index == 0);
		p->checks[0].args[1].f = 2.0;
		p->checks[0].args[1].i = 2;
		CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
		CHECK(res->nchecks == 1 && res->checks[0].ok && res->checks[0].rel_err == 0);
		free(p);
	}

	/* an output of one plan is an input of the next (the same signature):
	 * it holds its initial contents again (poison: NaN + a is NaN, as
	 * wanted) */
	p = add_plan("add", 4096);
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK && res->checks[0].ok);
	free(p);
	p = new_plan("add");
	{
		int a = add_buf(p, "a", DT_FLOAT, 4096, INIT_RANDOM, 0);
		int c = add_buf(p, "c", DT_FLOAT, 4096, INIT_POISON, 0);
		int d = add_buf(p, "d", DT_FLOAT, 4096, INIT_ZERO, 1);
		arg_ptr(&p->launch, a);
		arg_ptr(&p->launch, c);
		arg_ptr(&p->launch, d);
		arg_int(&p->launch, ARG_I32, 4096);
		geometry(&p->launch, 4096, 256);
		plan_check *ch = check_ref(p, d, "add", 1e-5);
		cref_buf(ch, a);
		cref_buf(ch, c);
	}
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
	CHECK(res->nchecks == 1 && res->checks[0].ok && res->checks[0].nonfinite == 0);
	free(p);

	/* in place: checked only, then timed (the output's device copy is made
	 * then), then timed again (kept) */
	for (int k = 0; k < 3; k++) {
		p = new_plan("saxpy");
		int x = add_buf(p, "x", DT_FLOAT, 100000, INIT_RANDOM, 0);
		int y = add_buf(p, "y", DT_FLOAT, 100000, INIT_RANDOM, 1);
		arg_float(&p->launch, ARG_F32, 2.0);
		arg_ptr(&p->launch, x);
		arg_ptr(&p->launch, y);
		arg_int(&p->launch, ARG_I64, 100000);
		geometry(&p->launch, 100000, 256);
		plan_check *ch = check_ref(p, y, "saxpy", 1e-5);
		cref_num(ch, 2.0);
		cref_buf(ch, x);
		cref_buf(ch, y);
		p->t.do_time = k > 0;
		CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
		CHECK(res->nchecks == 1 && res->checks[0].ok);
		CHECK(k == 0 ? res->nsamples == 0 : res->nsamples >= 10);
		if (k == 0)
			*first = *res;
		else
			CHECK(same_checks(first, res));
		free(p);
	}

	/* a kernel that breaks the contract (writes into its input 'a'): the
	 * next run, given the same buffers, still checks right */
	p = add_plan("add", 1 << 16);
	CHECK(run(w, p, 10, NULL, first, &err) == 0 && first->status == RES_OK && first->checks[0].ok);
	p->launch.args[2].buf = 0; /* add(a, b, a): a += b */
	p->nchecks = 0;
	p->t.do_time = 0;
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK && res->nchecks == 0);
	free(p);
	p = add_plan("add", 1 << 16);
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
	CHECK(res->nchecks == 1 && res->checks[0].ok && same_checks(first, res));
	free(p);

	/* short of memory with a buffer pooled: the message counts the whole
	 * plan, as a fresh worker's would, and the worker goes on */
	p = new_plan("add");
	add_buf(p, "big", DT_FLOAT, (uint64_t)1 << 28, INIT_ZERO, 0); /* 1 GiB */
	arg_ptr(&p->launch, 0);
	arg_ptr(&p->launch, 0);
	arg_ptr(&p->launch, 0);
	arg_int(&p->launch, ARG_I32, 0);
	geometry(&p->launch, 1, 1);
	p->t.do_check = p->t.do_time = 0;
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
	add_buf(p, "huge", DT_FLOAT, (uint64_t)1 << 36, INIT_ZERO, 1); /* 256 GiB */
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_ERROR);
	const char *want = "buffers need 257.0 GiB but only ";
	CHECK(strncmp(res->error, want, strlen(want)) == 0);
	if (strncmp(res->error, want, strlen(want)) != 0)
		fprintf(stderr, "  pool: %s\n", res->error);
	free(p);
	p = add_plan("add", 1000);
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK && res->checks[0].ok);
	free(p);

	free(first);
	free(res);
	free(err);
}

static void gpu_tests(wclient *w)
{
	result *res = calloc(1, sizeof *res);
	char *err = NULL;

	/* add: checked, timed, progress reported, roof measured */
	plan *p = add_plan("add", 1 << 20);
	progress_calls = 0;
	CHECK(run(w, p, 10, NULL, res, &err) == 0);
	CHECK(res->status == RES_OK);
	if (res->status != RES_OK)
		fprintf(stderr, "  add: %s\n", res->error);
	CHECK(res->nchecks == 1 && res->checks[0].ok && res->checks[0].rel_err < 1e-7);
	CHECK_STREQ(res->checks[0].buf, "c");
	CHECK(res->checks[0].bad_index == -1 && res->checks[0].nonfinite == 0);
	CHECK(res->nsamples >= 10 && res->nsamples <= 50);
	int pos = 1;
	for (int i = 0; i < res->nsamples; i++)
		pos &= res->samples_ms[i] > 0 && res->samples_ms[i] < 100;
	CHECK(pos);
	CHECK(progress_calls == res->nsamples);
	/* the rule's verdict and the median's interval come with the samples */
	stats st;
	stats_compute(res->samples_ms, res->nsamples, &st);
	CHECK(res->stop == STOP_INTERVAL || res->stop == STOP_SAMPLES);
	CHECK(st.has_ci && res->ci_lo_ms == st.ci_lo && res->ci_hi_ms == st.ci_hi);
	CHECK(res->ci_lo_ms <= st.median && st.median <= res->ci_hi_ms);
	CHECK(res->split.kernel_ms > 0 && res->split.wait_ms > 0 && res->split.resets == 1);
	CHECK(res->roof_gbps > 1);
	CHECK(res->launch_ms > 0);
	printf("  gpu: add 4 MiB median-ish %.4f ms, roof %.0f GB/s, request %.0f ms\n",
	       res->samples_ms[res->nsamples / 2], res->roof_gbps, res->launch_ms);
	free(p);

	/* a wrong element is found */
	p = add_plan("add_wrong", 1000);
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
	CHECK(res->nchecks == 1 && !res->checks[0].ok && res->checks[0].bad_index == 5);
	CHECK_NEAR(res->checks[0].got - res->checks[0].want, 1.0, 1e-6);
	free(p);

	/* check against another kernel of the module */
	p = add_plan("add_wrong", 1000);
	p->checks[0].kind = CHECK_KERNEL;
	p->checks[0].nargs = 0;
	p->checks[0].other = p->launch;
	snprintf(p->checks[0].other.name, PLAN_NAME, "add");
	snprintf(p->checks[0].other.lowered, PLAN_LOWERED, "add");
	p->t.do_time = 0;
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
	CHECK(res->nchecks == 1 && !res->checks[0].ok && res->checks[0].bad_index == 5);
	CHECK(res->nsamples == 0);
	free(p);

	/* integers wrap like the device's: exact compare */
	p = new_plan("add_int");
	{
		int a = add_buf(p, "a", DT_INT, 5000, INIT_RANDOM, 0);
		int b = add_buf(p, "b", DT_INT, 5000, INIT_RANDOM, 0);
		int c = add_buf(p, "c", DT_INT, 5000, INIT_POISON, 1);
		arg_ptr(&p->launch, a);
		arg_ptr(&p->launch, b);
		arg_ptr(&p->launch, c);
		arg_int(&p->launch, ARG_I32, 5000);
		geometry(&p->launch, 5000, 128);
		plan_check *ch = check_ref(p, c, "add", 0);
		cref_buf(ch, a);
		cref_buf(ch, b);
	}
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
	CHECK(res->nchecks == 1 && res->checks[0].ok);
	free(p);

	/* in-place saxpy: the reference sees y's initial contents, and y is
	 * restored before every timed launch */
	p = new_plan("saxpy");
	{
		int x = add_buf(p, "x", DT_FLOAT, 100000, INIT_RANDOM, 0);
		int y = add_buf(p, "y", DT_FLOAT, 100000, INIT_RANDOM, 1);
		arg_float(&p->launch, ARG_F32, 2.0);
		arg_ptr(&p->launch, x);
		arg_ptr(&p->launch, y);
		arg_int(&p->launch, ARG_I64, 100000);
		geometry(&p->launch, 100000, 256);
		plan_check *ch = check_ref(p, y, "saxpy", 1e-5);
		cref_num(ch, 2.0);
		cref_buf(ch, x);
		cref_buf(ch, y);
	}
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
	CHECK(res->nchecks == 1 && res->checks[0].ok);
	CHECK(res->nsamples >= 10);
	free(p);

	/* a reduction: only out[0] is compared */
	p = new_plan("sum_atomic");
	{
		int in = add_buf(p, "in", DT_FLOAT, 100000, INIT_ONE, 0);
		int out = add_buf(p, "out", DT_FLOAT, 4, INIT_ZERO, 1);
		arg_ptr(&p->launch, in);
		arg_ptr(&p->launch, out);
		arg_int(&p->launch, ARG_U32, 100000);
		geometry(&p->launch, 100000, 256);
		plan_check *ch = check_ref(p, out, "sum", 1e-4);
		cref_buf(ch, in);
	}
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
	CHECK(res->nchecks == 1 && res->checks[0].ok && res->checks[0].rel_err == 0);
	free(p);

	/* 64 KiB of dynamic shared memory (over the 48 KiB default) */
	p = new_plan("copy_smem");
	{
		int in = add_buf(p, "in", DT_FLOAT, 10000, INIT_IOTA, 0);
		int out = add_buf(p, "out", DT_FLOAT, 10000, INIT_POISON, 1);
		arg_ptr(&p->launch, in);
		arg_ptr(&p->launch, out);
		arg_int(&p->launch, ARG_I32, 10000);
		geometry(&p->launch, 10000, 256);
		p->launch.smem = 64 * 1024;
		plan_check *ch = check_ref(p, out, "copy", 1e-5);
		cref_buf(ch, in);
	}
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
	if (res->status != RES_OK)
		fprintf(stderr, "  copy_smem: %s\n", res->error);
	CHECK(res->nchecks == 1 && res->checks[0].ok);
	free(p);

	/* doubles, a double and an unsigned long argument */
	p = new_plan("scale_d");
	{
		int a = add_buf(p, "a", DT_DOUBLE, 3000, INIT_RANDOM, 0);
		int out = add_buf(p, "out", DT_DOUBLE, 3000, INIT_POISON, 1);
		arg_ptr(&p->launch, a);
		arg_ptr(&p->launch, out);
		arg_float(&p->launch, ARG_F64, 3.0);
		arg_int(&p->launch, ARG_U64, 3000);
		geometry(&p->launch, 3000, 128);
		plan_check *ch = check_ref(p, out, "scale", 1e-10);
		cref_buf(ch, a);
		cref_num(ch, 3.0);
	}
	p->t.flush = 0;
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
	CHECK(res->nchecks == 1 && res->checks[0].ok && res->checks[0].rel_err == 0);
	free(p);

	pool_tests(w);

	/* errors that leave the worker usable */
	pid_t pid = w->pid;
	p = add_plan("nope", 100);
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_ERROR);
	CHECK_STREQ(res->error, "kernel 'nope' is not in the compiled module (looked for 'nope')");
	free(p);

	p = add_plan("add", (uint64_t)1 << 36);
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_ERROR);
	const char *want = "buffers need 768.0 GiB but only ";
	CHECK(strncmp(res->error, want, strlen(want)) == 0);
	CHECK(strstr(res->error, " of device memory is free") != NULL);
	free(p);

	p = add_plan("add", 4096);
	p->launch.block[0] = 2048;
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_ERROR);
	CHECK_STREQ(res->error, "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (invalid argument)");
	free(p);

	p = add_plan("add", 100);
	p->checks[0].nargs = 1;
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_ERROR);
	CHECK_STREQ(res->error, "check of 'c': add(a, b) takes 2 arguments, got 1");
	free(p);

	p = add_plan("add", 100);
	p->bufs[1].count = 99;
	p->t.do_time = 0;
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_ERROR);
	CHECK_STREQ(res->error, "check of 'c': add: 'b' has 99 elements but the output has 100");
	free(p);
	CHECK(w->pid == pid);

	/* Ctrl-C: the run stops early, the worker stays */
	volatile sig_atomic_t intr = 1;
	p = add_plan("add", 1 << 16);
	CHECK(run(w, p, 10, &intr, res, &err) == 0);
	CHECK(res->status == RES_INTERRUPTED);
	CHECK(res->nsamples < 50);
	free(p);
	CHECK(w->pid == pid);

	/* Ctrl-C in the middle of sampling: the samples so far come back */
	p = add_plan("add", 1 << 16);
	p->t.max_reps = 2048;
	p->t.rule = RULE_NOISE;
	p->t.noise_target = 0; /* never quiet enough: runs until stopped */
	p->t.max_time_s = 20;
	late_intr = 0;
	CHECK(wc_run(w, p, ptx, strlen(ptx), 10, &late_intr, intr_at_3, NULL, res, &err) == 0);
	CHECK(res->status == RES_INTERRUPTED);
	CHECK(res->nsamples >= 3 && res->nsamples < 2048);
	CHECK(res->nchecks == 1 && res->checks[0].ok);
	free(p);
	CHECK(w->pid == pid);

	/* timing only, a managed input */
	p = add_plan("add", 1 << 16);
	p->bufs[0].managed = 1;
	p->t.do_check = 0;
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK);
	CHECK(res->nchecks == 0 && res->nsamples >= 10);
	free(p);

	/* a worker that crashes: reaped, said how, started again next time */
	p = add_plan("add", 1 << 16);
	p->t.max_reps = 2048;
	p->t.rule = RULE_NOISE;
	p->t.noise_target = 0;
	p->t.max_time_s = 20;
	CHECK(wc_run(w, p, ptx, strlen(ptx), 10, NULL, term_at_3, w, res, &err) == -1);
	CHECK_STREQ(err, "the GPU worker was killed by SIGTERM (terminated) while running 'add' "
	                 "(settings kept; the next run starts a new one)");
	CHECK(w->pid == 0);
	free(p);
	p = add_plan("add", 1000);
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK && res->checks[0].ok);
	free(p);
	pid = w->pid;

	/* an illegal address is sticky: RES_FATAL, the worker goes */
	p = new_plan("crash");
	{
		int b = add_buf(p, "p", DT_FLOAT, 256, INIT_ZERO, 1);
		arg_ptr(&p->launch, b);
		geometry(&p->launch, 32, 32);
	}
	CHECK(run(w, p, 10, NULL, res, &err) == 0);
	CHECK(res->status == RES_FATAL);
	CHECK(strstr(res->error, "CUDA_ERROR_ILLEGAL_ADDRESS") != NULL);
	CHECK(strncmp(res->error, "kernel 'crash' failed: CUDA_ERROR_ILLEGAL_ADDRESS", 49) == 0);
	printf("  gpu: crash -> %s\n", res->error);
	CHECK(w->pid == 0);
	free(p);

	/* the next run starts a new worker */
	p = add_plan("add", 1000);
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK && res->checks[0].ok);
	CHECK(w->pid > 0 && w->pid != pid);
	free(p);

	/* a kernel that never ends: killed after the timeout */
	p = new_plan("spin");
	{
		int f = add_buf(p, "flag", DT_INT, 1, INIT_ZERO, 0);
		int o = add_buf(p, "out", DT_FLOAT, 1, INIT_POISON, 1);
		arg_ptr(&p->launch, f);
		arg_ptr(&p->launch, o);
		geometry(&p->launch, 1, 1);
	}
	CHECK(run(w, p, 2, NULL, res, &err) == -1);
	CHECK_STREQ(err, "kernel 'spin' made no progress for 2 s: worker stopped "
	                 "(settings kept; the next run starts a new one)");
	CHECK(w->pid == 0);
	free(p);

	/* host data: every chunking checks ok (a prime over 3 and 7 chunks, one
	 * element, pageable and pinned), the copies and kernels come back as
	 * the timeline, and the host link is measured */
	static const struct { uint64_t n; int k, host; } hc[] = {
		{ 1000003, 3, BUF_HOST_PINNED }, { 1000003, 7, BUF_HOST_PAGEABLE }, { 1 << 20, 1, BUF_HOST_PINNED },
		{ 1, 1, BUF_HOST_PAGEABLE }, { 4099, 64, BUF_HOST_PINNED },
	};
	for (size_t i = 0; i < sizeof hc / sizeof hc[0]; i++) {
		p = host_add_plan("add", hc[i].n, hc[i].k, hc[i].host);
		int rr = run(w, p, 20, NULL, res, &err);
		CHECK(rr == 0 && res->status == RES_OK && res->nchecks == 1 && res->checks[0].ok);
		if (rr != 0 || res->status != RES_OK)
			fprintf(stderr, "  host add n=%llu k=%d: %s\n", (unsigned long long)hc[i].n, hc[i].k,
			        rr ? err : res->error);
		/* per chunk: two copies in, the kernel, one copy out */
		CHECK(res->nspans == 4 * hc[i].k || res->tl_note[0]);
		CHECK(res->link_gbps[LINK_H2D_PINNED] > 0 && res->link_gbps[LINK_D2H_PAGEABLE] > 0);
		if (i == 0)
			printf("  gpu: host add n=1000003 over 3 pinned chunks: %d spans, link H2D %.1f/%.1f GB/s "
			       "(pageable/pinned), D2H %.1f/%.1f%s%s\n", res->nspans, res->link_gbps[LINK_H2D_PAGEABLE],
			       res->link_gbps[LINK_H2D_PINNED], res->link_gbps[LINK_D2H_PAGEABLE],
			       res->link_gbps[LINK_D2H_PINNED], res->tl_note[0] ? "; " : "", res->tl_note);
		free(p);
	}
	/* a wrong element in each chunk's slice is found in the copied-back output:
	 * add_wrong adds 1 at its index 5, the chunk's own */
	p = host_add_plan("add_wrong", 1000003, 3, BUF_HOST_PINNED);
	CHECK(run(w, p, 20, NULL, res, &err) == 0 && res->status == RES_OK && res->nchecks == 1);
	CHECK(!res->checks[0].ok && res->checks[0].bad_index == 5);
	free(p);

	p = add_plan("add", 1000);
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK && res->checks[0].ok);

	/* a worker killed while idle is replaced without a word */
	pid = w->pid;
	kill(pid, SIGKILL);
	usleep(200 * 1000);
	CHECK(run(w, p, 10, NULL, res, &err) == 0 && res->status == RES_OK && res->checks[0].ok);
	CHECK(w->pid > 0 && w->pid != pid);
	free(p);

	wc_stop(w);
	CHECK(w->pid == 0);
	free(res);
	free(err);
}

TEST(client_worker)
{
	wclient w = client(NULL); /* NULL: /proc/self/exe, this program */
	char *err = NULL;
	int r = wc_start(&w, &err);
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		/* no driver: one clean line, no worker left */
		CHECK(r == -1);
		CHECK(err && strncmp(err, "no CUDA driver found (", 22) == 0);
		CHECK(err && strchr(err, '\n') == NULL);
		CHECK(w.pid == 0);
		printf("  skipped: GPU tests (%s)\n", err ? err : "?");
	} else if (r != 0) {
		/* a driver without a usable device skips; a worker that cannot
		 * even report why is a bug */
		CHECK(w.pid == 0);
		CHECK(err && strncmp(err, "the GPU worker", 14) != 0 && strncmp(err, "cannot ", 7) != 0);
		printf("  skipped: GPU tests (%s)\n", err ? err : "?");
	} else {
		CHECK(w.pid > 0);
		CHECK(w.dev.count >= 1 && w.dev.cc_major >= 5 && w.dev.sm_count > 0);
		CHECK(w.dev.warp_size == 32 && w.dev.l2_bytes > 0 && w.dev.total_mem > 0);
		CHECK(w.dev.max_smem_optin >= w.dev.max_smem_block && w.dev.driver_version > 0);
		printf("  gpu: %s, sm_%d%d, %d SMs, driver %d\n", w.dev.name, w.dev.cc_major,
		       w.dev.cc_minor, w.dev.sm_count, w.dev.driver_version);
		CHECK(wc_start(&w, &err) == 0); /* already running: no-op */

		wclient bad = client(NULL);
		bad.device = 99;
		CHECK(wc_start(&bad, &err) == -1);
		CHECK(err && strncmp(err, "no CUDA device 99 (", 19) == 0);
		CHECK(bad.pid == 0);

		gpu_tests(&w);
	}
	if (h)
		dlclose(h);
	wc_stop(&w);
	free(err);
}

/* Stand-ins for a worker of another build, run through wc_start_under's
 * prefix: `test_worker MODE ARG EXE --worker RFD WFD DEVICE VERSION`.
 *   --as-version V  execs the real worker (this program) with version V, as
 *                   a front end of another build would start it
 *   --hello MODE    answers with a HELLO of another build: "newer" (the next version),
 *                   "bare" (a devinfo alone, as before the version), "size"
 *                   (a result size that differs), then waits for the end */
static int other_build(char **argv)
{
	const char *mode = argv[1], *arg = argv[2];
	char **wargv = argv + 3; /* EXE --worker RFD WFD DEVICE VERSION */
	if (strcmp(mode, "--as-version") == 0) {
		wargv[5] = (char *)arg;
		execv(wargv[0], wargv);
		return 127;
	}
	int rfd = atoi(wargv[2]), wfd = atoi(wargv[3]);
	devinfo d;
	devinfo_for_test(&d);
	wire_hello h;
	wire_hello_make(&h, &d);
	if (strcmp(arg, "bare") == 0) {
		wire_send(wfd, MSG_HELLO, &d, sizeof d, NULL, 0);
	} else {
		if (strcmp(arg, "newer") == 0)
			h.version = WIRE_VERSION + 1;
		else if (strcmp(arg, "size") == 0)
			h.sizes[WIRE_SIZE_RESULT] += 8;
		wire_send(wfd, MSG_HELLO, &h, sizeof h, NULL, 0);
	}
	char c;
	while (read(rfd, &c, 1) > 0) /* until the front end closes its end */
		;
	return 0;
}

/* A worker whose answer stalls: `test_worker --stall MODE EXE --worker RFD
 * WFD DEVICE VERSION`: a HELLO, then at the first RUN the start of a
 * RESULT ("header": 5 bytes of its header; "body": the header and 100
 * bytes of the body), then nothing until it is killed. */
static int fake_worker(char **argv)
{
	const char *mode = argv[2];
	char **wargv = argv + 3;
	int rfd = atoi(wargv[2]), wfd = atoi(wargv[3]);
	devinfo d;
	devinfo_for_test(&d);
	wire_hello h;
	wire_hello_make(&h, &d);
	wire_send(wfd, MSG_HELLO, &h, sizeof h, NULL, 0);
	uint32_t type = 0;
	void *p = NULL;
	uint64_t len = 0;
	if (wire_recv(rfd, &type, &p, &len) != 0 || type != MSG_RUN)
		return 1;
	free(p);
	if (strcmp(mode, "wait") == 0) {
		const char note[] = "waiting for GPU 0 (another cuplay is measuring)";
		wire_send(wfd, MSG_NOTE, note, strlen(note), NULL, 0);
		wire_progress pg = { 0, WIRE_PHASE_WAIT, 0 };
		wire_send(wfd, MSG_PROGRESS, &pg, sizeof pg, NULL, 0);
		sleep(1);
		result *res = calloc(1, sizeof *res);
		res->status = RES_OK;
		wire_send(wfd, MSG_RESULT, res, sizeof *res, NULL, 0);
		free(res);
		while (wire_recv(rfd, &type, &p, &len) == 0) /* until the front end leaves */
			free(p);
		return 0;
	}
	unsigned char msg[12 + 100];
	uint32_t t = MSG_RESULT;
	uint64_t n = sizeof(result);
	memcpy(msg, &t, 4);
	memcpy(msg + 4, &n, 8);
	memset(msg + 12, 0, 100);
	if (write(wfd, msg, strcmp(mode, "header") == 0 ? 5 : sizeof msg) < 0)
		return 1;
	sleep(60);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "--worker") == 0)
		return worker_main(argc - 2, argv + 2);
	if (argc == 9 && strcmp(argv[1], "--stall") == 0)
		return fake_worker(argv);
	if (argc == 9 && (strcmp(argv[1], "--as-version") == 0 || strcmp(argv[1], "--hello") == 0))
		return other_build(argv);
	RUN(framing_roundtrip);
	RUN(framing_large);
	RUN(framing_socket);
	RUN(framing_bad);
	RUN(framing_one_write);
	RUN(framing_stall);
	RUN(hello);
	RUN(version_arg);
	RUN(client_bad_exe);
	RUN(client_other_build);
	RUN(client_stall);
	RUN(client_waits_for_gpu);
	RUN(client_worker);
	return test_report("worker");
}
