/* ccserver.c: NVRTC in a child process that can be abandoned (ccserver.h).
 *
 * The wire: messages of a 16-byte header {u32 type, u32 0, u64 length} and
 * a payload, over one socket pair; both ends should be this binary, and the
 * HELLO says so with a magic number, a version and the sizes of what
 * crosses. A job and its answer are flat lists of
 * strings (a length, then the bytes; UINT64_MAX for NULL) and integers. */
#include "ccserver.h"
#include "fdio.h"
#include "pack.h"
#include "child.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CCS_MAGIC 0x53434c43u /* "CLCS" */
#define CCS_VERSION 2 /* 2: the framing of fdio.h */
#define CCS_MAX_PAYLOAD ((uint64_t)1 << 31)
#define CCS_KEPT "(settings kept)"

enum { CCS_HELLO = 1, CCS_JOB = 2, CCS_ANSWER = 3 };

static struct {
	int on;
	char *exe;       /* this binary */
	volatile sig_atomic_t *interrupt;
	double limit_s;
	pid_t pid;       /* 0: no child */
	int fd;
	int hello_read;
	int asked;       /* a job was sent to this child */
	sbuf pending;    /* a job sent in the background, not answered yet (len 0: none) */
	pid_t spare_pid; /* a child started beside one given a job in the background, warming up: the
	                    next child when that job is stopped (0: none) */
	int spare_fd;
} g = { .limit_s = CCS_LIMIT_DEFAULT, .fd = -1, .spare_fd = -1 };

/* ---- messages ---------------------------------------------------------- */

static void put_i32(sbuf *b, int32_t v) { pack_u32(b, (uint32_t)v); }
static int32_t get_i32(unpack *r) { return (int32_t)unpack_u32(r); }

/* A C string: bytes without a NUL inside (a string with one is refused:
 * what was sent was a C string). */
static char *get_str(unpack *r)
{
	size_t n = 0;
	char *s = unpack_bytes(r, &n);
	if (s && strlen(s) != n) {
		r->bad = 1;
		free(s);
		return NULL;
	}
	return s;
}

static int send_msg(int fd, uint32_t type, const void *p, size_t n)
{
	return fd_msg_send(fd, type, p, n, NULL, 0, CCS_MAX_PAYLOAD);
}

/* One message. 0 with *payload (caller frees), 1 end of input before it,
 * -1 with errno (ETIMEDOUT, EINTR from fd_read_until; EPROTO: a bad one).
 * The rest of a message that has begun comes soon, whatever the compile's
 * limit. */
static int recv_msg(int fd, uint32_t *type, char **payload, size_t *len, uint64_t deadline_ns,
                    volatile sig_atomic_t *stop)
{
	uint64_t n = 0;
	int r = fd_msg_recv(fd, type, payload, &n, CCS_MAX_PAYLOAD, deadline_ns, stop, 10000000000ull);
	*len = (size_t)n;
	return r;
}

static void hello_make(sbuf *b)
{
	put_i32(b, (int32_t)CCS_MAGIC);
	put_i32(b, CCS_VERSION);
	put_i32(b, (int32_t)sizeof(kres));
	put_i32(b, (int32_t)sizeof(nvrtc_pch));
}

static void job_write(sbuf *b, const nvrtc_job *j)
{
	pack_str(b, j->name);
	pack_str(b, j->path);
	pack_str(b, j->src);
	put_i32(b, j->nheaders);
	for (int i = 0; i < j->nheaders; i++) {
		pack_str(b, j->header_names[i]);
		pack_str(b, j->header_texts[i]);
	}
	put_i32(b, j->nopts);
	for (int i = 0; i < j->nopts; i++)
		pack_str(b, j->opts[i]);
	put_i32(b, j->nexprs);
	for (int i = 0; i < j->nexprs; i++) {
		pack_str(b, j->exprs[i]);
		pack_str(b, j->where ? j->where[i] : NULL);
	}
	put_i32(b, j->pch);
	pack_str(b, j->pch_dir);
}

