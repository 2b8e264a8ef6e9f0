/* fileio.c: writes to files a user names (fileio.h). */
#include "fileio.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *file_kind_of_mode(mode_t m)
{
	if (S_ISREG(m))
		return NULL;
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
	     : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

const char *file_kind(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return NULL;
	return file_kind_of_mode(st.st_mode);
}

static int refuse(char **why, int e, const char *fmt, const char *what)
{
	if (why)
		*why = fmt ? xasprintf(fmt, what) : xstrdup(strerror(e));
	errno = e;
	return -1;
}

/* The reason an open for writing failed, for a message. */
static int open_failed(const char *path, char **why)
{
	int e = errno;
	if (e == ENXIO) { /* a FIFO without a reader, or a socket */
		const char *k = file_kind(path);
		if (k && strcmp(k, "a FIFO") == 0)
			return refuse(why, e, "%s", "it is a FIFO that no program reads");
		if (k)
			return refuse(why, e, "it is %s", k);
	}
	if (e == EISDIR)
		return refuse(why, e, "%s", "it is a directory");
	return refuse(why, e, NULL, NULL);
}

/* ---- the program's own files ------------------------------------------- */

/* A descriptor open when the program started: its number and file. */
typedef struct fd_file {
	int fd;
	dev_t dev;
	ino_t ino;
} fd_file;

static fd_file *inherited;
static int ninherited = -1; /* -1: not noted, every descriptor above 2 is the program's */

/* A file the program reads and no write may replace (the kernel file in use). */
static struct {
	const char *what;
	char *path;
} guarded[4];

/* Calls each(fd, arg) for every open descriptor above 2 (but the one
 * reading /proc/self/fd); stops at the first nonzero return, returned. */
static int each_fd(int (*each)(int fd, void *arg), void *arg)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d) {
		long max = sysconf(_SC_OPEN_MAX);
		for (int fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
			if (fcntl(fd, F_GETFD) >= 0) {
				int r = each(fd, arg);
				if (r)
					return r;
			}
		return 0;
	}
	int r = 0;
	struct dirent *e;
	while (!r && (e = readdir(d)) != NULL) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		if (*end || end == e->d_name || fd <= 2 || fd > INT_MAX || fd == dirfd(d))
			continue;
		r = each((int)fd, arg);
	}
	closedir(d);
	return r;
}

static int note_one(int fd, void *arg)
{
	(void)arg;
	struct stat st;
	if (fstat(fd, &st) != 0)
		return 0;
	inherited = xrealloc(inherited, (size_t)(ninherited + 1) * sizeof *inherited);
	inherited[ninherited++] = (fd_file){ fd, st.st_dev, st.st_ino };
	return 0;
}

void file_note_inherited(void)
{
	free(inherited);
	inherited = NULL;
	ninherited = 0;
	each_fd(note_one, NULL);
}

/* fd was opened by this program (not inherited from the one that started it). */
static int own_fd(int fd, const struct stat *st)
{
	if (fd <= 2)
		return 0;
	for (int i = 0; i < ninherited; i++)
		if (inherited[i].fd == fd && inherited[i].dev == st->st_dev && inherited[i].ino == st->st_ino)
			return 0;
	return 1;
}

static int same_own(int fd, void *arg)
{
	const struct stat *t = arg;
	struct stat st;
	return fstat(fd, &st) == 0 && st.st_dev == t->st_dev && st.st_ino == t->st_ino && own_fd(fd, &st);
}

void file_guard(const char *what, const char *path)
{
	int i = 0;
	while (i < (int)(sizeof guarded / sizeof *guarded) - 1 && guarded[i].what && strcmp(guarded[i].what, what) != 0)
		i++;
	free(guarded[i].path);
	guarded[i].what = path ? what : NULL;
	guarded[i].path = path ? xstrdup(path) : NULL;
}

void file_guards_free(void)
{
	for (size_t i = 0; i < sizeof guarded / sizeof *guarded; i++) {
		free(guarded[i].path);
		guarded[i].path = NULL;
		guarded[i].what = NULL;
	}
	free(inherited);
	inherited = NULL;
	ninherited = -1;
}

/* 0 where the file st describes is none of the program's own: a file it
 * has open (a session being read, a recording, a pipe or socket to its
 * compile server or worker) or one guarded; else -1 with *why. Devices
 * (/dev/null, a terminal) are shared by design and never refused. */
static int not_own(const struct stat *st, char **why)
{
	if (S_ISCHR(st->st_mode))
		return 0;
	for (size_t i = 0; i < sizeof guarded / sizeof *guarded; i++) {
		struct stat g;
		if (guarded[i].path && stat(guarded[i].path, &g) == 0 && g.st_dev == st->st_dev && g.st_ino == st->st_ino)
			return refuse(why, EPERM, "it is %s", guarded[i].what);
	}
	if (each_fd(same_own, (void *)st))
		return refuse(why, EPERM, "%s", "cuplay itself has it open (a session it reads, a recording, "
		              "a pipe to its compile server or worker)");
	return 0;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Opens path for writing where it is, without replacing it: a character
 * device, a FIFO with a reader, or (flags with O_CREAT) the file a
 * dangling link names. Blocking is restored after the open. */
static int open_in_place(const char *path, int flags, char **why)
{
	int fd = open(path, flags | O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK, 0666);
	if (fd < 0)
		return open_failed(path, why);
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return refuse(why, e, NULL, NULL);
	}
	if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		close(fd);
		return refuse(why, EINVAL, "it is %s", file_kind_of_mode(st.st_mode));
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

static int write_in_place(const char *path, int flags, const void *data, size_t len, char **why)
{
	int fd = open_in_place(path, flags, why);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0) {
		int e = errno;
		close(fd);
		return refuse(why, e, NULL, NULL);
	}
	if (write_all(fd, data, len) != 0) {
		int e = errno;
		close(fd);
		return refuse(why, e, NULL, NULL);
	}
	if (close(fd) != 0)
		return refuse(why, errno, NULL, NULL);
	return 0;
}

