/* fixture.h: what fuzz_cmd and fuzz_session share: a scratch directory
 * that holds a copy of the kernel files, and an app in compile-only mode.
 *
 * At start-up fixture_init() copies kernels_src/ (as kernels_src/), the
 * golden test kernels (as k/) and a few session files (as s/) into a fresh
 * directory under $TMPDIR, points the compile cache there, chdirs into it
 * and silences the program's own output. Every input then runs in a fresh
 * app; fixture_reset() afterwards puts back any fixture file an input
 * changed (`record` appends to files) and removes files an input created,
 * so one input never sees what another left behind.
 *
 * The scratch directory also holds what a careless user names: a FIFO
 * (`fifo`), a directory with a kernel file's name (`dir.cu`), a link to a
 * file not made yet (`link.csv` -> out.csv) and a link to a full device
 * (`full` -> /dev/full), put back as they were after each input.
 *
 * Inputs must not leave the scratch directory: fixture_input_ok() refuses
 * absolute paths, `..` and `~` (a `source /dev/zero` or `record /etc/x`
 * says nothing about cuplay and could hurt the machine).
 *
 * Output: stdout (fd 1) goes to /dev/null. stderr is silenced by pointing
 * the `stderr` stream at /dev/null, not fd 2: libFuzzer keeps its own copy
 * of the original stream and the sanitizers write to fd 2, so their reports
 * and the fuzzer's progress lines still show. The chdir means the fuzzer's
 * corpus and artifact paths must be absolute (the Makefile passes them so).
 * CUPLAY_FUZZ_VERBOSE=1 keeps the output, to see what an input does. */
#ifndef CUPLAY_FUZZ_FIXTURE_H
#define CUPLAY_FUZZ_FIXTURE_H

#include "app.h"
#include "cmds.h"
#include "util.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct fx_file {
	char *rel;   /* path in the scratch directory */
	char *data;
	size_t len;
} fx_file;

static char fx_dir[4096];
static fx_file *fx_files;
static int fx_nfiles;
static const char *const fx_subdirs[] = { ".", "kernels_src", "k", "s" };

static void fx_die(const char *what, const char *path)
{
	dprintf(STDERR_FILENO, "fuzz fixture: %s '%s'\n", what, path); /* fd 2: `stderr` is silenced */
	abort();
}

/* Copies every file of src whose name ends in one of exts into dst/. */
static void fx_copy_dir(const char *src, const char *dst, const char *const *exts, int nexts)
{
	DIR *d = opendir(src);
	if (!d)
		fx_die("cannot open directory", src);
	char *adst = xasprintf("%s/%s", fx_dir, dst);
	if (mkdir_p(adst, 0755) != 0)
		fx_die("cannot create", adst);
	free(adst);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);
		int want = 0;
		for (int i = 0; i < nexts; i++) {
			size_t el = strlen(exts[i]);
			want |= l > el && strcmp(e->d_name + l - el, exts[i]) == 0;
		}
		if (!want)
			continue;
		char *from = xasprintf("%s/%s", src, e->d_name);
		fx_file f = { xasprintf("%s/%s", dst, e->d_name), NULL, 0 };
		if (read_file(from, &f.data, &f.len) != 0)
			fx_die("cannot read", from);
		char *to = xasprintf("%s/%s", fx_dir, f.rel);
		if (write_file_atomic(to, f.data, f.len) != 0)
			fx_die("cannot write", to);
		free(to);
		free(from);
		fx_files = xrealloc(fx_files, ((size_t)fx_nfiles + 1) * sizeof *fx_files);
		fx_files[fx_nfiles++] = f;
	}
	closedir(d);
}

static int fx_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	remove(path);
	return 0;
}

/* What a careless user names, in the scratch directory. */
static const struct fx_special {
	const char *name;
	char kind;          /* 'p' FIFO, 'd' directory, 'l' link */
	const char *target; /* of a link */
} fx_special[] = {
	{ "fifo", 'p', NULL },
	{ "dir.cu", 'd', NULL },
	{ "link.csv", 'l', "out.csv" },
	{ "full", 'l', "/dev/full" },
};

static int fx_is_special(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(fx_special); i++)
		if (strcmp(fx_special[i].name, name) == 0)
			return 1;
	return 0;
}

static int fx_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw);

/* Makes each special entry (again) where it is missing or not as made. */
static void fx_make_special(void)
{
	for (size_t i = 0; i < ARRAY_LEN(fx_special); i++) {
		const struct fx_special *x = &fx_special[i];
		struct stat st;
		int there = lstat(x->name, &st) == 0;
		int right = there && ((x->kind == 'p' && S_ISFIFO(st.st_mode)) ||
		                      (x->kind == 'l' && S_ISLNK(st.st_mode)) ||
		                      (x->kind == 'd' && S_ISDIR(st.st_mode) && st.st_nlink == 2));
		if (x->kind == 'd' && right) {
			DIR *d = opendir(x->name); /* empty? */
			struct dirent *e;
			while (d && (e = readdir(d)) != NULL)
				right &= strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
			if (d)
				closedir(d);
		}
		if (right)
			continue;
		if (there)
			nftw(x->name, fx_rm, 16, FTW_DEPTH | FTW_PHYS);
		int r = x->kind == 'p' ? mkfifo(x->name, 0600) : x->kind == 'd' ? mkdir(x->name, 0755)
		                                                             : symlink(x->target, x->name);
		if (r != 0)
			fx_die("cannot make", x->name);
	}
}

