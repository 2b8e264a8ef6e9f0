/* search.c: the search path for kernel files and sessions (search.h). */
#include "search.h"
#include "fileio.h"
#include "util.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef CUPLAY_SHAREDIR
#define CUPLAY_SHAREDIR "/usr/local/share/cuplay"
#endif

static char *g_share; /* BIN/../share/cuplay, resolved; NULL when absent */

void search_set_exe(const char *exe)
{
	free(g_share);
	g_share = NULL;
	const char *slash = exe ? strrchr(exe, '/') : NULL;
	if (!slash)
		return;
	char *p = xasprintf("%.*s/../share/cuplay", (int)(slash - exe), exe);
	char buf[PATH_MAX];
	if (realpath(p, buf))
		g_share = xstrdup(buf);
	free(p);
}

static const char *subdir(search_kind k)
{
	return k == SEARCH_KERNELS ? "kernels_src" : "sessions";
}

static const char *suffix(search_kind k)
{
	return k == SEARCH_KERNELS ? ".cu" : ".session";
}

static int is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

void search_strv_free(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Adds dir when it is a directory not already listed (by device and inode:
 * CUPLAY_PATH=. names ./kernels_src again). */
static void add_dir(char ***v, int *n, struct stat *seen, char *dir)
{
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		free(dir);
		return;
	}
	for (int i = 0; i < *n; i++)
		if (seen[i].st_dev == st.st_dev && seen[i].st_ino == st.st_ino) {
			free(dir);
			return;
		}
	seen[*n] = st;
	(*v)[(*n)++] = dir;
}

char **search_dirs(search_kind k, int *n)
{
	const char *path = getenv("CUPLAY_PATH");
	int max = 4;
	for (const char *p = path; p && *p; p++)
		max += *p == ':';
	char **v = xcalloc((size_t)max + 1, sizeof *v);
	struct stat *seen = xcalloc((size_t)max + 1, sizeof *seen);
	*n = 0;
	add_dir(&v, n, seen, xstrdup(subdir(k)));
	for (const char *p = path; p && *p;) {
		size_t l = strcspn(p, ":");
		if (l > 0) /* an empty entry (a::b, a trailing ':') names nothing */
			add_dir(&v, n, seen, xasprintf("%.*s%s%s", (int)l, p, p[l - 1] == '/' ? "" : "/", subdir(k)));
		p += l + (p[l] == ':');
	}
	if (g_share)
		add_dir(&v, n, seen, xasprintf("%s/%s", g_share, subdir(k)));
	add_dir(&v, n, seen, xasprintf("%s/%s", CUPLAY_SHAREDIR, subdir(k)));
	free(seen);
	v[*n] = NULL;
	return v;
}

/* NAME, then NAME with the suffix, as paths; the first that is a file. */
static char *as_path(search_kind k, const char *dir, const char *name)
{
	char *p = dir ? xasprintf("%s/%s", dir, name) : xstrdup(name);
	if (is_file(p))
		return p;
	free(p);
	p = dir ? xasprintf("%s/%s%s", dir, name, suffix(k)) : xasprintf("%s%s", name, suffix(k));
	if (is_file(p))
		return p;
	free(p);
	return NULL;
}

char *search_find(search_kind k, const char *name)
{
	if (!name || !*name)
		return NULL;
	if (strchr(name, '/'))
		return as_path(k, NULL, name);
	if (k == SEARCH_SESSIONS && is_file(name))
		return xstrdup(name);
	int n;
	char **dirs = search_dirs(k, &n);
	char *found = NULL;
	for (int i = 0; i < n && !found; i++)
		found = as_path(k, dirs[i], name);
	search_strv_free(dirs, n);
	if (!found && k == SEARCH_KERNELS)
		found = as_path(k, NULL, name);
	return found;
}

/* NAME, then NAME with the suffix: the first that exists and is not a
 * regular file. */
static char *refused_at(search_kind k, const char *dir, const char *name, const char **kind)
{
	for (int i = 0; i < 2; i++) {
		char *p = dir ? xasprintf("%s/%s%s", dir, name, i ? suffix(k) : "")
		              : xasprintf("%s%s", name, i ? suffix(k) : "");
		const char *why = file_kind(p);
		if (why) {
			*kind = why;
			return p;
		}
		free(p);
	}
	return NULL;
}

char *search_refused(search_kind k, const char *name, const char **kind)
{
	*kind = NULL;
	if (!name || !*name)
		return NULL;
	if (strchr(name, '/') || k == SEARCH_SESSIONS) {
		char *p = refused_at(k, NULL, name, kind);
		if (p || strchr(name, '/'))
			return p;
	}
	int n;
	char **dirs = search_dirs(k, &n);
	char *found = NULL;
	for (int i = 0; i < n && !found; i++)
		found = refused_at(k, dirs[i], name, kind);
	search_strv_free(dirs, n);
	if (!found && k == SEARCH_KERNELS)
		found = refused_at(k, NULL, name, kind);
	return found;
}

static int cmp_entry(const void *x, const void *y)
{
	return strcmp(((const search_entry *)x)->name, ((const search_entry *)y)->name);
}

search_entry *search_list(search_kind k, int *n, char ***dirsp, int *ndirs)
{
	int nd;
	char **dirs = search_dirs(k, &nd);
	search_entry *v = NULL;
	int cap = 0;
	*n = 0;
	const char *suf = suffix(k);
	size_t sl = strlen(suf);
	for (int d = 0; d < nd; d++) {
		DIR *dp = opendir(dirs[d]);
		if (!dp)
			continue;
		struct dirent *e;
		while ((e = readdir(dp)) != NULL) {
			size_t l = strlen(e->d_name);
			if (l <= sl || strcmp(e->d_name + l - sl, suf) != 0)
				continue;
			char *path = xasprintf("%s/%s", dirs[d], e->d_name);
			if (!is_file(path)) {
				free(path);
				continue;
			}
			int i = 0;
			while (i < *n && (v[i].dir == d || strncmp(v[i].name, e->d_name, l - sl) != 0 ||
			                  v[i].name[l - sl] != 0))
				i++;
			if (i < *n) { /* an earlier directory has one of this name */
				v[i].hides++;
				free(path);
				continue;
			}
			if (*n == cap) {
				cap = cap ? 2 * cap : 16;
				v = xrealloc(v, (size_t)cap * sizeof *v);
			}
			v[(*n)++] = (search_entry){ xstrndup(e->d_name, l - sl), path, d, 0 };
		}
		closedir(dp);
	}
	if (*n > 1)
		qsort(v, (size_t)*n, sizeof *v, cmp_entry);
	if (dirsp) {
		*dirsp = dirs;
		*ndirs = nd;
	} else {
		search_strv_free(dirs, nd);
	}
	return v;
}

void search_list_free(search_entry *e, int n)
{
	for (int i = 0; i < n; i++) {
		free(e[i].name);
		free(e[i].path);
	}
	free(e);
}

char *search_session_summary(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *line = NULL, *out = NULL;
	size_t cap = 0;
	ssize_t len;
	/* the comment lines before the first command */
	while (!out && (len = getline(&line, &cap, f)) >= 0) {
		char *s = line;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\n' || *s == '\r' || !*s)
			continue;
		if (*s != '#')
			break;
		while (*s == '#' || *s == ' ' || *s == '\t')
			s++;
		size_t l = strcspn(s, "\r\n");
		while (l && (s[l - 1] == ' ' || s[l - 1] == '\t'))
			l--;
		if (l)
			out = xstrndup(s, l);
	}
	free(line);
	fclose(f);
	return out;
}
