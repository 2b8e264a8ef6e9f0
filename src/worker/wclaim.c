/* wclaim.c: a GPU claimed for a process's session.
 *
 * The lock of wlock.c is held only while a run measures, so processes that
 * start together (a class of sixteen on a two-GPU host) all find every GPU
 * free and all open GPU 0, and then queue on its lock while GPU 1 stays
 * idle. So a worker claims its GPU when it starts, for as long as it
 * lives: a claim is a slot file DIR/cuplay-claim-ID.K (ID: the GPU's PCI
 * bus id, K < CLAIM_SLOTS) that its process holds locked (flock
 * LOCK_EX), so a claim ends when its process does, however it ends. The
 * claims of a GPU are counted by trying each of its slots; a worker not
 * told which GPU to use takes the least claimed. Counting and claiming
 * happen under DIR/cuplay-claim.lock, so that two processes starting
 * together see each other's claims. Files are opened as wlock.c opens
 * its lock: no links followed, regular files only, readable by all. */
#include "wclaim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

const char *gpu_lock_dir(void)
{
	const char *dir = getenv("CUPLAY_LOCK_DIR");
	return dir && *dir ? dir : "/tmp";
}

/* A lock file, opened as wlock.c opens its own (made where create says);
 * -1 where it cannot be. */
static int open_file(const char *path, int create)
{
	int fd = open(path, O_RDONLY | (create ? O_CREAT : 0) | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
	struct stat st;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	if (st.st_uid == geteuid())
		fchmod(fd, 0644); /* whatever the umask: every user must open it */
	return fd;
}

static void slot_path(char *buf, size_t n, const char *dir, const char *id, int k)
{
	char safe[64];
	snprintf(safe, sizeof safe, "%s", id);
	for (char *c = safe; *c; c++)
		if (*c == '/')
			*c = '_';
	snprintf(buf, n, "%s/cuplay-claim-%s.%d", dir, safe, k);
}

/* GPU id's claims by other processes; with take, the first free slot is
 * kept locked and its descriptor in *fd (-1: all taken). A slot's file is
 * made only to be taken: counting makes none. */
static int count_claims(const char *dir, const char *id, int take, int *fd)
{
	int held = 0;
	if (fd)
		*fd = -1;
	for (int k = 0; k < CLAIM_SLOTS; k++) {
		char path[4200];
		slot_path(path, sizeof path, dir, id, k);
		int f = open_file(path, 0);
		if (f < 0 && errno == ENOENT && take && *fd < 0)
			f = open_file(path, 1);
		if (f < 0)
			continue;
		if (flock(f, LOCK_EX | LOCK_NB) != 0) {
			held++;
			close(f);
		} else if (take && *fd < 0) {
			*fd = f; /* ours now */
		} else {
			close(f); /* closing it lets the lock go */
		}
	}
	return held;
}

int gpu_claim(const char *dir, const char *const *ids, int n, int want, int *fd, int *counts,
              const char **why)
{
	*fd = -1;
	*why = NULL;
	int fallback = want >= 0 ? want : 0;
	if (n <= 0)
		return fallback;
	char path[4200];
	snprintf(path, sizeof path, "%s/cuplay-claim.lock", dir);
	int big = open_file(path, 1);
	if (big < 0) {
		*why = "cannot open the claims' lock";
		return fallback;
	}
	if (flock(big, LOCK_EX) != 0) { /* short: held while counting */
		close(big);
		*why = "the file system has no flock";
		return fallback;
	}
	int pick = want;
	int best = -1;
	for (int i = 0; i < n; i++) {
		int c = count_claims(dir, ids[i], 0, NULL);
		if (counts)
			counts[i] = c;
		if (want < 0 && (best < 0 || c < best)) {
			best = c;
			pick = i;
		}
	}
	if (pick < 0 || pick >= n)
		pick = fallback;
	if (pick < n)
		count_claims(dir, ids[pick], 1, fd);
	close(big); /* the claim stands: the others may count it now */
	if (*fd < 0)
		*why = "every claim slot of the GPU is taken";
	return pick;
}
