/* test_fileio.c: writes to files a user names (base/fileio) and the
 * replacing write of the cache (write_file_atomic): links planted at a
 * temporary name, links, devices, FIFOs, directories, modes; a folder's
 * files oldest first (dir_files). */
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "util.h"

static char dir[] = "/tmp/cuplay-test-fileio-XXXXXX";

static char *in_dir(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static char *contents(const char *path)
{
	char *s = NULL;
	if (read_file(path, &s, NULL) != 0)
		return NULL;
	return s;
}

static int entries(void)
{
	char *cmd = xasprintf("ls -A '%s' | wc -l", dir);
	FILE *f = popen(cmd, "r");
	int n = -1;
	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		pclose(f);
	}
	free(cmd);
	return n;
}

/* The replacing write never opens a name another user could guess: a link
 * planted at PATH.tmp.PID (the name it once used) is left alone. */
TEST(planted_link)
{
	char *victim = in_dir("victim"), *path = in_dir("out.csv");
	CHECK(write_file_atomic(victim, "precious\n", 9) == 0);
	char *planted = xasprintf("%s.tmp.%ld", path, (long)getpid());
	CHECK(symlink(victim, planted) == 0);
	CHECK(write_file_atomic(path, "new\n", 4) == 0);
	char *v = contents(victim), *o = contents(path);
	CHECK_STREQ(v, "precious\n");
	CHECK_STREQ(o, "new\n");
	struct stat st;
	CHECK(lstat(planted, &st) == 0 && S_ISLNK(st.st_mode));
	free(v);
	free(o);
	/* no temporary file left behind: victim, the planted link, out.csv */
	CHECK(entries() == 3);
	unlink(planted);
	unlink(victim);
	unlink(path);
	free(planted);
	free(victim);
	free(path);
}

/* A new file gets 0666 less the umask; a replaced one keeps its mode. */
TEST(modes)
{
	mode_t old = umask(022);
	char *path = in_dir("m.csv"), *why = NULL;
	CHECK(write_file(path, "a", 1, &why) == 0 && why == NULL);
	struct stat st;
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644);
	CHECK(chmod(path, 0600) == 0);
	CHECK(write_file(path, "b", 1, &why) == 0);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600);
	char *s = contents(path);
	CHECK_STREQ(s, "b");
	free(s);
	unlink(path);
	free(path);
	umask(old);
}

/* A link is written through: its target gets the data, the link stays. */
TEST(through_link)
{
	char *target = in_dir("target.csv"), *link = in_dir("link.csv"), *why = NULL;
	CHECK(write_file(target, "old\n", 4, &why) == 0);
	CHECK(symlink("target.csv", link) == 0); /* relative, as ln -s makes it */
	CHECK(write_file(link, "new\n", 4, &why) == 0);
	struct stat st;
	CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	char *s = contents(target);
	CHECK_STREQ(s, "new\n");
	free(s);
	unlink(link);
	unlink(target);
	/* a link to a file not made yet: made through it */
	CHECK(symlink("target.csv", link) == 0);
	CHECK(write_file(link, "made\n", 5, &why) == 0);
	CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	s = contents(target);
	CHECK_STREQ(s, "made\n");
	free(s);
	unlink(link);
	unlink(target);
	free(link);
	free(target);
}

/* Devices are written in place and never replaced; a full one says so. */
TEST(devices)
{
	char *why = NULL;
	struct stat before, after;
	if (stat("/dev/full", &before) == 0 && S_ISCHR(before.st_mode)) {
		errno = 0;
		CHECK(write_file("/dev/full", "x", 1, &why) == -1 && errno == ENOSPC);
		CHECK_STREQ(why, strerror(ENOSPC));
		free(why);
		why = NULL;
		CHECK(stat("/dev/full", &after) == 0 && S_ISCHR(after.st_mode) && after.st_rdev == before.st_rdev);
		CHECK(write_file("/dev/null", "x", 1, &why) == 0);
		CHECK(stat("/dev/null", &after) == 0 && S_ISCHR(after.st_mode));
		int fd = open_append("/dev/full", &why);
		CHECK(fd >= 0);
		if (fd >= 0) {
			CHECK(write(fd, "x", 1) == -1 && errno == ENOSPC);
			close(fd);
		}
	}
	/* /dev/fd/N: that descriptor, where it stands (here a file with text) */
	char *path = in_dir("fd.txt");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, "head\n", 5) == 5);
	char *name = xasprintf("/dev/fd/%d", fd);
	/* a descriptor of the program's own: refused, the file untouched */
	CHECK(write_file(name, "tail\n", 5, &why) == -1 && errno == EPERM);
	CHECK_STREQ(why, "it is a descriptor of cuplay's own, not one it was given");
	free(why);
	why = NULL;
	CHECK(write_file(path, "new\n", 4, &why) == -1);
	CHECK_STREQ(why, "cuplay itself has it open (a session it reads, a recording, a pipe to its compile server or worker)");
	free(why);
	why = NULL;
	CHECK(open_append(path, &why) == -1);
	free(why);
	why = NULL;
	/* given by the program that started this one: written */
	file_note_inherited();
	CHECK(write_file(name, "tail\n", 5, &why) == 0);
	file_guards_free();
	close(fd);
	char *s = contents(path);
	CHECK_STREQ(s, "head\ntail\n");
	free(s);
	free(name);
	unlink(path);
	free(path);
}

