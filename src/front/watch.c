/* watch.c: edit and watch. */
#include "watch.h"
#include "files.h"
#include "search.h"
#include "child.h"

#include <errno.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int rerun(app *a, line_runner run_line)
{
	const char *line = a->results.last_run ? a->results.last_run : "run";
	char *copy = xstrdup(line);
	int r = run_line(a, copy);
	free(copy);
	return r;
}

static int same_file(const char *x, const char *y)
{
	struct stat sx, sy;
	return stat(x, &sx) == 0 && stat(y, &sy) == 0 && sx.st_dev == sy.st_dev && sx.st_ino == sy.st_ino;
}

int app_edit(app *a, const char *name, line_runner run_line)
{
	/* a name resolves as `use` resolves it: kernels_src/NAME.cu, ... */
	char *path = name ? search_find(SEARCH_KERNELS, name) : a->file.path ? xstrdup(a->file.path) : NULL;
	if (!path && name)
		return app_use(a, name); /* says what there is instead */
	if (!path)
		return app_error(a, "edit: no kernel file: 'use FILE' first, or 'edit FILE'");
	const char *ed = getenv("VISUAL");
	if (!ed || !*ed)
		ed = getenv("EDITOR");
	if (!ed || !*ed)
		ed = "vi";
	fflush(stdout);
	/* $EDITOR may carry arguments ("code -w"): let sh split it; the file
	 * goes in as "$1", never through the shell's parser */
	char *cmd = xasprintf("%s \"$1\"", ed);
	char *argv[] = { (char *)"sh", (char *)"-c", cmd, (char *)"sh", path, NULL };
	child_opts o;
	child_opts_init(&o);
	o.path = "/bin/sh";
	o.argv = argv;
	pid_t pid = child_start(&o);
	int e = errno;
	free(cmd);
	if (pid < 0) {
		free(path);
		return app_error(a, "edit: cannot start '%s': %s", ed, strerror(e));
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127) {
		free(path);
		return app_error(a, "edit: cannot run editor '%s' (set VISUAL or EDITOR)", ed);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		app_note(a, "edit: the editor exited with status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	/* run what was edited: the loaded file runs its last `run` again;
	 * another file is loaded and runs whole */
	int r;
	if (a->file.path && same_file(path, a->file.path)) {
		r = rerun(a, run_line) ? -1 : 0;
	} else if (app_use(a, path) == 0) {
		free(a->results.last_run);
		a->results.last_run = NULL;
		r = rerun(a, run_line) ? -1 : 0;
	} else {
		r = -1;
	}
	free(path);
	return r;
}

/* Adds watches on the directories of the file and of its "..." includes:
 * editors often save by writing a new file and renaming it. */
static void add_watches(int fd, const spec *s)
{
	char *p = xstrdup(s->path);
	inotify_add_watch(fd, dirname(p), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE);
	free(p);
	for (int i = 0; i < s->nincludes; i++) {
		char *d = xstrdup(s->path);
		char *inc = xasprintf("%s/%s", dirname(d), s->includes[i]);
		char *q = xstrdup(inc);
		inotify_add_watch(fd, dirname(q), IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE);
		free(q);
		free(inc);
		free(d);
	}
}

/* Does an event name one of the watched files? */
static int relevant(const spec *s, const char *name)
{
	char *p = xstrdup(s->path);
	int hit = strcmp(basename(p), name) == 0;
	free(p);
	for (int i = 0; i < s->nincludes && !hit; i++) {
		const char *b = strrchr(s->includes[i], '/');
		hit = strcmp(b ? b + 1 : s->includes[i], name) == 0;
	}
	return hit;
}

int app_watch(app *a, line_runner run_line)
{
	if (!a->file.sp)
		return app_error(a, "watch: no kernel file: 'use FILE' first");
	int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (fd < 0)
		return app_error(a, "watch: inotify: %s", strerror(errno));
	add_watches(fd, a->file.sp);
	app_note(a, "watching %s: save it to run '%s' again; type commands, or 'watch off' (or Ctrl-C) to stop",
	         a->file.path, a->results.last_run ? a->results.last_run : "run");
	rerun(a, run_line);
	g_interrupt = 0;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int rc = 0;
	while (!g_interrupt && !a->quit) {
		struct pollfd pf[2] = { { fd, POLLIN, 0 }, { STDIN_FILENO, POLLIN, 0 } };
		int n = poll(pf, 2, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = app_error(a, "watch: poll: %s", strerror(errno));
			break;
		}
		if (pf[0].revents & POLLIN) {
			int hit = 0;
			/* debounce: one save is often several events; after one that
			 * names a watched file, collect them until 100 ms pass quiet,
			 * 500 ms at most: another file of the folder that never stops
			 * changing never holds typed commands back */
			uint64_t t0 = now_ns();
			while (!g_interrupt && ms_since(t0) < 500) {
				ssize_t len = read(fd, buf, sizeof buf);
				if (len <= 0) {
					struct pollfd q = { fd, POLLIN, 0 };
					int left = 500 - (int)ms_since(t0);
					if (!hit || left <= 0 || poll(&q, 1, left < 100 ? left : 100) <= 0)
						break;
					continue;
				}
				for (char *p = buf; p < buf + len;) {
					struct inotify_event *ev = (struct inotify_event *)p;
					if (ev->len && relevant(a->file.sp, ev->name))
						hit = 1;
					p += sizeof *ev + ev->len;
				}
			}
			if (hit) {
				app_note(a, "-- %s saved", a->file.path);
				rerun(a, run_line); /* compile errors print; watching goes on */
				/* a new include may have appeared */
				add_watches(fd, a->file.sp);
			}
		}
		if (pf[1].revents & (POLLIN | POLLHUP)) {
			char *line = NULL;
			size_t cap = 0;
			ssize_t l = getline(&line, &cap, stdin);
			if (l < 0) {
				free(line);
				break;
			}
			while (l > 0 && (line[l - 1] == '\n' || line[l - 1] == '\r'))
				line[--l] = 0;
			int stop = strcmp(line, "watch off") == 0 || strcmp(line, "q") == 0 || strcmp(line, "off") == 0;
			if (!stop && *line)
				run_line(a, line);
			free(line);
			if (stop)
				break;
		}
	}
	close(fd);
	app_note(a, "watch off");
	g_interrupt = 0;
	return rc;
}
