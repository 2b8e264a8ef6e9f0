/* mockbuild.h: building a stand-in library (cuda_mock.c, cupti_mock.c
 * beside the tests) into a shared object with the machine's C compiler,
 * for the tests that run cuplay's GPU code against it. */
#ifndef CUPLAY_MOCKBUILD_H
#define CUPLAY_MOCKBUILD_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sass.h" /* proc_capture */
#include "util.h"

/* The C compiler: $CC (a path, or a name on PATH), else cc; NULL when
 * there is none to run. */
static inline char *mock_find_cc(void)
{
	const char *cc = getenv("CC");
	if (!cc || !*cc)
		cc = "cc";
	if (strchr(cc, '/'))
		return access(cc, X_OK) == 0 ? xstrdup(cc) : NULL;
	if (strchr(cc, ' '))
		return NULL; /* "ccache gcc" and the like: not worth parsing here */
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	char *copy = xstrdup(path), *found = NULL;
	for (char *save = NULL, *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", d, cc);
		if (access(p, X_OK) == 0)
			found = p;
		else
			free(p);
	}
	free(copy);
	return found;
}

/* The tests' directory, from __FILE__ ("tests/unit/test_x.c"). */
static inline char *mock_here(void)
{
	const char *f = __FILE__;
	const char *slash = strrchr(f, '/');
	return slash ? xstrndup(f, (size_t)(slash - f)) : xstrdup(".");
}

/* Builds src (beside the tests) into out, a shared object: 0, or -1 said
 * on stderr after "tag: " (-2: the source is not there). */
static inline int mock_build(const char *tag, const char *cc, const char *src, const char *out)
{
	char *dir = mock_here();
	char *s = xasprintf("%s/%s", dir, src), *inc = xasprintf("-I%s/../../src/device", dir);
	const char *argv[] = { cc, "-shared", "-fPIC", "-O0", inc, "-o", out, s, "-lpthread", NULL };
	char *o = NULL, *eo = NULL, *err = NULL;
	int status = -1, rc = access(s, R_OK) == 0 ? 0 : -2;
	if (rc == 0 && (proc_capture(argv, 120, &o, &eo, &status, &err) != 0 || status != 0)) {
		fprintf(stderr, "%s: building %s failed: %s%s\n", tag, src, err ? err : "", eo ? eo : "");
		rc = -1;
	}
	free(o);
	free(eo);
	free(err);
	free(dir);
	free(s);
	free(inc);
	return rc;
}

/* Removes dir and the files in it (the stand-in libraries and logs a
 * test put there; no subfolders). */
static inline void mock_rmdir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d) {
		for (struct dirent *e; (e = readdir(d));) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			char *p = xasprintf("%s/%s", dir, e->d_name);
			unlink(p);
			free(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

#endif