/* A job as the child reads it; every string owned by the arrays. */
typedef struct ccs_job {
	nvrtc_job j;
	char *name, *path, *src, *pch_dir;
	char **hn, **ht, **opts, **exprs, **where;
} jobbuf;

static void jobbuf_free(jobbuf *b)
{
	for (int i = 0; i < b->j.nheaders; i++) {
		free(b->hn[i]);
		free(b->ht[i]);
	}
	for (int i = 0; i < b->j.nopts; i++)
		free(b->opts[i]);
	for (int i = 0; i < b->j.nexprs; i++) {
		free(b->exprs[i]);
		free(b->where[i]);
	}
	free(b->hn);
	free(b->ht);
	free(b->opts);
	free(b->exprs);
	free(b->where);
	free(b->name);
	free(b->path);
	free(b->src);
	free(b->pch_dir);
	memset(b, 0, sizeof *b);
}

/* A count of what follows: each item takes at least 8 bytes. */
static int get_count(unpack *r)
{
	int32_t n = get_i32(r);
	if (n < 0 || (uint64_t)n > (uint64_t)(r->end - r->p) / 8)
		r->bad = 1;
	return r->bad ? 0 : n;
}

static int job_read(unpack *r, jobbuf *b)
{
	memset(b, 0, sizeof *b);
	b->name = get_str(r);
	b->path = get_str(r);
	b->src = get_str(r);
	int nh = get_count(r);
	b->hn = xcalloc((size_t)nh + 1, sizeof *b->hn);
	b->ht = xcalloc((size_t)nh + 1, sizeof *b->ht);
	for (int i = 0; i < nh; i++) {
		b->hn[i] = get_str(r);
		b->ht[i] = get_str(r);
	}
	b->j.nheaders = nh;
	int no = get_count(r);
	b->opts = xcalloc((size_t)no + 1, sizeof *b->opts);
	for (int i = 0; i < no; i++)
		b->opts[i] = get_str(r);
	b->j.nopts = no;
	int ne = get_count(r);
	b->exprs = xcalloc((size_t)ne + 1, sizeof *b->exprs);
	b->where = xcalloc((size_t)ne + 1, sizeof *b->where);
	for (int i = 0; i < ne; i++) {
		b->exprs[i] = get_str(r);
		b->where[i] = get_str(r);
	}
	b->j.nexprs = ne;
	b->j.pch = get_i32(r);
	b->pch_dir = get_str(r);
	int ok = !r->bad && b->name && b->src;
	for (int i = 0; ok && i < nh; i++)
		ok = b->hn[i] && b->ht[i];
	for (int i = 0; ok && i < no; i++)
		ok = b->opts[i] != NULL;
	for (int i = 0; ok && i < ne; i++)
		ok = b->exprs[i] != NULL;
	if (!ok)
		return -1;
	b->j.name = b->name;
	b->j.path = b->path;
	b->j.src = b->src;
	b->j.header_names = (const char *const *)b->hn;
	b->j.header_texts = (const char *const *)b->ht;
	b->j.opts = (const char *const *)b->opts;
	b->j.exprs = (const char *const *)b->exprs;
	b->j.where = (const char *const *)b->where;
	b->j.pch_dir = b->pch_dir;
	return 0;
}

char *ccs_encode_job(const nvrtc_job *j, size_t *len)
{
	sbuf b = {0};
	job_write(&b, j);
	*len = b.len;
	return sb_steal(&b);
}

int ccs_decode_job(const char *p, size_t len, ccs_job **out)
{
	unpack r;
	unpack_init(&r, p, len);
	jobbuf *b = xcalloc(1, sizeof *b);
	if (job_read(&r, b) != 0 || r.p != r.end) {
		jobbuf_free(b);
		free(b);
		*out = NULL;
		return -1;
	}
	*out = b;
	return 0;
}

