/* runner_local.c: a verification as a child on this host: `PROG --verify
 * EXERCISE - --seed N (--gpu G | --compile-only)`, the source on its stdin
 * (a file in a private temporary directory that is also its working
 * directory), its stdout read for the one result line until the wall-clock
 * limit, then its whole process group (the worker it starts included)
 * killed. RLIMIT_CPU bounds its CPU time; RLIMIT_AS bounds a compile-only
 * run's memory (a CUDA context reserves far more address space than it
 * uses, so a run on a GPU is bounded by time alone). */
#include "runner.h"
#include "child.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define OUT_MAX (1u << 20) /* what a verification may print on stdout */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st; (void)flag; (void)f;
	return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

/* The private directory with the source in it: its path, or NULL. */
static char *make_dir(const struct run_req *rq, char *err, size_t n)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/cuplay-verify-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		snprintf(err, n, "cannot make a directory in '%s': %s", tmp && *tmp ? tmp : "/tmp", strerror(errno));
		free(dir);
		return NULL;
	}
	char *src = xasprintf("%s/source.cu", dir);
	int fd = open(src, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	size_t done = 0;
	while (fd >= 0 && done < rq->source_len) {
		ssize_t w = write(fd, rq->source + done, rq->source_len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	int ok = fd >= 0 && done == rq->source_len && close(fd) == 0;
	if (!ok) {
		snprintf(err, n, "cannot write '%s': %s", src, strerror(errno));
		nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
		free(dir);
		dir = NULL;
	}
	free(src);
	return dir;
}

/* Reads fd until EOF or the deadline: 0, 1 at the deadline. */
static int read_out(int fd, sbuf *out, uint64_t deadline)
{
	char buf[4096];
	for (;;) {
		int ms = -1;
		if (deadline) {
			uint64_t now = now_ns();
			if (now >= deadline)
				return 1;
			ms = (int)((deadline - now) / 1000000u) + 1;
		}
		struct pollfd p = { fd, POLLIN, 0 };
		int r = poll(&p, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			continue; /* the deadline, checked above */
		ssize_t k = read(fd, buf, sizeof buf);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return 0;
		if (out->len + (size_t)k <= OUT_MAX)
			sb_add(out, buf, (size_t)k);
	}
}

/* The first line of text that starts with '{', or NULL. */
static char *result_line(const char *text)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (*p == '{')
			return xstrndup(p, strcspn(p, "\n"));
	}
	return NULL;
}

/* The last line the child wrote on stderr, for a message. */
static void last_err_line(const char *dir, char *out, size_t n)
{
	char *path = xasprintf("%s/stderr.txt", dir), *text = NULL;
	size_t len = 0;
	out[0] = 0;
	if (read_file_max(path, &text, &len, 1u << 20) == 0) {
		while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
			text[--len] = 0;
		char *nl = strrchr(text, '\n');
		snprintf(out, n, "%s", nl ? nl + 1 : text);
	}
	free(text);
	free(path);
}

extern char **environ;

/* This process's environment with the board's folder first on
 * CUPLAY_PATH: the verification runs in a directory of its own, and finds
 * an exercise's starting file where the board was started (its
 * kernels_src/), as `use` would there. NULL-terminated, malloc'd (the
 * strings but the one made are this process's). */
static char **child_env(char **made)
{
	int n = 0;
	while (environ[n])
		n++;
	char **env = xcalloc((size_t)n + 2, sizeof *env);
	char cwd[4096];
	const char *old = getenv("CUPLAY_PATH");
	if (!getcwd(cwd, sizeof cwd))
		snprintf(cwd, sizeof cwd, ".");
	*made = old && *old ? xasprintf("CUPLAY_PATH=%s:%s", cwd, old) : xasprintf("CUPLAY_PATH=%s", cwd);
	int k = 0;
	env[k++] = *made;
	for (int i = 0; i < n; i++)
		if (strncmp(environ[i], "CUPLAY_PATH=", 12) != 0)
			env[k++] = environ[i];
	env[k] = NULL;
	return env;
}

static pid_t start(const struct run_req *rq, const char *dir, int out_w, char *err, size_t n)
{
	char *src = xasprintf("%s/source.cu", dir), *errf = xasprintf("%s/stderr.txt", dir);
	int in = open(src, O_RDONLY | O_CLOEXEC);
	int efd = open(errf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	char seed[32], gpu[16];
	snprintf(seed, sizeof seed, "%llu", rq->seed);
	snprintf(gpu, sizeof gpu, "%d", rq->gpu);
	char *argv[] = { (char *)rq->cuplay, "--verify", (char *)rq->exercise_path, "-", "--seed", seed,
	                 rq->compile_only || rq->gpu < 0 ? "--compile-only" : "--gpu",
	                 rq->compile_only || rq->gpu < 0 ? NULL : gpu, NULL };
	char *made = NULL, **env = child_env(&made);
	child_opts o;
	child_opts_init(&o);
	o.path = rq->cuplay;
	o.argv = argv;
	o.envp = env;
	o.stdio[0] = in;
	o.stdio[1] = out_w;
	o.stdio[2] = efd;
	o.die_with_parent = 1;
	o.new_group = 1;
	o.cwd = dir;
	o.cpu_s = rq->time_limit_s > 0 ? rq->time_limit_s + 10 : 0;
	o.as_mb = rq->compile_only || rq->gpu < 0 ? rq->mem_limit_mb : 0;
	pid_t pid = in < 0 || efd < 0 ? -1 : child_start(&o);
	if (pid < 0)
		snprintf(err, n, "cannot start '%s': %s", rq->cuplay, strerror(errno));
	if (in >= 0)
		close(in);
	if (efd >= 0)
		close(efd);
	free(src);
	free(errf);
	free(made);
	free(env);
	return pid;
}

int runner_local(const struct run_req *rq, struct run_out *out)
{
	out->json = NULL;
	out->err[0] = 0;
	char *dir = make_dir(rq, out->err, sizeof out->err);
	if (!dir)
		return -1;
	int p[2] = { -1, -1 };
	pid_t pid = -1;
	if (pipe2(p, O_CLOEXEC) != 0)
		snprintf(out->err, sizeof out->err, "cannot make a pipe: %s", strerror(errno));
	else
		pid = start(rq, dir, p[1], out->err, sizeof out->err);
	if (p[1] >= 0)
		close(p[1]);
	int rc = -1;
	if (pid > 0) {
		sbuf text = {0};
		sb_puts(&text, "");
		uint64_t deadline = rq->time_limit_s > 0 ? now_ns() + (uint64_t)rq->time_limit_s * 1000000000u : 0;
		int late = read_out(p[0], &text, deadline);
		if (late) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
		}
		int st = 0;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		kill(-pid, SIGKILL); /* what it left running in its group */
		out->json = late ? NULL : result_line(text.s);
		if (late) {
			sbuf j = {0};
			sb_printf(&j, "{\"status\":\"timeout\",\"reason\":\"stopped at its limit of %d s\"}", rq->time_limit_s);
			out->json = sb_steal(&j);
		}
		if (out->json) {
			rc = 0;
		} else {
			char line[200];
			last_err_line(dir, line, sizeof line);
			if (WIFSIGNALED(st))
				snprintf(out->err, sizeof out->err, "ended by signal %d%s%s", WTERMSIG(st), *line ? ": " : "", line);
			else
				snprintf(out->err, sizeof out->err, "printed no result (exit %d)%s%s", WEXITSTATUS(st),
				         *line ? ": " : "", line);
		}
		sb_free(&text);
	}
	if (p[0] >= 0)
		close(p[0]);
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	free(dir);
	return rc;
}
