/* runner_slurm.c: one verification as a Slurm job, for a class larger
 * than the board's host.
 *
 * srun, not sbatch: srun carries the submission to the job on its stdin
 * and the verify line back on its stdout, so neither the board nor the
 * node needs a file system shared with the other (only cuplay and the
 * exercises installed at the same path on every node); the job belongs
 * to the board's queue thread that waits for it (srun is a child that dies
 * with the board, and Slurm ends a step whose srun is gone), so nothing is
 * left to poll or clean up; and Slurm still queues and places each job as
 * it would a batch job, srun waiting in the queue until a node is free.
 * sbatch would need a shared directory for the source and the result, a
 * poll of squeue for the end, and jobs of its own to cancel after a
 * restart. */
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "json.h"
#include "util.h"

#define SLURM_OUT_MAX (1 << 20) /* the verify line and what precedes it on stdout */
#define SLURM_ERR_KEEP 4096     /* the end of srun's stderr, for the error line */
#define SLURM_SLACK_S 60        /* the job's limit beyond the exercise's: start-up, the compile */
#define SLURM_QUEUE_S 3600      /* how long srun may wait in the queue before it is stopped */
#define NODE_MARK "cuplay-slurm-node "

/* The first executable NAME in $PATH (malloc'd), or NULL. */
static char *find_in_path(const char *name)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		char *cand = n ? xasprintf("%.*s/%s", (int)n, path, name) : xasprintf("./%s", name);
		if (access(cand, X_OK) == 0)
			return cand;
		free(cand);
		path += n;
		if (*path == ':')
			path++;
	}
	return NULL;
}

typedef struct argl {
	char **v;
	int n, cap;
} argl;

static void arg_add(argl *a, char *s) /* takes s */
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 32;
		a->v = xrealloc(a->v, (size_t)a->cap * sizeof *a->v);
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static void args_free(argl *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}

/* srun's command line: the board's own srun arguments (split at blanks),
 * the job's resources, then a shell on the node that names the node on
 * stderr and runs cuplay --verify on the source from stdin. */
static void build_args(argl *a, char *srun, const struct run_req *r, const char *srun_args)
{
	arg_add(a, srun);
	arg_add(a, xstrdup("--ntasks=1"));
	arg_add(a, xstrdup("--nodes=1"));
	arg_add(a, xstrdup("--job-name=cuplay-verify"));
	arg_add(a, xstrdup("--chdir=/tmp"));
	arg_add(a, xstrdup("--quiet"));
	if (r->gpu >= 0 && !r->compile_only)
		arg_add(a, xstrdup("--gres=gpu:1"));
	int t = (r->time_limit_s > 0 ? r->time_limit_s : 60) + SLURM_SLACK_S;
	arg_add(a, xasprintf("--time=%d:%02d", t / 60, t % 60));
	if (r->mem_limit_mb > 0)
		arg_add(a, xasprintf("--mem=%ldM", r->mem_limit_mb));
	for (const char *s = srun_args ? srun_args : ""; *s;) {
		s += strspn(s, " \t\n");
		size_t n = strcspn(s, " \t\n");
		if (n)
			arg_add(a, xstrndup(s, n));
		s += n;
	}
	arg_add(a, xstrdup("/bin/sh"));
	arg_add(a, xstrdup("-c"));
	arg_add(a, xstrdup("printf '" NODE_MARK "%s\\n' \"${SLURMD_NODENAME:-$(hostname)}\" >&2; exec \"$@\""));
	arg_add(a, xstrdup("sh"));
	arg_add(a, xstrdup(r->cuplay));
	arg_add(a, xstrdup("--verify"));
	arg_add(a, xstrdup(r->exercise_path));
	arg_add(a, xstrdup("-"));
	arg_add(a, xstrdup("--seed"));
	arg_add(a, xasprintf("%llu", r->seed));
	if (r->compile_only)
		arg_add(a, xstrdup("--compile-only"));
}

typedef struct pumped {
	sbuf out, err;
	int timed_out;
} pumped;

