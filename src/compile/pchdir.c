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

#include "util.h"

/* The precompiled headers of the directory, newest first; how many. */
static int pch_files(const char *dir, char ***out)
{
	DIR *d = opendir(dir);
	*out = NULL;
	if (!d)
		return 0;
	struct pf { char *path; struct timespec t; } *v = NULL;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		if (l < 5 || strcmp(e->d_name + l - 4, ".pch") != 0)
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		v = xrealloc(v, ((size_t)n + 1) * sizeof *v);
		v[n++] = (struct pf){ p, st.st_mtim };
	}
	closedir(d);
	/* newest first: a few entries, an insertion sort */
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && (v[k].t.tv_sec > v[k - 1].t.tv_sec ||
		                          (v[k].t.tv_sec == v[k - 1].t.tv_sec && v[k].t.tv_nsec > v[k - 1].t.tv_nsec)); k--) {
			struct pf t = v[k];
			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	*out = xcalloc((size_t)n + 1, sizeof **out);
	for (int i = 0; i < n; i++)
		(*out)[i] = v[i].path;
	free(v);
	return n;
}

void pch_trim(const char *dir, int keep)
{
	if (!dir)
		return;
	char **f;
	int n = pch_files(dir, &f);
	for (int i = 0; i < n; i++) {
		if (i >= keep)
			unlink(f[i]);
		free(f[i]);
	}
	free(f);
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
			char **f;
			int n = pch_files(p, &f);
			for (int i = 0; i < n; i++) {
				unlink(f[i]);
				free(f[i]);
			}
			free(f);
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