static void fx_cleanup(void)
{
	if (fx_dir[0] && chdir("/") == 0)
		nftw(fx_dir, fx_rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* A time budget for one input: when it runs out, g_interrupt is set, as
 * Ctrl-C does, so a long `sweep` or a deep `source` stops the way a user
 * would stop it (and that path gets fuzzed too). A real-time signal, as
 * libFuzzer owns SIGALRM (-timeout) and SIGUSR1/2; a hang that ignores the
 * flag still trips -timeout and is a finding. */
#define FX_BUDGET_S 10
static timer_t fx_timer;
static int fx_have_timer;

static void fx_on_budget(int sig)
{
	(void)sig;
	g_interrupt = 1;
}

static void fixture_budget_init(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fx_on_budget;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGRTMIN;
	fx_have_timer = sigaction(SIGRTMIN, &sa, NULL) == 0 && timer_create(CLOCK_MONOTONIC, &ev, &fx_timer) == 0;
}

static void fixture_budget(int seconds)
{
	if (!fx_have_timer)
		return;
	struct itimerspec it;
	memset(&it, 0, sizeof it);
	it.it_value.tv_sec = seconds;
	timer_settime(fx_timer, 0, &it, NULL);
}

/* Puts the fixture back as it was: changed files rewritten, new files
 * removed; stops the time budget. A file grown past FX_MAX_FILE is a finding:
 * the budget stops a runaway loop that heeds Ctrl-C, but not what it wrote. */
#define FX_MAX_FILE (4 << 20)
static void fixture_reset(void)
{
	fixture_budget(0);
	g_interrupt = 0;
	for (size_t s = 0; s < ARRAY_LEN(fx_subdirs); s++) {
		DIR *d = opendir(fx_subdirs[s]);
		if (!d)
			continue;
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			char *rel = xasprintf("%s/%s", fx_subdirs[s], e->d_name);
			struct stat st;
			int known = 0;
			for (int i = 0; i < fx_nfiles && !known; i++)
				known = strcmp(fx_files[i].rel, rel) == 0;
			for (size_t j = 0; j < ARRAY_LEN(fx_subdirs) && !known; j++)
				known = s == 0 && strcmp(e->d_name, fx_subdirs[j]) == 0;
			known |= s == 0 && (strcmp(e->d_name, "cache") == 0 || fx_is_special(e->d_name));
			if (lstat(rel, &st) == 0 && !S_ISDIR(st.st_mode) && st.st_size > FX_MAX_FILE)
				fx_die("an input of a few KiB wrote a file of several MiB (runaway output)", rel);
			if (!known && lstat(rel, &st) == 0 && !S_ISDIR(st.st_mode))
				unlink(rel);
			free(rel);
		}
		closedir(d);
	}
	for (int i = 0; i < fx_nfiles; i++) {
		const fx_file *f = &fx_files[i];
		char *now = NULL;
		size_t len = 0;
		int same = read_file(f->rel, &now, &len) == 0 && len == f->len && memcmp(now, f->data, len) == 0;
		free(now);
		if (!same && write_file_atomic(f->rel, f->data, f->len) != 0)
			fx_die("cannot restore", f->rel);
	}
	fx_make_special();
}

/* 0 when the input could reach outside the scratch directory. */
static int fixture_input_ok(const uint8_t *data, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		if (data[i] == '~')
			return 0;
		if (data[i] == '.' && i + 1 < size && data[i + 1] == '.')
			return 0;
		/* a '/' that starts a word is an absolute path; inside a name it is fine */
		if (data[i] == '/' && (i == 0 || !is_ident_char(data[i - 1])))
			return 0;
	}
	return 1;
}

static void fixture_init(void)
{
	char root[4096];
	const char *r = getenv("CUPLAY_ROOT");
	if (r && *r)
		snprintf(root, sizeof root, "%s", r);
	else if (!getcwd(root, sizeof root))
		fx_die("cannot get the working directory", ".");
	const char *tmp = getenv("TMPDIR");
	snprintf(fx_dir, sizeof fx_dir, "%s/cuplay-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fx_dir))
		fx_die("cannot create a directory like", fx_dir);
	atexit(fx_cleanup);

	static const char *const cu_ext[] = { ".cu", ".cuh" };
	static const char *const sess[] = { ".session" };
	char *p = xasprintf("%s/kernels_src", root);
	fx_copy_dir(p, "kernels_src", cu_ext, 2);
	free(p);
	p = xasprintf("%s/tests/golden/kernels", root);
	fx_copy_dir(p, "k", cu_ext, 2);
	free(p);
	p = xasprintf("%s/tests/golden/inc", root);
	fx_copy_dir(p, "s", sess, 1);
	free(p);

	char *cache = xasprintf("%s/cache", fx_dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	free(cache);
	setenv("NO_COLOR", "1", 1);
	fixture_budget_init();
	unsetenv("CUPLAY_TRACE");
	if (chdir(fx_dir) != 0)
		fx_die("cannot enter", fx_dir);
	fx_make_special();

	if (getenv("CUPLAY_FUZZ_VERBOSE"))
		return; /* to see what a reproduced input does */
	int null = open("/dev/null", O_WRONLY);
	FILE *sink = fopen("/dev/null", "w");
	if (null < 0 || !sink || dup2(null, STDOUT_FILENO) < 0)
		fx_die("cannot open", "/dev/null");
	close(null);
	stderr = sink;
}

/* A fresh app for one input: compile-only, times masked, batch mode. */
static void fixture_app(app *a)
{
	g_interrupt = 0;
	fixture_budget(FX_BUDGET_S);
	app_init(a, "cuplay");
	command_init(a);
	a->opt.no_gpu = 1;
	a->opt.mask_times = 1;
}

#endif