/* Appends what fd has to b (stdout whole up to a bound; stderr its end):
 * 0 at end of file, 1 while open. */
static int drain(int fd, sbuf *b, int keep_end)
{
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof buf);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (n == 0)
		return 0;
	if (keep_end && b->len + (size_t)n > SLURM_ERR_KEEP) {
		char *s = sb_steal(b);
		size_t len = strlen(s), cut = len > SLURM_ERR_KEEP / 2 ? len - SLURM_ERR_KEEP / 2 : 0;
		sb_puts(b, s + cut);
		free(s);
	}
	if (keep_end || b->len < SLURM_OUT_MAX)
		sb_add(b, buf, (size_t)n);
	return 1;
}

/* Writes the source to srun's stdin while reading its stdout and stderr,
 * until both are closed or the deadline passes. */
static void pump(int in, int out, int err, const struct run_req *r, uint64_t deadline, pumped *p)
{
	size_t sent = 0;
	if (r->source_len == 0) {
		(void)shutdown(in, SHUT_WR);
		in = -1;
	}
	while (out >= 0 || err >= 0) {
		struct pollfd f[3] = { { in, POLLOUT, 0 }, { out, POLLIN, 0 }, { err, POLLIN, 0 } };
		uint64_t now = now_ns();
		if (now >= deadline) {
			p->timed_out = 1;
			return;
		}
		uint64_t wait_ms = (deadline - now) / 1000000 + 1;
		int n = poll(f, 3, wait_ms > 1000 ? 1000 : (int)wait_ms);
		if (n < 0 && errno != EINTR)
			return;
		if (n <= 0)
			continue;
		if (in >= 0 && (f[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t w = send(in, r->source + sent, r->source_len - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (w > 0)
				sent += (size_t)w;
			if ((w < 0 && errno != EAGAIN && errno != EINTR) || sent == r->source_len) {
				(void)shutdown(in, SHUT_WR);
				in = -1;
			}
		}
		if (out >= 0 && (f[1].revents & (POLLIN | POLLHUP | POLLERR)) && !drain(out, &p->out, 0))
			out = -1;
		if (err >= 0 && (f[2].revents & (POLLIN | POLLHUP | POLLERR)) && !drain(err, &p->err, 1))
			err = -1;
	}
}

/* The last line of stdout that is a JSON object (malloc'd), or NULL. */
static char *last_json_line(const char *s)
{
	const char *best = NULL;
	size_t best_n = 0;
	for (const char *l = s; *l;) {
		size_t n = strcspn(l, "\n");
		size_t m = n;
		while (m && (l[m - 1] == '\r' || l[m - 1] == ' '))
			m--;
		if (m >= 2 && l[0] == '{' && l[m - 1] == '}') {
			best = l;
			best_n = m;
		}
		l += n;
		if (*l)
			l++;
	}
	return best ? xstrndup(best, best_n) : NULL;
}

/* The node's name from the marker line on stderr (malloc'd), or NULL. */
static char *node_name(const char *err)
{
	const char *m = strstr(err, NODE_MARK);
	if (!m)
		return NULL;
	m += strlen(NODE_MARK);
	size_t n = strcspn(m, "\r\n");
	return n ? xstrndup(m, n) : NULL;
}

/* The verify line with "host" set to the node's name where it has none
 * (absent or empty). */
static char *with_host(char *json, const char *node)
{
	const char *h = strstr(json, "\"host\":");
	int has = h && (h[-1] == '{' || h[-1] == ',') && strncmp(h, "\"host\":\"\"", 9) != 0 &&
	          strncmp(h, "\"host\":null", 11) != 0;
	if (has || !node)
		return json;
	sbuf b = { 0 };
	sb_puts(&b, "{\"host\":");
	json_str(&b, node);
	if (json[1] != '}')
		sb_putc(&b, ',');
	sb_puts(&b, json + 1);
	free(json);
	return sb_steal(&b);
}

/* The last non-empty line of srun's stderr other than the node marker, for
 * an error line; "" when none. */
static void last_err_line(const char *err, char *line, size_t cap)
{
	line[0] = 0;
	for (const char *l = err; *l;) {
		size_t n = strcspn(l, "\n");
		if (n && strncmp(l, NODE_MARK, strlen(NODE_MARK)) != 0)
			snprintf(line, cap, "%.*s", (int)(n > 200 ? 200 : n), l);
		l += n;
		if (*l)
			l++;
	}
}

/* Waits for srun; after a timeout, asks it to end the job (SIGTERM, which
 * srun passes on and then cancels), then SIGKILL after 5 s. */
static int reap(pid_t pid, int stop)
{
	int st = 0;
	if (stop)
		(void)kill(pid, SIGTERM);
	for (int i = 0; stop && i < 50; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
		usleep(100000);
	}
	if (stop)
		(void)kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

/* Makes the job's verdict out of what srun gave: the JSON line (with the
 * node as its host), or one line in o->err. */
static int conclude(struct run_out *o, pumped *p, int st, int limit_s)
{
	char *out = sb_steal(&p->out), *err = sb_steal(&p->err);
	char *json = last_json_line(out), *node = node_name(err), line[180];
	last_err_line(err, line, sizeof line);
	int r = -1;
	if (p->timed_out)
		snprintf(o->err, sizeof o->err, "slurm: the job did not end within %d s of waiting; stopped", limit_s);
	else if (json) {
		o->json = with_host(json, node);
		json = NULL;
		r = 0;
	} else if (strstr(err, "DUE TO TIME LIMIT") || strstr(err, "TimeLimit"))
		snprintf(o->err, sizeof o->err, "slurm: the job was stopped at its time limit");
	else if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		snprintf(o->err, sizeof o->err, "slurm: the job gave no result line%s%s", *line ? ": " : "", line);
	else
		snprintf(o->err, sizeof o->err, "slurm: the job failed (%s %d)%s%s",
		         WIFEXITED(st) ? "status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
		         *line ? ": " : "", line);
	free(json);
	free(node);
	free(out);
	free(err);
	return r;
}

static void close3(int a, int b, int c)
{
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
	if (c >= 0)
		close(c);
}

int runner_slurm(const struct run_req *r, struct run_out *o, const char *srun_args)
{
	o->json = NULL;
	o->err[0] = 0;
	char *srun = find_in_path("srun");
	if (!srun) {
		snprintf(o->err, sizeof o->err, "slurm: no 'srun' in PATH (install Slurm's client or run without --slurm)");
		return -1;
	}
	argl a = { 0 };
	build_args(&a, srun, r, srun_args);
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) < 0 || pipe2(out, O_CLOEXEC) < 0 ||
	    pipe2(err, O_CLOEXEC) < 0) {
		snprintf(o->err, sizeof o->err, "slurm: cannot make pipes: %s", strerror(errno));
		close3(in[0], in[1], out[0]);
		close3(out[1], err[0], err[1]);
		args_free(&a);
		return -1;
	}
	child_opts co;
	child_opts_init(&co);
	co.path = a.v[0];
	co.argv = a.v;
	co.stdio[0] = in[1];
	co.stdio[1] = out[1];
	co.stdio[2] = err[1];
	co.die_with_parent = 1;
	pid_t pid = child_start(&co);
	int e = errno;
	close3(in[1], out[1], err[1]);
	if (pid < 0) {
		snprintf(o->err, sizeof o->err, "slurm: cannot start '%s': %s", a.v[0], strerror(e));
		close3(in[0], out[0], err[0]);
		args_free(&a);
		return -1;
	}
	args_free(&a);
	int wait_s = (r->time_limit_s > 0 ? r->time_limit_s : 60) + SLURM_SLACK_S + SLURM_QUEUE_S;
	pumped p = { 0 };
	pump(in[0], out[0], err[0], r, now_ns() + (uint64_t)wait_s * 1000000000ull, &p);
	close3(in[0], out[0], err[0]);
	int st = reap(pid, p.timed_out);
	return conclude(o, &p, st, wait_s);
}