const nvrtc_job *ccs_job_get(const ccs_job *b)
{
	return &b->j;
}

void ccs_job_free(ccs_job *b)
{
	if (!b)
		return;
	jobbuf_free(b);
	free(b);
}

static void answer_write(sbuf *b, int rc, const char *err, const nvrtc_out *o)
{
	put_i32(b, rc);
	pack_str(b, err);
	pack_str(b, o->log);
	pack_bytes(b, o->cubin, o->cubin_len);
	pack_str(b, o->ptx);
	put_i32(b, o->nk);
	for (int i = 0; i < o->nk; i++) {
		pack_str(b, o->lowered ? o->lowered[i] : NULL);
		pack_bytes(b, o->res ? &o->res[i] : NULL, sizeof(kres));
	}
	put_i32(b, (int32_t)o->pch);
}

static int answer_read(unpack *r, nvrtc_out *o, char **err)
{
	memset(o, 0, sizeof *o);
	int rc = get_i32(r);
	char *e = get_str(r);
	o->log = get_str(r);
	o->cubin = unpack_bytes(r, &o->cubin_len);
	o->ptx = get_str(r);
	int nk = get_count(r);
	if (nk > 0) {
		o->lowered = xcalloc((size_t)nk + 1, sizeof *o->lowered);
		o->res = xcalloc((size_t)nk + 1, sizeof *o->res);
	}
	o->nk = nk;
	for (int i = 0; i < nk; i++) {
		o->lowered[i] = get_str(r);
		size_t n = 0;
		char *kr = unpack_bytes(r, &n);
		if (kr && n == sizeof(kres))
			memcpy(&o->res[i], kr, sizeof(kres));
		else if (rc == 0)
			r->bad = 1;
		free(kr);
		if (rc == 0 && !o->lowered[i])
			r->bad = 1;
	}
	o->pch = (nvrtc_pch)get_i32(r);
	if (r->bad || (rc == 0 && !o->cubin)) {
		free(e);
		nvrtc_out_free(o);
		return fail(err, "the compiler process sent an answer that cannot be read");
	}
	if (rc != 0) {
		nvrtc_out_free(o);
		if (err)
			*err = e ? e : xstrdup("compilation failed");
		else
			free(e);
		return -1;
	}
	free(e);
	return 0;
}

char *ccs_encode_answer(int rc, const char *err, const nvrtc_out *o, size_t *len)
{
	sbuf b = {0};
	answer_write(&b, rc, err, o);
	*len = b.len;
	return sb_steal(&b);
}

int ccs_decode_answer(const char *p, size_t len, nvrtc_out *o, char **err)
{
	unpack r;
	unpack_init(&r, p, len);
	int rc = answer_read(&r, o, err);
	if (rc == 0 && r.p != r.end) {
		nvrtc_out_free(o);
		return fail(err, "the compiler process sent an answer that cannot be read");
	}
	return rc;
}

/* ---- the child ------------------------------------------------------- */

int ccs_main(int argc, char **argv)
{
	if (argc < 1)
		return 2;
	int fd = atoi(argv[0]);
	signal(SIGPIPE, SIG_IGN);
	sbuf h = {0};
	hello_make(&h);
	int r = send_msg(fd, CCS_HELLO, h.s, h.len);
	sb_free(&h);
	if (r != 0)
		return 1;
	/* paid now, while the front end does other things */
	nvrtc_warm_up();
	for (;;) {
		uint32_t type = 0;
		char *p = NULL;
		size_t len = 0;
		if (recv_msg(fd, &type, &p, &len, 0, NULL) != 0)
			break;
		if (type != CCS_JOB) {
			free(p);
			continue;
		}
		unpack in;
		unpack_init(&in, p, len);
		jobbuf jb;
		nvrtc_out o;
		memset(&o, 0, sizeof o);
		char *e = NULL;
		int rc = job_read(&in, &jb) == 0 ? nvrtc_run(&jb.j, &o, &e)
		                                  : fail(&e, "the compiler process got a job it cannot read");
		jobbuf_free(&jb);
		free(p);
		sbuf b = {0};
		answer_write(&b, rc, rc ? (e ? e : "compilation failed") : NULL, &o);
		free(e);
		nvrtc_out_free(&o);
		r = send_msg(fd, CCS_ANSWER, b.s, b.len);
		sb_free(&b);
		if (r != 0)
			break;
	}
	close(fd);
	return 0;
}

