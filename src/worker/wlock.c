/* wlock.c: one measurer at a time on a GPU, across processes.
 *
 * Thirty students on one GPU server: another process's kernels between a
 * run's L2 flush and its launch, or beside its timed samples, change what
 * it measures, and only one process at a time can hold the counters. So
 * the measured part of a run (the copy roof, the timed samples, the
 * counters' replays) takes an advisory lock of its GPU: flock on
 * DIR/cuplay-gpu-PCI.lock (DIR: $CUPLAY_LOCK_DIR, else /tmp, shared by
 * every user of the machine; PCI: the device's bus id, the same for every
 * process whatever CUDA_VISIBLE_DEVICES says). Compiling, uploading and
 * checking never hold it. A run that must wait says so in one line
 * ("waiting for GPU 0 (another cuplay is measuring)") and can be stopped
 * while it waits. The file is opened without following links, never
 * waited on when it is not a regular file, and made readable by all
 * (flock needs only a descriptor). Where no lock can be had the run goes
 * on without one, and says why once. CUPLAY_GPU_LOCK=0: no lock. */
#include "wlock.h"
#include "wclaim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int lock_fd = -1;    /* the lock file, opened once */
static int lock_off;        /* no lock to be had (said once) */
static int lock_held;

static int open_lock(wchan *chan, const devinfo *dev)
{
	if (lock_fd >= 0 || lock_off)
		return lock_fd >= 0;
	const char *off = getenv("CUPLAY_GPU_LOCK");
	if (off && strcmp(off, "0") == 0) {
		lock_off = 1;
		return 0;
	}
	const char *dir = gpu_lock_dir();
	char id[64];
	if (dev->pci_bus_id[0])
		snprintf(id, sizeof id, "%s", dev->pci_bus_id);
	else
		snprintf(id, sizeof id, "cuda%d", dev->ordinal);
	for (char *c = id; *c; c++)
		if (*c == '/')
			*c = '_';
	char path[4096];
	snprintf(path, sizeof path, "%s/cuplay-gpu-%s.lock", dir, id);
	int fd = open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
	struct stat st;
	const char *why = NULL;
	if (fd < 0)
		why = strerror(errno);
	else if (fstat(fd, &st) != 0)
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	if (why) {
		if (fd >= 0)
			close(fd);
		lock_off = 1;
		char msg[4400];
		snprintf(msg, sizeof msg, "cannot lock GPU %d ('%s': %s): measuring without waiting for other "
		         "processes", dev->ordinal, path, why);
		w_note(chan, msg);
		return 0;
	}
	if (st.st_uid == geteuid())
		fchmod(fd, 0644); /* whatever the umask: every user must open it */
	lock_fd = fd;
	return 1;
}

int w_gpu_lock(wrun *r, const devinfo *dev)
{
	wchan *c = r->chan;
	if (lock_held || !open_lock(c, dev))
		return 0;
	if (flock(lock_fd, LOCK_EX | LOCK_NB) == 0) {
		lock_held = 1;
		return 0;
	}
	if (errno != EWOULDBLOCK && errno != EINTR)
		return 0; /* a file system without flock: as without a lock */
	char msg[128];
	snprintf(msg, sizeof msg, "waiting for GPU %d (another cuplay is measuring)", dev->ordinal);
	w_note(c, msg);
	uint64_t t0 = now_ns(), last = t0;
	w_trace(r, "waiting for the GPU lock");
	w_progress(c, 0, WIRE_PHASE_WAIT, 0); /* waiting: no timeout applies */
	for (;;) {
		uint64_t now = now_ns();
		if (now - last >= 1000000000ull) {
			w_progress(c, 0, WIRE_PHASE_WAIT, 0); /* still alive */
			last = now;
		}
		if (w_stop_now(c)) {
			r->res->status = RES_INTERRUPTED;
			return 1;
		}
		struct timespec ts = { 0, 20000000L };
		nanosleep(&ts, NULL);
		if (flock(lock_fd, LOCK_EX | LOCK_NB) == 0)
			break;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return 0;
	}
	lock_held = 1;
	w_trace(r, "GPU lock after %.0f ms", ms_since(t0));
	return 0;
}

void w_gpu_unlock(void)
{
	if (!lock_held)
		return;
	flock(lock_fd, LOCK_UN);
	lock_held = 0;
}
