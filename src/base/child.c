/* child.c: a child process: made before the fork, async-signal-safe after. */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

extern char **environ;

void child_opts_init(child_opts *o)
{
	memset(o, 0, sizeof *o);
	o->stdio[0] = o->stdio[1] = o->stdio[2] = -1;
	o->keep[0] = o->keep[1] = -1;
	o->sigint = CHILD_SIGINT_DEFAULT;
}

/* What the child needs, all made before the fork. */
typedef struct child_plan {
	const child_opts *o;
	char *const *envp;
	int kept[3], nkept; /* descriptors above 2 that stay open, ascending */
	int report;         /* the write end of the exec-failure pipe */
	long max_fd;        /* for closing one by one without close_range */
	pid_t parent;
	sigset_t mask;      /* the child's signal mask */
} child_plan;

/* In the child: closes lo..hi (lo >= 3). */
static void close_span(long lo, long hi, long max_fd)
{
	if (lo > hi)
		return;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)lo, hi >= (long)~0u ? ~0u : (unsigned)hi, 0u) == 0)
		return;
#endif
	for (long fd = lo; fd <= hi && fd < max_fd; fd++)
		close((int)fd);
}

/* In the child: says errno to the parent, ends. */
static void child_fail(const child_plan *c)
{
	int e = errno;
	ssize_t n = write(c->report, &e, sizeof e);
	(void)n;
	_exit(127);
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void child_run(const child_plan *c)
{
	const child_opts *o = c->o;
#ifdef __linux__
	if (o->die_with_parent) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != c->parent) /* it ended before the line above */
			_exit(127);
	}
#endif
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = o->sigint == CHILD_SIGINT_IGNORE ? SIG_IGN : SIG_DFL;
	sigaction(SIGINT, &sa, NULL);
	for (int i = 0; i < 3; i++)
		if (o->stdio[i] >= 0 && o->stdio[i] != i && dup2(o->stdio[i], i) < 0)
			child_fail(c);
	for (int i = 0; i < 2; i++)
		if (o->keep[i] >= 0 && fcntl(o->keep[i], F_SETFD, 0) != 0)
			child_fail(c);
	long lo = 3;
	for (int i = 0; i < c->nkept; i++) {
		close_span(lo, c->kept[i] - 1, c->max_fd);
		lo = c->kept[i] + 1;
	}
	close_span(lo, (long)~0u, c->max_fd);
	if (o->new_group && setpgid(0, 0) != 0)
		child_fail(c);
	if (o->cwd && chdir(o->cwd) != 0)
		child_fail(c);
	if (o->cpu_s > 0) {
		struct rlimit r = { (rlim_t)o->cpu_s, (rlim_t)o->cpu_s + 1 };
		if (setrlimit(RLIMIT_CPU, &r) != 0)
			child_fail(c);
	}
	if (o->as_mb > 0) {
		struct rlimit r = { (rlim_t)o->as_mb << 20, (rlim_t)o->as_mb << 20 };
		if (setrlimit(RLIMIT_AS, &r) != 0)
			child_fail(c);
	}
	pthread_sigmask(SIG_SETMASK, &c->mask, NULL);
	execve(o->path, o->argv, c->envp);
	child_fail(c);
}

static void add_kept(child_plan *c, int fd)
{
	if (fd < 3)
		return;
	int i = c->nkept;
	for (int k = 0; k < c->nkept; k++)
		if (c->kept[k] == fd)
			return;
	while (i > 0 && c->kept[i - 1] > fd) {
		c->kept[i] = c->kept[i - 1];
		i--;
	}
	c->kept[i] = fd;
	c->nkept++;
}

pid_t child_start(const child_opts *o)
{
	int rep[2];
	if (pipe2(rep, O_CLOEXEC) != 0)
		return -1;
	child_plan c = { .o = o, .envp = o->envp ? o->envp : environ, .report = rep[1], .parent = getpid() };
	c.max_fd = sysconf(_SC_OPEN_MAX);
	if (c.max_fd < 0 || c.max_fd > 65536)
		c.max_fd = 65536;
	add_kept(&c, o->keep[0]);
	add_kept(&c, o->keep[1]);
	add_kept(&c, rep[1]);
	/* SIGINT blocked from before the fork: a Ctrl-C while the child
	 * starts reaches it only once its disposition is set */
	sigset_t si, old;
	sigemptyset(&si);
	sigaddset(&si, SIGINT);
	pthread_sigmask(SIG_BLOCK, &si, &old);
	c.mask = old;
	if (o->sigint == CHILD_SIGINT_BLOCKED)
		sigaddset(&c.mask, SIGINT);
	pid_t pid = fork();
	if (pid == 0)
		child_run(&c);
	int fork_errno = errno; /* before the calls below can change it */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(rep[1]);
	if (pid < 0) {
		close(rep[0]);
		errno = fork_errno;
		return -1;
	}
	int child_errno = 0;
	ssize_t n;
	while ((n = read(rep[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR)
		;
	close(rep[0]);
	if (n == (ssize_t)sizeof child_errno) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		errno = child_errno;
		return -1;
	}
	return pid;
}

FILE *child_popen(const char *cmd, pid_t *pid)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return NULL;
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)cmd, NULL };
	child_opts o;
	child_opts_init(&o);
	o.path = "/bin/sh";
	o.argv = argv;
	o.stdio[0] = p[0];
	*pid = child_start(&o);
	int e = errno;
	close(p[0]);
	FILE *f = *pid > 0 ? fdopen(p[1], "w") : NULL;
	if (!f) {
		if (*pid > 0)
			e = errno;
		close(p[1]);
		if (*pid > 0)
			while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
				;
		*pid = -1;
		errno = e;
	}
	return f;
}

int child_pclose(FILE *f, pid_t pid)
{
	fclose(f);
	int st = 0;
	pid_t r;
	while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	return r == pid ? st : -1;
}
