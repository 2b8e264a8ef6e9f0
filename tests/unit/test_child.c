/* test_child.c: base/child, the one way cuplay starts a process: SIGPIPE
 * back to its default in the child (cuplay ignores it), SIGINT as asked,
 * descriptors closed but those kept, a failed exec reported with its errno,
 * a child started while another thread runs, and a child in a directory,
 * a process group and under limits of its own (the board's verifications). */
#include "test.h"
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* sh -c SCRIPT ARG under the options given; its wait status, or -1 */
static int sh_status(const char *script, const char *arg, child_opts *o)
{
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)script, (char *)"sh", (char *)arg, NULL };
	o->path = "/bin/sh";
	o->argv = argv;
	pid_t pid = child_start(o);
	if (pid < 0)
		return -1;
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

TEST(sigpipe_default_in_child)
{
	/* as main() sets it: the child must not inherit it */
	signal(SIGPIPE, SIG_IGN);
	child_opts o;
	child_opts_init(&o);
	int st = sh_status("kill -PIPE $$; exit 3", NULL, &o);
	CHECK(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE);
	/* the pager's way: a child reading a pipe */
	pid_t pid = -1;
	FILE *f = child_popen("kill -PIPE $$; exit 3", &pid);
	CHECK(f != NULL && pid > 0);
	if (f) {
		st = child_pclose(f, pid);
		CHECK(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE);
	}
}

TEST(sigint_as_asked)
{
	child_opts o;
	child_opts_init(&o);
	o.sigint = CHILD_SIGINT_IGNORE;
	int st = sh_status("kill -INT $$; exit 3", NULL, &o);
	CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 3);
	child_opts_init(&o);
	st = sh_status("kill -INT $$; exit 3", NULL, &o);
	CHECK(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGINT);
	/* blocked through exec (sh would unblock it: grep reads its own mask) */
	child_opts_init(&o);
	o.sigint = CHILD_SIGINT_BLOCKED;
	char *argv[] = { (char *)"grep", (char *)"-q", (char *)"^SigBlk:.*[2367abef]$", (char *)"/proc/self/status", NULL };
	o.path = access("/usr/bin/grep", X_OK) == 0 ? "/usr/bin/grep" : "/bin/grep";
	o.argv = argv;
	pid_t pid = child_start(&o);
	st = -1;
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	CHECK(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* and not in this process */
	sigset_t now;
	pthread_sigmask(SIG_SETMASK, NULL, &now);
	CHECK(!sigismember(&now, SIGINT));
}

TEST(descriptors_closed_but_kept)
{
	int fd = open("/dev/null", O_RDONLY); /* no close-on-exec */
	CHECK(fd > 2);
	char n[16];
	snprintf(n, sizeof n, "%d", fd);
	child_opts o;
	child_opts_init(&o);
	int st = sh_status("test -e /proc/self/fd/$1", n, &o);
	CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 1);
	child_opts_init(&o);
	o.keep[0] = fd;
	fcntl(fd, F_SETFD, FD_CLOEXEC); /* kept even so */
	st = sh_status("test -e /proc/self/fd/$1", n, &o);
	CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fd);
}

TEST(stdio_given)
{
	int p[2];
	CHECK(pipe2(p, O_CLOEXEC) == 0);
	child_opts o;
	child_opts_init(&o);
	o.stdio[1] = p[1];
	int st = sh_status("echo out", NULL, &o);
	close(p[1]);
	char buf[16] = "";
	ssize_t k = read(p[0], buf, sizeof buf - 1);
	close(p[0]);
	CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(k == 4 && strcmp(buf, "out\n") == 0);
}

TEST(exec_failure_reported)
{
	char *argv[] = { (char *)"/nonexistent/tool", NULL };
	child_opts o;
	child_opts_init(&o);
	o.path = argv[0];
	o.argv = argv;
	errno = 0;
	CHECK(child_start(&o) == -1 && errno == ENOENT);
	/* and the child is reaped */
	CHECK(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD);
}

/* what sh prints under the options: into buf */
static int sh_output(const char *script, child_opts *o, char *buf, size_t n)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	o->stdio[1] = p[1];
	int st = sh_status(script, NULL, o);
	close(p[1]);
	ssize_t k = read(p[0], buf, n - 1);
	close(p[0]);
	buf[k > 0 ? k : 0] = 0;
	return st;
}

TEST(directory_group_and_limits)
{
	char buf[256];
	child_opts o;
	child_opts_init(&o);
	o.cwd = "/tmp";
	int st = sh_output("pwd", &o, buf, sizeof buf);
	CHECK(st != -1 && WIFEXITED(st) && strcmp(buf, "/tmp\n") == 0);
	child_opts_init(&o);
	o.new_group = 1;
	o.cpu_s = 7;
	o.as_mb = 4096;
	/* its process group is its own pid; ulimit -t in seconds, -v in KiB */
	st = sh_output("echo $(($(cut -d' ' -f5 /proc/$$/stat) == $$)) $(ulimit -t) $(ulimit -v)", &o, buf, sizeof buf);
	CHECK(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_STREQ(buf, "1 7 4194304\n");
	child_opts_init(&o);
	o.cwd = "/nonexistent/dir";
	char *argv[] = { (char *)"/bin/true", NULL };
	o.path = argv[0];
	o.argv = argv;
	errno = 0;
	CHECK(child_start(&o) == -1 && errno == ENOENT);
}

static volatile int spinning = 1;
static void *spin(void *arg)
{
	(void)arg;
	while (spinning) {
		char *p = malloc(64);
		free(p);
	}
	return NULL;
}

TEST(with_a_thread_running)
{
	pthread_t t;
	CHECK(pthread_create(&t, NULL, spin, NULL) == 0);
	child_opts o;
	int bad = 0;
	for (int i = 0; i < 50; i++) {
		child_opts_init(&o);
		int st = sh_status("exit 5", NULL, &o);
		bad += !(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 5);
	}
	spinning = 0;
	pthread_join(t, NULL);
	CHECK(bad == 0);
}

int main(void)
{
	RUN(sigpipe_default_in_child);
	RUN(sigint_as_asked);
	RUN(descriptors_closed_but_kept);
	RUN(stdio_given);
	RUN(exec_failure_reported);
	RUN(with_a_thread_running);
	RUN(directory_group_and_limits);
	return test_report("child");
}
