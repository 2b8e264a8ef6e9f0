/* test_gpulock.c: the lock that lets one process at a time measure a GPU
 * (worker/server_lock.c), without a GPU: the worker's side of it, here in this
 * process, with another process holding the lock. It waits while the lock
 * is held, says so once in a note and in WAIT progress, takes it when it is
 * free, stops waiting on STOP, and never follows a link planted at the
 * lock's name. */
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wlock.h"

static char dir[] = "/tmp/cuplay-test-gpulock-XXXXXX";
#define BUS "0000:1b:00.0"

typedef struct fake {
	wchan chan;
	devinfo info;
	wrun r;
	result res;
	int front_r, front_w; /* the front end's ends */
} fake;

static void fake_init(fake *f)
{
	memset(f, 0, sizeof *f);
	int to[2], from[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, to) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, from) != 0)
		abort();
	f->chan.rfd = to[0];
	f->front_w = to[1];
	f->chan.wfd = from[1];
	f->front_r = from[0];
	f->info.ordinal = 0;
	snprintf(f->info.pci_bus_id, sizeof f->info.pci_bus_id, "%s", BUS);
	f->r.chan = &f->chan;
	f->r.res = &f->res;
	f->r.t0 = now_ns();
}

/* What the worker said to the front end: notes joined by '|', the count of
 * WAIT progress messages. */
static void said(fake *f, char *notes, size_t n, int *waits)
{
	notes[0] = 0;
	*waits = 0;
	for (;;) {
		uint32_t type;
		void *p = NULL;
		uint64_t len;
		if (wire_recv_until(f->front_r, &type, &p, &len, now_ns() + 50000000ull, NULL) != 0)
			break;
		if (type == MSG_NOTE && p) {
			size_t k = strlen(notes);
			snprintf(notes + k, n - k, "%s%s", k ? "|" : "", (const char *)p);
		} else if (type == MSG_PROGRESS && len == sizeof(wire_progress)) {
			wire_progress pg;
			memcpy(&pg, p, sizeof pg);
			*waits += pg.phase == WIRE_PHASE_WAIT;
		}
		free(p);
	}
}

/* Another process holds the lock for ms milliseconds (0: until killed). */
static pid_t holder(int ms)
{
	int ready[2];
	if (pipe(ready) != 0)
		abort();
	pid_t pid = fork();
	if (pid == 0) {
		char *path = xasprintf("%s/cuplay-gpu-%s.lock", dir, BUS);
		int fd = open(path, O_RDONLY | O_CREAT, 0644);
		if (fd < 0 || flock(fd, LOCK_EX) != 0)
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		if (ms > 0)
			usleep((useconds_t)ms * 1000);
		else
			pause();
		_exit(0);
	}
	char c;
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		abort();
	close(ready[0]);
	return pid;
}

TEST(waits_then_takes)
{
	fake f;
	fake_init(&f);
	pid_t h = holder(400);
	uint64_t t0 = now_ns();
	CHECK(w_gpu_lock(&f.r, &f.info) == 0);
	double s = (double)(now_ns() - t0) / 1e9;
	CHECK(s >= 0.3 && s < 3);
	CHECK(f.res.status == RES_OK);
	char notes[1024];
	int waits;
	said(&f, notes, sizeof notes, &waits);
	CHECK_STREQ(notes, "waiting for GPU 0 (another cuplay is measuring)");
	CHECK(waits >= 1);
	int st;
	waitpid(h, &st, 0);
	/* held now: another process cannot have it until it is let go */
	char *path = xasprintf("%s/cuplay-gpu-%s.lock", dir, BUS);
	int fd = open(path, O_RDONLY);
	CHECK(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == -1 && errno == EWOULDBLOCK);
	w_gpu_unlock();
	CHECK(flock(fd, LOCK_EX | LOCK_NB) == 0);
	close(fd);
	/* readable by every user, whatever the umask */
	struct stat sb;
	CHECK(stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && (sb.st_mode & 0444) == 0444);
	free(path);
	/* free: taken at once, nothing said */
	CHECK(w_gpu_lock(&f.r, &f.info) == 0);
	said(&f, notes, sizeof notes, &waits);
	CHECK_STREQ(notes, "");
	w_gpu_unlock();

	/* STOP (Ctrl-C) while waiting: back at once, the run interrupted */
	h = holder(0);
	CHECK(wire_send(f.front_w, MSG_STOP, NULL, 0, NULL, 0) == 0);
	t0 = now_ns();
	CHECK(w_gpu_lock(&f.r, &f.info) == 1);
	CHECK((double)(now_ns() - t0) / 1e9 < 1);
	CHECK(f.res.status == RES_INTERRUPTED);
	kill(h, SIGKILL);
	waitpid(h, &st, 0);
}

/* A link planted at the lock's name: not followed, said once, no lock
 * (in a process of its own: the lock file is opened once a process). */
TEST(planted_link)
{
	char *ldir = xasprintf("%s/planted", dir);
	mkdir(ldir, 0755);
	char *victim = xasprintf("%s/victim", ldir);
	char *path = xasprintf("%s/cuplay-gpu-%s.lock", ldir, BUS);
	CHECK(symlink(victim, path) == 0);
	int pfd[2];
	CHECK(pipe(pfd) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		setenv("CUPLAY_LOCK_DIR", ldir, 1);
		fake f;
		fake_init(&f);
		int r = w_gpu_lock(&f.r, &f.info);
		char notes[4096];
		int waits;
		said(&f, notes, sizeof notes, &waits);
		dprintf(pfd[1], "%d %s", r, notes);
		_exit(0);
	}
	close(pfd[1]);
	char buf[4096] = "";
	ssize_t n = read(pfd[0], buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = 0;
	close(pfd[0]);
	int st;
	waitpid(pid, &st, 0);
	char *want = xasprintf("0 cannot lock GPU 0 ('%s': %s): measuring without waiting for other processes",
	                       path, strerror(ELOOP));
	CHECK_STREQ(buf, want);
	struct stat sb;
	CHECK(lstat(victim, &sb) != 0);
	free(want);
	free(victim);
	free(path);
	free(ldir);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	setenv("CUPLAY_LOCK_DIR", dir, 1);
	signal(SIGPIPE, SIG_IGN);
	RUN(planted_link); /* first: its child must not inherit an open lock file */
	RUN(waits_then_takes);
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	free(cmd);
	return test_report("gpulock");
}