/* A regular file (or none): replaced at once; where its directory cannot
 * take a temporary file but the file itself may be written, in place. A
 * file the user may not write (another's, or read-only) is refused as the
 * shell's `>` refuses it, though its directory would let a new file take
 * its place. */
static int replace(const char *path, const void *data, size_t len, char **why)
{
	if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) != 0 && errno != ENOENT)
		return refuse(why, errno, NULL, NULL);
	if (write_file_atomic(path, data, len) == 0)
		return 0;
	int e = errno;
	if (e == EACCES && access(path, W_OK) == 0)
		return write_in_place(path, 0, data, len, why);
	return refuse(why, e, NULL, NULL);
}

/* /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the descriptor
 * they name, or -1. Written as a descriptor of this process, never opened
 * anew: opened, a regular file behind fd 1 would be written from its start
 * (or replaced), not where the output stands. */
static int fd_named(const char *path)
{
	if (strcmp(path, "/dev/stdout") == 0)
		return 1;
	if (strcmp(path, "/dev/stderr") == 0)
		return 2;
	const char *n = strncmp(path, "/dev/fd/", 8) == 0 ? path + 8
	              : strncmp(path, "/proc/self/fd/", 14) == 0 ? path + 14 : NULL;
	if (!n || *n < '0' || *n > '9')
		return -1;
	char *end;
	long v = strtol(n, &end, 10);
	return *end || v > INT_MAX ? -1 : (int)v;
}

int write_file(const char *path, const void *data, size_t len, char **why)
{
	if (why)
		*why = NULL;
	int fd = fd_named(path);
	struct stat lst, st;
	if (fd >= 0) {
		if (fstat(fd, &st) == 0 && own_fd(fd, &st))
			return refuse(why, EPERM, "%s", "it is a descriptor of cuplay's own, not one it was given");
		if (fstat(fd, &st) == 0 && not_own(&st, why) != 0)
			return -1;
		if (fd == 1)
			fflush(stdout);
		if (fcntl(fd, F_GETFL) < 0 || write_all(fd, data, len) != 0)
			return refuse(why, errno, NULL, NULL);
		return 0;
	}
	if (stat(path, &st) == 0 && not_own(&st, why) != 0)
		return -1;
	if (lstat(path, &lst) != 0) {
		if (errno != ENOENT)
			return refuse(why, errno, NULL, NULL);
		return replace(path, data, len, why);
	}
	if (S_ISREG(lst.st_mode))
		return replace(path, data, len, why);
	if (S_ISLNK(lst.st_mode)) {
		if (stat(path, &st) != 0) {
			if (errno != ENOENT)
				return refuse(why, errno, NULL, NULL);
			/* a link to a file still to be made: made through the link */
			return write_in_place(path, O_CREAT, data, len, why);
		}
		if (S_ISREG(st.st_mode)) {
			char *target = realpath(path, NULL);
			if (!target)
				return refuse(why, errno, NULL, NULL);
			int r = replace(target, data, len, why);
			free(target);
			return r;
		}
	} else {
		st = lst;
	}
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
		return write_in_place(path, 0, data, len, why);
	return refuse(why, S_ISDIR(st.st_mode) ? EISDIR : EINVAL, "it is %s", file_kind_of_mode(st.st_mode));
}

int open_append(const char *path, char **why)
{
	if (why)
		*why = NULL;
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
		return refuse(why, S_ISDIR(st.st_mode) ? EISDIR : EINVAL, "it is %s", file_kind_of_mode(st.st_mode));
	if (stat(path, &st) == 0 && not_own(&st, why) != 0)
		return -1;
	return open_in_place(path, O_CREAT | O_APPEND, why);
}

int write_sbuf(const char *path, sbuf *b, char **err)
{
	char *why = NULL;
	int r = write_file(path, b->s ? b->s : "", b->len, &why);
	sb_free(b);
	if (r != 0) {
		if (err)
			*err = xasprintf("cannot write '%s': %s", path, why ? why : "failed");
		free(why);
		return -1;
	}
	return 0;
}

static int older_file(const void *a, const void *b)
{
	const dir_file *x = a, *y = b;
	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->path, y->path);
}

int dir_files(const char *dir, int (*keep)(const char *name), dir_file **out)
{
	*out = NULL;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	dir_file *v = NULL;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (!keep(e->d_name))
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		v = xrealloc(v, ((size_t)n + 1) * sizeof *v);
		v[n++] = (dir_file){ p, (uint64_t)st.st_size, st.st_mtim };
	}
	closedir(d);
	if (n > 1)
		qsort(v, (size_t)n, sizeof *v, older_file);
	*out = v;
	return n;
}

void dir_files_free(dir_file *v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}
