/* pchdir.c: the folders of NVRTC's precompiled headers: one per process,
 * trimmed to the newest files, and those of killed cuplays swept away. */
#include "pchdir.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "util.h"

static int is_pch(const char *name)
{
	size_t l = strlen(name);
	return l >= 5 && strcmp(name + l - 4, ".pch") == 0;
}

void pch_trim(const char *dir, int keep)
{
	if (!dir)
		return;
	dir_file *f;
	int n = dir_files(dir, is_pch, &f);
	/* oldest first: all but the newest `keep` go */
	for (int i = 0; i < n - keep; i++)
		unlink(f[i].path);
	dir_files_free(f, n);
}

/* Whether name is "cuplay-pch-PID-XXXXXX"; *pid the PID. */
static int pch_dir_name(const char *name, long *pid)
{
	static const char pre[] = "cuplay-pch-";
	if (strncmp(name, pre, sizeof pre - 1) != 0)
		return 0;
	char *e;
	errno = 0;
	long v = strtol(name + sizeof pre - 1, &e, 10);
	if (errno || e == name + sizeof pre - 1 || v <= 0 || *e != '-' || strlen(e + 1) != 6)
		return 0;
	*pid = v;
	return 1;
}

int ccache_sweep_pch(const char *tmpdir)
{
	DIR *d = opendir(tmpdir);
	if (!d)
		return 0;
	int removed = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		long pid;
		if (!pch_dir_name(e->d_name, &pid) || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue; /* alive, or not ours to ask about */
		char *p = xasprintf("%s/%s", tmpdir, e->d_name);
		struct stat st;
		/* a folder of this user's, not a link to one */
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid()) {
			pch_trim(p, 0);
			if (rmdir(p) == 0)
				removed++;
		}
		free(p);
	}
	closedir(d);
	return removed;
}

char *pch_dir_make(void)
{
	const char *t = getenv("TMPDIR");
	const char *tmp = t && t[0] == '/' ? t : "/tmp";
	ccache_sweep_pch(tmp);
	char *tmpl = xasprintf("%s/cuplay-pch-%ld-XXXXXX", tmp, (long)getpid());
	if (mkdtemp(tmpl))
		return tmpl;
	free(tmpl);
	return NULL;
}
