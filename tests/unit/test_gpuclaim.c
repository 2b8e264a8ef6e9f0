/* test_gpuclaim.c: a GPU claimed for a session (worker/wclaim.c), without
 * a GPU: over a list of bus ids and a directory of claims. A process takes
 * the least claimed GPU (the first of equals), a GPU picked by the user is
 * counted, a claim ends with its process, sixteen processes started at
 * once on two GPUs split eight and eight, and a link planted at a slot's
 * name is never followed. */
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wclaim.h"

static char dir[] = "/tmp/cuplay-test-gpuclaim-XXXXXX";
static const char *const ids[] = { "0000:1b:00.0", "0000:2c:00.0" };

/* the slot files in dir */
static size_t slot_files(void)
{
	char *pat = xasprintf("%s/cuplay-claim-*", dir);
	glob_t g;
	size_t n = glob(pat, 0, NULL, &g) == 0 ? g.gl_pathc : 0;
	if (n)
		globfree(&g);
	free(pat);
	return n;
}

TEST(least_claimed)
{
	int fd[6], counts[2] = { -1, -1 };
	const char *why = NULL;
	CHECK(gpu_claim(dir, ids, 2, -1, &fd[0], counts, &why) == 0 && fd[0] >= 0 && !why);
	CHECK(counts[0] == 0 && counts[1] == 0);
	CHECK(slot_files() == 1); /* counting makes no file: the claim made one */
	CHECK(gpu_claim(dir, ids, 2, -1, &fd[1], counts, &why) == 1 && fd[1] >= 0);
	CHECK(counts[0] == 1 && counts[1] == 0);
	CHECK(gpu_claim(dir, ids, 2, -1, &fd[2], counts, &why) == 0); /* equals: the first */
	CHECK(counts[0] == 1 && counts[1] == 1);
	/* a GPU the user picked is claimed and counted, whatever the counts */
	CHECK(gpu_claim(dir, ids, 2, 0, &fd[3], counts, &why) == 0 && fd[3] >= 0);
	CHECK(counts[0] == 2 && counts[1] == 1);
	CHECK(gpu_claim(dir, ids, 2, -1, &fd[4], counts, &why) == 1); /* 3 against 1 */
	/* two claims of GPU 0 end: it is the least claimed again */
	close(fd[0]);
	close(fd[2]);
	CHECK(gpu_claim(dir, ids, 2, -1, &fd[5], counts, &why) == 0);
	CHECK(counts[0] == 1 && counts[1] == 2);
	close(fd[1]);
	close(fd[3]);
	close(fd[4]);
	close(fd[5]);
	/* every claim gone: none counted */
	int f;
	CHECK(gpu_claim(dir, ids, 2, -1, &f, counts, &why) == 0 && counts[0] == 0 && counts[1] == 0);
	close(f);
}

/* Sixteen processes started together, each holding its claim until told
 * to go: eight on each GPU (the lock over the counting orders them). */
TEST(class_of_sixteen)
{
	int picks[2], go[2];
	CHECK(pipe(picks) == 0 && pipe(go) == 0);
	pid_t kids[16];
	for (int i = 0; i < 16; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			close(picks[0]);
			close(go[1]);
			int fd;
			const char *why;
			char c = (char)('0' + gpu_claim(dir, ids, 2, -1, &fd, NULL, &why));
			if (write(picks[1], &c, 1) != 1 || read(go[0], &c, 1) < 0)
				_exit(1);
			_exit(fd >= 0 ? 0 : 2);
		}
	}
	close(picks[1]);
	close(go[0]);
	int n[2] = { 0, 0 }, got = 0;
	char c;
	while (got < 16 && read(picks[0], &c, 1) == 1) {
		if (c == '0' || c == '1')
			n[c - '0']++;
		got++;
	}
	close(go[1]); /* every child reads end-of-file: go */
	int all_held = 1;
	for (int i = 0; i < 16; i++) {
		int st;
		waitpid(kids[i], &st, 0);
		all_held &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	close(picks[0]);
	CHECK(got == 16 && n[0] == 8 && n[1] == 8);
	CHECK(all_held);
	if (n[0] != 8)
		fprintf(stderr, "  GPU 0: %d, GPU 1: %d\n", n[0], n[1]);
	/* their processes gone, so are their claims */
	int counts[2], f;
	const char *why;
	gpu_claim(dir, ids, 2, -1, &f, counts, &why);
	CHECK(counts[0] == 0 && counts[1] == 0);
	close(f);
}

/* A link planted at a slot's name is not followed (its target is never
 * made) and the slot not used; where no claim can be had, the GPU asked
 * for (else the first) with why. */
TEST(planted_and_refused)
{
	char *sub = xasprintf("%s/planted", dir);
	mkdir(sub, 0755);
	char *victim = xasprintf("%s/victim", sub);
	char *slot = xasprintf("%s/cuplay-claim-%s.0", sub, ids[1]);
	CHECK(symlink(victim, slot) == 0);
	int counts[2], f;
	const char *why = NULL;
	CHECK(gpu_claim(sub, ids, 2, 1, &f, counts, &why) == 1 && f >= 0 && !why);
	free(sub);
	struct stat sb;
	CHECK(lstat(victim, &sb) != 0);
	close(f);
	unlink(slot);
	char *none = xasprintf("%s/no-such-dir", dir);
	CHECK(gpu_claim(none, ids, 2, -1, &f, counts, &why) == 0 && f == -1 && why != NULL);
	CHECK(gpu_claim(none, ids, 2, 1, &f, counts, &why) == 1 && f == -1);
	free(none);
	free(slot);
	free(victim);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	signal(SIGPIPE, SIG_IGN);
	RUN(least_claimed);
	RUN(class_of_sixteen);
	RUN(planted_and_refused);
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	free(cmd);
	return test_report("gpuclaim");
}