/* ---- the front end ------------------------------------------------------ */

void ccs_init(const char *exe, volatile sig_atomic_t *interrupt)
{
	const char *e = getenv("CUPLAY_COMPILE_INPROC");
	g.on = !(e && *e && strcmp(e, "0") != 0);
	free(g.exe);
	g.exe = xstrdup(exe && strchr(exe, '/') ? exe : "/proc/self/exe");
	g.interrupt = interrupt;
}

int ccs_enabled(void)
{
	return g.on;
}

void ccs_set_limit(double seconds)
{
	g.limit_s = seconds > 0 ? seconds : 0;
}

double ccs_limit(void)
{
	return g.limit_s;
}

/* A new child: its pid and socket. */
static int spawn_child(pid_t *child, int *sock, char **err)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return fail(err, "cannot start the compiler process: socketpair: %s", strerror(errno));
	char fdarg[24];
	snprintf(fdarg, sizeof fdarg, "%d", sv[1]);
	char *argv[] = { (char *)"cuplay", (char *)"--compile-server", fdarg, NULL };
	const char *exe = g.exe ? g.exe : "/proc/self/exe";
	/* the binary by its path (a build put in its place since answers a
	 * HELLO that differs, and is refused); Ctrl-C at the terminal reaches
	 * the whole process group: the front end decides what becomes of a
	 * compile */
	child_opts o;
	child_opts_init(&o);
	o.path = exe;
	o.argv = argv;
	o.keep[0] = sv[1];
	o.sigint = CHILD_SIGINT_IGNORE;
	o.die_with_parent = 1;
	pid_t pid = child_start(&o);
	if (pid < 0) {
		int e = errno;
		close(sv[0]);
		close(sv[1]);
		return fail(err, "cannot start the compiler process '%s': %s", exe, strerror(e));
	}
	close(sv[1]);
	*child = pid;
	*sock = sv[0];
	return 0;
}

/* The next child: the spare, warmed up already, else a new one. */
static int spawn(char **err)
{
	pid_t pid = g.spare_pid;
	int fd = g.spare_fd;
	g.spare_pid = 0;
	g.spare_fd = -1;
	if (pid <= 0 && spawn_child(&pid, &fd, err) != 0)
		return -1;
	g.pid = pid;
	g.fd = fd;
	g.hello_read = 0;
	g.asked = 0;
	sb_free(&g.pending);
	return 0;
}