/* A guarded file (the kernel file in use) is refused, through a link too;
 * another guard in its place frees it. */
TEST(guarded)
{
	char *why = NULL;
	char *path = in_dir("k.cu"), *link = in_dir("k-link.cu"), *other = in_dir("other.cu");
	write_file(path, "k\n", 2, NULL);
	CHECK(symlink(path, link) == 0);
	file_guard("the kernel file in use", path);
	CHECK(write_file(link, "x", 1, &why) == -1 && errno == EPERM);
	CHECK_STREQ(why, "it is the kernel file in use");
	free(why);
	why = NULL;
	CHECK(open_append(path, &why) == -1);
	CHECK_STREQ(why, "it is the kernel file in use");
	free(why);
	why = NULL;
	file_guard("the kernel file in use", other);
	CHECK(write_file(path, "y\n", 2, &why) == 0);
	char *s = contents(path);
	CHECK_STREQ(s, "y\n");
	free(s);
	file_guards_free();
	unlink(link);
	unlink(path);
	free(path);
	free(link);
	free(other);
}

/* What cannot be written is refused at once, in words. */
TEST(refused)
{
	char *why = NULL;
	CHECK(write_file(dir, "x", 1, &why) == -1 && errno == EISDIR);
	CHECK_STREQ(why, "it is a directory");
	free(why);
	char *fifo = in_dir("fifo");
	CHECK(mkfifo(fifo, 0600) == 0);
	/* no reader: refused, not waited on */
	CHECK(write_file(fifo, "x", 1, &why) == -1);
	CHECK_STREQ(why, "it is a FIFO that no program reads");
	free(why);
	CHECK(open_append(fifo, &why) == -1);
	CHECK_STREQ(why, "it is a FIFO that no program reads");
	free(why);
	/* with a reader: written */
	int rd = open(fifo, O_RDONLY | O_NONBLOCK);
	CHECK(rd >= 0);
	file_note_inherited(); /* the reader is another program's */
	CHECK(write_file(fifo, "hi", 2, &why) == 0);
	file_guards_free();
	char buf[8] = "";
	CHECK(read(rd, buf, sizeof buf) == 2 && memcmp(buf, "hi", 2) == 0);
	close(rd);
	CHECK(open_append(dir, &why) == -1);
	CHECK_STREQ(why, "it is a directory");
	free(why);
	/* reads: a FIFO is never waited on, a directory never read */
	char *s = NULL;
	errno = 0;
	CHECK(read_file(fifo, &s, NULL) == -1 && errno == EINVAL && s == NULL);
	CHECK(read_file(dir, &s, NULL) == -1 && errno == EISDIR);
	CHECK(read_file("/dev/zero", &s, NULL) == -1 && errno == EINVAL);
	CHECK_STREQ(file_kind(fifo), "a FIFO");
	CHECK_STREQ(file_kind(dir), "a directory");
	CHECK_STREQ(file_kind("/dev/null"), "a character device");
	CHECK(file_kind("/nonexistent/x") == NULL);
	unlink(fifo);
	free(fifo);
	/* a directory that cannot be written */
	char *nope = xasprintf("/nonexistent-%ld/x.csv", (long)getpid());
	CHECK(write_file(nope, "x", 1, &why) == -1);
	CHECK_STREQ(why, strerror(ENOENT));
	free(why);
	free(nope);
}

static int is_cub(const char *name)
{
	size_t l = strlen(name);
	return l > 4 && strcmp(name + l - 4, ".cub") == 0;
}

/* dir_files: the regular files a filter keeps, oldest first (equal times
 * by path); links, folders and other names left out; a missing folder has
 * none. */
TEST(listing)
{
	char *sub = in_dir("list");
	CHECK(mkdir(sub, 0700) == 0);
	const char *names[] = { "b.cub", "a.cub", "c.cub", "other.txt" };
	const long when[] = { 300, 100, 100, 50 };
	for (int i = 0; i < 4; i++) {
		char *p = xasprintf("%s/%s", sub, names[i]);
		CHECK(write_file_atomic(p, "xy", 2) == 0);
		struct timespec t[2] = { { when[i], 0 }, { when[i], 0 } };
		CHECK(utimensat(AT_FDCWD, p, t, 0) == 0);
		free(p);
	}
	char *lnk = xasprintf("%s/link.cub", sub), *fold = xasprintf("%s/fold.cub", sub), *tgt = xasprintf("%s/b.cub", sub);
	CHECK(symlink(tgt, lnk) == 0 && mkdir(fold, 0700) == 0);
	dir_file *v;
	int n = dir_files(sub, is_cub, &v);
	CHECK(n == 3);
	if (n == 3) {
		CHECK(strstr(v[0].path, "/a.cub") && strstr(v[1].path, "/c.cub") && strstr(v[2].path, "/b.cub"));
		CHECK(v[0].size == 2 && v[2].mtime.tv_sec == 300);
	}
	dir_files_free(v, n);
	char *none = in_dir("no-such-folder");
	CHECK(dir_files(none, is_cub, &v) == 0 && v == NULL);
	free(none);
	free(lnk);
	free(fold);
	free(tgt);
	free(sub);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(planted_link);
	RUN(modes);
	RUN(through_link);
	RUN(devices);
	RUN(refused);
	RUN(guarded);
	RUN(listing);
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	free(cmd);
	return test_report("fileio");
}