/* Kills and reaps the child; 1 with *status when it had ended by itself. */
static int end_child(int *status, int kill_it)
{
	int st = 0, got = 0;
	if (g.fd >= 0)
		close(g.fd);
	g.fd = -1;
	if (g.pid > 0) {
		if (kill_it) {
			got = waitpid(g.pid, &st, WNOHANG) == g.pid;
			if (!got)
				kill(g.pid, SIGKILL);
		}
		while (!got && waitpid(g.pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	g.pid = 0;
	sb_free(&g.pending);
	if (status)
		*status = st;
	return got;
}

void ccs_prestart(void)
{
	if (!g.on || g.pid > 0)
		return;
	char *err = NULL;
	if (spawn(&err) != 0)
		free(err); /* said again by the compile that needs it */
}

/* A spare child, warming NVRTC up, where there is none. */
static void spare_start(void)
{
	char *err = NULL;
	if (!g.on || g.spare_pid > 0)
		return;
	if (spawn_child(&g.spare_pid, &g.spare_fd, &err) != 0) {
		free(err); /* a job stopped then waits for a new child's warm-up */
		g.spare_pid = 0;
		g.spare_fd = -1;
	}
}

void ccs_prestart_spare(void)
{
	ccs_prestart();
	spare_start();
}

/* The spare, never asked for anything: it goes at once. */
static void spare_end(void)
{
	if (g.spare_pid <= 0)
		return;
	close(g.spare_fd);
	kill(g.spare_pid, SIGKILL);
	while (waitpid(g.spare_pid, NULL, 0) < 0 && errno == EINTR)
		;
	g.spare_pid = 0;
	g.spare_fd = -1;
}

void ccs_stop(void)
{
	spare_end();
	free(g.exe);
	g.exe = NULL;
	if (g.pid <= 0)
		return;
	/* end of input: it leaves by itself. Waited for (a few ms; its own
	 * checks at exit, under a sanitizer, are not cut short by our end),
	 * killed after 5 s. One never asked for anything (every compile came
	 * from the cache) may still be warming NVRTC up, ~200 ms before it
	 * would read the end: it goes at once. */
	close(g.fd);
	g.fd = -1;
	if (!g.asked || g.pending.len > 0) /* a compile in the background: nobody waits for it */
		kill(g.pid, SIGKILL);
	sb_free(&g.pending);
	uint64_t end = now_ns() + 5000000000ull;
	int st;
	for (;;) {
		pid_t r = waitpid(g.pid, &st, WNOHANG);
		if (r == g.pid || (r < 0 && errno != EINTR))
			break;
		if (now_ns() >= end) {
			kill(g.pid, SIGKILL);
			waitpid(g.pid, &st, 0);
			break;
		}
		struct timespec ts = { 0, 2000000L };
		nanosleep(&ts, NULL);
	}
	g.pid = 0;
}

/* "was killed by SIGSEGV" or "exited with status 3". */
static void how_ended(int st, char *buf, size_t n)
{
	if (WIFSIGNALED(st)) {
		const char *d = strsignal(WTERMSIG(st));
		snprintf(buf, n, "was killed by signal %d%s%s%s", WTERMSIG(st), d ? " (" : "", d ? d : "", d ? ")" : "");
	} else if (WIFEXITED(st)) {
		snprintf(buf, n, "exited with status %d", WEXITSTATUS(st));
	} else {
		snprintf(buf, n, "ended");
	}
}

/* The child ended or sent what cannot be read: reaped, one line. */
static int child_lost(const char *who, char **err)
{
	int st = 0;
	int had_ended = end_child(&st, 1);
	char how[160];
	if (had_ended)
		how_ended(st, how, sizeof how);
	else
		snprintf(how, sizeof how, "stopped answering");
	return fail(err, "the compiler process %s while compiling '%s' " CCS_KEPT, how, who);
}

/* Reads the HELLO of a new child. */
static int read_hello(const char *who, uint64_t deadline, char **err)
{
	uint32_t type = 0;
	char *p = NULL;
	size_t len = 0;
	int r = recv_msg(g.fd, &type, &p, &len, deadline, g.interrupt);
	if (r < 0 && (errno == EINTR || errno == ETIMEDOUT))
		return -2;
	if (r != 0)
		return child_lost(who, err);
	sbuf want = {0};
	hello_make(&want);
	int same = type == CCS_HELLO && len == want.len && memcmp(p, want.s, len) == 0;
	sb_free(&want);
	free(p);
	if (!same) {
		end_child(NULL, 1);
		return fail(err, "the compiler process is from another build of cuplay: restart cuplay");
	}
	g.hello_read = 1;
	return 0;
}

int ccs_run(const nvrtc_job *job, nvrtc_out *out, char **err)
{
	if (!g.on)
		return nvrtc_run(job, out, err);
	memset(out, 0, sizeof *out);
	const char *who = job->path ? job->path : job->name;
	if (g.pid > 0) {
		/* one that died while idle is replaced quietly */
		int st;
		if (waitpid(g.pid, &st, WNOHANG) == g.pid) {
			g.pid = 0;
			end_child(NULL, 0);
		}
	}
	if (g.pid <= 0 && spawn(err) != 0)
		return -1;
	uint64_t t0 = now_ns();
	uint64_t deadline = g.limit_s > 0 ? t0 + (uint64_t)(g.limit_s * 1e9) : 0;
	int r = 0;
	sbuf b = {0};
	job_write(&b, job);
	/* the same job sent in the background: its answer is this one's */
	int sent = g.pending.len == b.len && memcmp(g.pending.s, b.s, b.len) == 0;
	if (!sent && g.pending.len > 0) { /* another: superseded, with its process */
		end_child(NULL, 1);
		if (spawn(err) != 0) {
			sb_free(&b);
			return -1;
		}
	}
	sb_free(&g.pending);
	if (!g.hello_read)
		r = read_hello(who, deadline, err);
	if (r == 0 && !sent) {
		g.asked = 1;
		if (send_msg(g.fd, CCS_JOB, b.s, b.len) != 0)
			r = child_lost(who, err);
	}
	sb_free(&b);
	uint32_t type = 0;
	char *p = NULL;
	size_t len = 0;
	if (r == 0) {
		int rr = recv_msg(g.fd, &type, &p, &len, deadline, g.interrupt);
		if (rr < 0 && (errno == EINTR || errno == ETIMEDOUT))
			r = -2;
		else if (rr != 0 || type != CCS_ANSWER)
			r = child_lost(who, err);
	}
	if (r == -2) {
		/* Ctrl-C or the limit: the compile is abandoned with its process,
		 * and a new one starts warming up for the next */
		int interrupted = g.interrupt && *g.interrupt;
		end_child(NULL, 1);
		ccs_prestart();
		if (interrupted)
			return fail(err, "compile of '%s' interrupted: the compiler was stopped " CCS_KEPT, who);
		return fail(err, "compile of '%s' took longer than %g s: the compiler was stopped "
		            "(settings kept; 'timeout compile SECONDS' sets the limit)", who, g.limit_s);
	}
	if (r != 0) {
		free(p);
		return -1;
	}
	unpack in;
	unpack_init(&in, p, len);
	r = answer_read(&in, out, err);
	free(p);
	if (r != 0 && in.bad)
		end_child(NULL, 1); /* its answers cannot be trusted */
	return r;
}

int ccs_submit(const nvrtc_job *job)
{
	if (!g.on)
		return -1;
	sbuf b = {0};
	job_write(&b, job);
	if (g.pending.len == b.len && memcmp(g.pending.s, b.s, b.len) == 0) {
		sb_free(&b);
		return 0; /* under way already */
	}
	if (g.pending.len > 0)
		ccs_cancel();
	if (g.pid > 0) {
		int st;
		if (waitpid(g.pid, &st, WNOHANG) == g.pid) {
			g.pid = 0;
			end_child(NULL, 0);
		}
	}
	char *err = NULL;
	if (g.pid <= 0 && spawn(&err) != 0) {
		free(err);
		sb_free(&b);
		return -1;
	}
	/* sent before the HELLO is read: the child reads it after its warm-up,
	 * and the HELLO is checked when the answer is waited for */
	g.asked = 1;
	if (send_msg(g.fd, CCS_JOB, b.s, b.len) != 0) {
		end_child(NULL, 1);
		sb_free(&b);
		return -1;
	}
	g.pending = b;
	/* a job in the background is stopped when another is wanted first:
	 * the child for that one warms NVRTC up now, not then (~200 ms) */
	spare_start();
	return 0;
}

int ccs_pending(void)
{
	return g.pending.len > 0;
}

int ccs_cancel(void)
{
	if (g.pending.len == 0)
		return 0;
	end_child(NULL, 1);
	ccs_prestart();
	return 1;
}

int ccs_collect(nvrtc_out *out, char **err)
{
	memset(out, 0, sizeof *out);
	if (g.pending.len == 0 || g.fd < 0)
		return 0;
	struct pollfd pf = { g.fd, POLLIN, 0 };
	if (poll(&pf, 1, 0) <= 0)
		return 0;
	uint64_t deadline = now_ns() + 1000000000ull;
	if (!g.hello_read && read_hello("a background compile", deadline, err) != 0)
		return -1;
	if (poll(&pf, 1, 0) <= 0)
		return 0;
	uint32_t type = 0;
	char *p = NULL;
	size_t len = 0;
	if (recv_msg(g.fd, &type, &p, &len, deadline, NULL) != 0 || type != CCS_ANSWER) {
		free(p);
		end_child(NULL, 1);
		ccs_prestart();
		return fail(err, "the compiler process stopped answering");
	}
	sb_free(&g.pending);
	unpack in;
	unpack_init(&in, p, len);
	int r = answer_read(&in, out, err);
	free(p);
	if (r != 0 && in.bad)
		end_child(NULL, 1);
	return r == 0 ? 1 : -1;
}

/* ---- several at once ---------------------------------------------------- */

/* A compiler process of a batch: the server itself (slot 0) or one more. */
typedef struct slot {
	pid_t pid;
	int fd, hello, job; /* job: the index compiling, -1 idle */
	uint64_t started;
} slot;

static void slot_end(slot *sl, int main_one)
{
	if (main_one) {
		end_child(NULL, 1);
		ccs_prestart();
	} else if (sl->pid > 0) {
		close(sl->fd);
		kill(sl->pid, SIGKILL);
		while (waitpid(sl->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	sl->pid = 0;
	sl->fd = -1;
	sl->job = -1;
}

/* The message waiting on slot i: a HELLO checked, or job's answer into
 * outs. 0, or -1 (the slot is lost: its job failed). */
static int slot_read(slot *sl, const nvrtc_job *const *jobs, nvrtc_out *outs, int *rc, char **errs)
{
	uint32_t type = 0;
	char *p = NULL;
	size_t len = 0;
	int j = sl->job;
	const char *who = j >= 0 && jobs[j]->path ? jobs[j]->path : "a kernel file";
	if (recv_msg(sl->fd, &type, &p, &len, now_ns() + 10000000000ull, NULL) != 0) {
		if (j >= 0)
			rc[j] = fail(&errs[j], "the compiler process stopped answering while compiling '%s' " CCS_KEPT, who);
		return -1;
	}
	if (type == CCS_HELLO && !sl->hello) {
		sbuf want = {0};
		hello_make(&want);
		sl->hello = len == want.len && memcmp(p, want.s, len) == 0;
		sb_free(&want);
		free(p);
		if (!sl->hello && j >= 0)
			rc[j] = fail(&errs[j], "the compiler process is from another build of cuplay: restart cuplay");
		return sl->hello ? 0 : -1;
	}
	if (type != CCS_ANSWER || j < 0) {
		free(p);
		return -1;
	}
	unpack in;
	unpack_init(&in, p, len);
	rc[j] = answer_read(&in, &outs[j], &errs[j]);
	free(p);
	sl->job = -1;
	return rc[j] != 0 && in.bad ? -1 : 0;
}

/* Sends job j to slot sl (starting its process when it has none). */
static int slot_send(slot *sl, int main_one, const nvrtc_job *job, int j, char **err)
{
	if (sl->pid <= 0) {
		if (main_one) {
			if (g.pid <= 0 && spawn(err) != 0) /* one warming up already (ccs_prestart) will do */
				return -1;
			sl->pid = g.pid;
			sl->fd = g.fd;
		} else if (spawn_child(&sl->pid, &sl->fd, err) != 0) {
			return -1;
		}
		sl->hello = main_one ? g.hello_read : 0;
	}
	sbuf b = {0};
	job_write(&b, job);
	int r = send_msg(sl->fd, CCS_JOB, b.s, b.len);
	sb_free(&b);
	if (r != 0)
		return fail(err, "cannot send a compile to the compiler process " CCS_KEPT);
	if (main_one)
		g.asked = 1;
	sl->job = j;
	sl->started = now_ns();
	return 0;
}

int ccs_run_batch(const nvrtc_job *const *jobs, int n, int width, nvrtc_out *outs, int *rc, char **errs)
{
	for (int j = 0; j < n; j++) {
		memset(&outs[j], 0, sizeof outs[j]);
		rc[j] = -1;
		errs[j] = NULL;
	}
	if (width > n)
		width = n;
	if (!g.on || width <= 1) {
		for (int j = 0; j < n; j++)
			if (!(g.interrupt && *g.interrupt))
				rc[j] = ccs_run(jobs[j], &outs[j], &errs[j]);
		return g.interrupt && *g.interrupt ? -1 : 0;
	}
	if (g.pending.len > 0)
		ccs_cancel();
	if (g.pid > 0 && waitpid(g.pid, NULL, WNOHANG) == g.pid) {
		g.pid = 0;
		end_child(NULL, 0);
	}
	slot *sl = xcalloc((size_t)width, sizeof *sl);
	for (int i = 0; i < width; i++)
		sl[i] = (slot){ i == 0 ? g.pid : 0, i == 0 ? g.fd : -1, i == 0 ? g.hello_read : 0, -1, 0 };
	int next = 0, busy = 0, stopped = 0;
	for (;;) {
		for (int i = 0; i < width && next < n; i++)
			if (sl[i].job < 0) {
				int j = next++;
				if (slot_send(&sl[i], i == 0, jobs[j], j, &errs[j]) != 0)
					slot_end(&sl[i], i == 0);
				else
					busy++;
			}
		if (busy == 0)
			break;
		if (g.interrupt && *g.interrupt) {
			stopped = 1;
			break;
		}
		struct pollfd pf[64];
		int np = width < 64 ? width : 64;
		for (int i = 0; i < np; i++)
			pf[i] = (struct pollfd){ sl[i].job >= 0 ? sl[i].fd : -1, POLLIN, 0 };
		if (poll(pf, (nfds_t)np, 50) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < np; i++) {
			int j = sl[i].job;
			int late = j >= 0 && g.limit_s > 0 && now_ns() - sl[i].started > (uint64_t)(g.limit_s * 1e9);
			if (late) {
				rc[j] = fail(&errs[j], "compile of '%s' took longer than %g s: the compiler was stopped "
				             "(settings kept; 'timeout compile SECONDS' sets the limit)",
				             jobs[j]->path ? jobs[j]->path : jobs[j]->name, g.limit_s);
				slot_end(&sl[i], i == 0);
				busy--;
			} else if (j >= 0 && (pf[i].revents & (POLLIN | POLLHUP | POLLERR))) {
				if (slot_read(&sl[i], jobs, outs, rc, errs) != 0) {
					slot_end(&sl[i], i == 0);
					busy--;
				} else if (sl[i].job < 0) {
					busy--;
				}
			}
		}
	}
	for (int i = 0; i < width; i++) {
		if (i == 0 && sl[0].pid > 0) {
			if (stopped && sl[0].job >= 0)
				slot_end(&sl[0], 1);
			else
				g.hello_read = sl[0].hello;
		} else if (i > 0) {
			slot_end(&sl[i], 0);
		}
	}
	free(sl);
	for (int j = 0; j < n && stopped; j++)
		if (rc[j] != 0 && !errs[j])
			errs[j] = xstrdup("interrupted");
	return stopped ? -1 : 0;
}
