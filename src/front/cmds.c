/* cmds.c: the one command table (each entry beside its handler in
 * cmds_*.c), the dispatcher, and the commands that run lines through it:
 * help, source, edit and watch. */
#include "cmds.h"
#include "files.h"
#include "cmds_files.h"
#include "cmds_lesson.h"
#include "cmds_lines.h"
#include "cmds_board.h"
#include "cmds_look.h"
#include "cmds_measure.h"
#include "cmds_settings.h"
#include "ccserver.h"
#include "diagnose.h"
#include "expect.h"
#include "fileio.h"
#include "headers.h"
#include "help.h"
#include "cmd_roof.h"
#include "cmd_timeline.h"
#include "cmd_device.h"
#include "cmd_ptx.h"
#include "pager.h"
#include "cmd_metrics.h"
#include "cmd_info.h"
#include "cmd_sass.h"
#include "cmd_sanitize.h"
#include "metrics.h"
#include "search.h"
#include "troof.h"
#include "watch.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SOURCE_DEPTH_MAX 16


int (*step_hook)(app *a, const char *line);

static int usage(app *a, const command *c)
{
	return app_error(a, "usage: %s%s%s", c->name, c->args[0] ? " " : "", c->args);
}

static int cmd_help(app *a, int argc, char **argv, const char *rest)
{
	int n;
	const command *const *t = command_table(&n);
	char *text = NULL;
	if (argc == 1) {
		text = help_list(t, n);
	} else if ((text = help_topic(argv[1])) == NULL) {
		const command *c = command_find(argv[1]);
		if (!c) {
			const char **names = xcalloc((size_t)n + 8, sizeof *names);
			int k = 0;
			for (int i = 0; i < n; i++)
				names[k++] = t[i]->name;
			for (const char *const *tp = help_topics(); *tp; tp++)
				names[k++] = *tp;
			const char *near = nearest_name(argv[1], names, k);
			free(names);
			if (near)
				return app_error(a, "no command or topic '%s' (did you mean '%s'?)", argv[1], near);
			return app_error(a, "no command or topic '%s' (type 'help' for the list)", argv[1]);
		}
		text = help_command(c);
		if (strcmp(c->name, "metrics") == 0) {
			/* the figures, from the catalogue */
			sbuf b = {0};
			sb_puts(&b, text);
			free(text);
			int nm;
			const metric_def *m = metrics_catalogue(&nm);
			sb_puts(&b, "\nFigures ('metrics list' adds the raw ncu metrics):\n");
			for (int i = 0; i < nm; i++) {
				sb_printf(&b, "  %-19s ", m[i].name);
				sb_wrap(&b, m[i].meaning, 22, 22, HELP_WIDTH);
				sb_putc(&b, '\n');
			}
			sb_puts(&b, "Sets:");
			for (const char *const *s = metrics_set_names(); *s; s++)
				sb_printf(&b, " %s", *s);
			sb_putc(&b, '\n');
			text = sb_steal(&b);
		}
	}
	FILE *f = pager_open(a);
	fputs(text, f);
	pager_close(a, f, NULL, NULL);
	free(text);
	return 0;
}

static int cmd_source(app *a, int argc, char **argv, const char *rest)
{
	int r = source_file(a, argv[1]);
	return r == 0 ? 0 : -1;
}

/* ---- the long help of each command (`help NAME`): paragraphs, then
 * indented examples; help.c lays them out ---- */

static const char lh_help[] =
	"Lists the commands with a line each, or explains one: its usage, what it does, and "
	"examples. The topics explain the kernel file: 'help header' its //@ lines, 'help refs' "
	"the CPU references a check compares with, 'help buffers' what buffers are filled with.\n"
	"\n"
	"Examples:\n"
	"  help\n"
	"  help sweep\n"
	"  help header\n";
static const command cmd_help_entry = {
	.name = "help",
	.fn = cmd_help,
	.args = "[COMMAND|TOPIC]",
	.help = "list the commands, or explain one (or a topic)",
	.min_args = 0,
	.max_args = 1,
	.compl = COMPL_COMMAND,
	.long_help = lh_help,
};

static const char lh_source[] =
	"Runs the commands of a session file, as if typed; an error names file:line. A lesson "
	"is found by name, as 'lessons' lists them: ./sessions, CUPLAY_PATH, then the lessons "
	"that come with cuplay.\n"
	"\n"
	"Examples:\n"
	"  source bank_conflicts\n"
	"  source my_lab.session\n";
static const command cmd_source_entry = {
	.name = "source",
	.fn = cmd_source,
	.args = "FILE|LESSON",
	.help = "run a session file, or a lesson by name",
	.min_args = 1,
	.max_args = 1,
	.compl = COMPL_SESSION,
	.long_help = lh_source,
};

static int cmd_edit(app *a, int argc, char **argv, const char *rest)
{
	return app_edit(a, argc > 1 ? argv[1] : NULL, command_line);
}

static int cmd_watch(app *a, int argc, char **argv, const char *rest)
{
	if (argc > 1 && strcmp(argv[1], "off") == 0)
		return 0; /* not watching */
	if (argc > 1 && strcmp(argv[1], "on") != 0)
		return app_error(a, "watch: expected 'on' or 'off', got '%s'", argv[1]);
	return app_watch(a, command_line);
}

static const char lh_edit[] =
	"Opens $VISUAL or $EDITOR (default vi) on a kernel file, found as 'use' finds it "
	"(default: the loaded one), and when the editor exits runs it: the loaded file its last "
	"'run' line again, another file loaded and run whole.\n"
	"\n"
	"Examples:\n"
	"  edit\n"
	"  edit transpose\n";

static const char lh_watch[] =
	"Runs the last 'run' line again whenever the kernel file, or a header it includes, is "
	"saved: edit in another window and see the result here. Commands can be typed "
	"meanwhile; 'watch off' or Ctrl-C stops.\n"
	"\n"
	"Example:\n"
	"  watch\n";

static const command cmd_edit_entry = {
	.name = "edit",
	.fn = cmd_edit,
	.args = "[FILE]",
	.help = "edit a kernel file in $EDITOR, then run it",
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_INTERACTIVE,
	.compl = COMPL_FILE,
	.long_help = lh_edit,
};

static const command cmd_watch_entry = {
	.name = "watch",
	.fn = cmd_watch,
	.args = "[on|off]",
	.help = "run again whenever the kernel file is saved",
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_INTERACTIVE | CMD_NEEDS_FILE,
	.compl = COMPL_WORDS,
	.words = "on off",
	.long_help = lh_watch,
};

static const command *const commands[] = {
	&cmd_help_entry,
	&cmd_ls_entry,
	&cmd_use_entry,
	&cmd_show_entry,
	&cmd_set_entry,
	&cmd_unset_entry,
	&cmd_run_entry,
	&cmd_sweep_entry,
	&cmd_compare_entry,
	&cmd_save_entry,
	&cmd_plot_entry,
	&cmd_report_entry,
	&cmd_info_entry,
	&cmd_ptx_entry,
	&cmd_sass_entry,
	&cmd_lines_entry,
	&cmd_metrics_entry,
	&cmd_explain_entry,
	&cmd_roofline_entry,
	&cmd_sanitize_entry,
	&cmd_timeline_entry,
	&cmd_roof_entry,
	&cmd_device_entry,
	&cmd_reps_entry,
	&cmd_warmup_entry,
	&cmd_timing_entry,
	&cmd_batch_entry,
	&cmd_flush_entry,
	&cmd_check_entry,
	&cmd_timeout_entry,
	&cmd_format_entry,
	&cmd_expect_entry,
	&cmd_pause_entry,
	&cmd_record_entry,
	&cmd_edit_entry,
	&cmd_watch_entry,
	&cmd_say_entry,
	&cmd_source_entry,
	&cmd_lessons_entry,
	&cmd_include_entry,
	&cmd_submit_entry,
	&cmd_board_entry,
	&cmd_token_entry,
	&cmd_quit_entry,
};

void command_init(app *a)
{
	a->roofs_measure = roof_measure_now; /* app.h says why */
}

const command *const *command_table(int *n)
{
	*n = (int)ARRAY_LEN(commands);
	return commands;
}

const command *command_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(commands); i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	if (strcmp(name, "exit") == 0)
		return command_find("quit");
	return NULL;
}

/* s with control characters written \xNN: a stray byte in a session file
 * must show in the message ("unknown command 'show\x1f'", not 'show'). */
static char *visible(const char *s)
{
	return str_visible(s);
}

int command_run(app *a, int argc, char **argv, const char *rest)
{
	const command *c = command_find(argv[0]);
	if (!c) {
		const char *names[ARRAY_LEN(commands)];
		for (size_t i = 0; i < ARRAY_LEN(commands); i++)
			names[i] = commands[i]->name;
		const char *near = nearest_name(argv[0], names, (int)ARRAY_LEN(commands));
		char *shown = visible(argv[0]);
		if (near)
			app_error(a, "unknown command '%s' (did you mean '%s'?)", shown, near);
		else
			app_error(a, "unknown command '%s' (type 'help')", shown);
		free(shown);
		return -1;
	}
	int nargs = argc - 1;
	if (nargs < c->min_args || (c->max_args >= 0 && nargs > c->max_args))
		return usage(a, c);
	if ((c->flags & CMD_NEEDS_FILE) && !a->file.sp && a->file.use_failed) {
		char *shown = visible(a->file.use_failed);
		app_note(a, "%s: skipped: no kernel file is loaded ('use %s' failed)", c->name, shown);
		free(shown);
		return 0;
	}
	if ((c->flags & CMD_NEEDS_FILE) && !a->file.sp)
		return app_error(a, "%s: no kernel file loaded: 'use FILE' first (see 'ls')", c->name);
	if ((c->flags & CMD_INTERACTIVE) && !a->opt.interactive)
		return app_error(a, "%s: only at an interactive prompt", c->name);
	record_line(a, c);
	app_results_add_history(&a->results, a->cmd_text);
	if ((c->flags & CMD_FRESH_FILE) && a->file.sp && app_reload(a) != 0)
		return -1;
	if (c->flags & CMD_NEEDS_GPU) {
		int gpu = app_gpu(a);
		if (gpu <= 0) {
			if (gpu < 0)
				return -1;
			sbuf b = {0};
			for (int i = 0; i < argc; i++)
				sb_printf(&b, "%s%s", i ? " " : "", argv[i]);
			app_note(a, "%s: skipped (no GPU)", b.s);
			sb_free(&b);
			return 0;
		}
	}
	return c->fn(a, argc, argv, rest);
}

/* Splits one command into words; quotes group. rest: after the first word. */
static int split_words(const char *s, char ***argvp, const char **rest)
{
	char **argv = NULL;
	int argc = 0, cap = 0;
	const char *p = s;
	*rest = "";
	while (*p) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		if (argc == 1)
			*rest = p;
		sbuf w = {0};
		while (*p && !isspace((unsigned char)*p)) {
			if (*p == '"' || *p == '\'') {
				char q = *p++;
				while (*p && *p != q)
					sb_putc(&w, *p++);
				if (*p)
					p++;
			} else {
				sb_putc(&w, *p++);
			}
		}
		if (argc + 2 > cap) {
			cap = cap ? cap * 2 : 8;
			argv = xrealloc(argv, (size_t)cap * sizeof *argv);
		}
		argv[argc++] = sb_steal(&w);
	}
	if (argv)
		argv[argc] = NULL;
	*argvp = argv;
	return argc;
}

int command_line(app *a, const char *line)
{
	int failed = 0;
	const char *p = line;
	while (*p && !a->quit) {
		/* one command: up to a `;` outside quotes */
		const char *e = p;
		char q = 0;
		/* a command that takes the whole line (say) ends at the line's end */
		const char *w = p;
		while (isspace((unsigned char)*w))
			w++;
		size_t wl = 0;
		while (w[wl] && !isspace((unsigned char)w[wl]) && w[wl] != ';')
			wl++;
		char *word = xstrndup(w, wl);
		const command *wc = command_find(word);
		free(word);
		if (wc && (wc->flags & CMD_WHOLE_LINE))
			e = p + strlen(p);
		for (; *e && (q || *e != ';'); e++) {
			if (q && *e == q)
				q = 0;
			else if (!q && (*e == '"' || *e == '\''))
				q = *e;
		}
		char *cmd = xstrndup(p, (size_t)(e - p));
		const char *s = str_trim(cmd);
		if (*s && *s != '#') {
			int go = 1;
			/* --step waits before commands; narration flows */
			if (step_hook && !(wc && strcmp(wc->name, "say") == 0))
				go = step_hook(a, s);
			if (go < 0) {
				app_error(a, "--step: end of input at the prompt: replay stopped before '%s'", s);
				failed++;
			}
			if (go <= 0) {
				a->quit = 1;
				free(cmd);
				break;
			}
			char **argv;
			const char *rest;
			int argc = split_words(s, &argv, &rest);
			a->cmd_text = s;
			if (argc > 0 && command_run(a, argc, argv, rest) != 0)
				failed++;
			a->cmd_text = NULL;
			for (int i = 0; i < argc; i++)
				free(argv[i]);
			free(argv);
		}
		int comment = *s == '#';
		free(cmd);
		if (comment)
			break; /* a comment runs to the end of the line */
		p = *e ? e + 1 : e;
		if (failed && a->opt.bail)
			break;
		if (g_interrupt)
			break; /* Ctrl-C stops the rest of the line too */
	}
	return failed;
}

/* The files being sourced, by depth: a file that sources itself, directly
 * or through others, is refused at once. Without this only the depth limit
 * stopped it, after an amount of work exponential in the number of its
 * `source` lines (two lines: 65536 nested opens and as many messages). */
static struct { dev_t dev; ino_t ino; } sourcing[SOURCE_DEPTH_MAX];

/* "cannot open session 'x': No such file or directory (did you mean 'y'?)" */
static void no_session(app *a, const char *name)
{
	int n;
	search_entry *e = search_list(SEARCH_SESSIONS, &n, NULL, NULL);
	const char **names = xcalloc((size_t)n + 1, sizeof *names);
	for (int i = 0; i < n; i++)
		names[i] = e[i].name;
	const char *near = strchr(name, '/') ? NULL : nearest_name(name, names, n);
	if (near)
		app_error(a, "cannot open session '%s': %s (did you mean '%s'?)", name, strerror(ENOENT), near);
	else
		app_error(a, "cannot open session '%s': %s", name, strerror(ENOENT));
	free(names);
	search_list_free(e, n);
}

void cmds_expect_summary(app *a, const char *name, int held, int failed, int skipped)
{
	if (held + failed + skipped > 0)
		app_note(a, "%s: expectations: %d held, %d failed, %d skipped%s", name, held, failed, skipped,
		         skipped ? " (a skipped one is not checked: exit status 0 says that none failed, not that "
		                   "it held)" : "");
}

int source_file(app *a, const char *name)
{
	int d = a->source_depth;
	if (d >= SOURCE_DEPTH_MAX)
		return app_error(a, "source '%s': nested %d deep, too deep", name, SOURCE_DEPTH_MAX), 1;
	/* a path, or a lesson by name: sessions/NAME.session on the search path */
	char *path = search_find(SEARCH_SESSIONS, name);
	if (!path) {
		const char *kind;
		char *refused = search_refused(SEARCH_SESSIONS, name, &kind);
		if (refused)
			app_error(a, "cannot open session '%s': it is %s, not a file", refused, kind);
		else
			no_session(a, name);
		free(refused);
		return -1;
	}
	/* a regular file only: never waits on a FIFO, never reads a device */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		close(fd);
		app_error(a, "cannot open session '%s': it is %s, not a file", path, file_kind_of_mode(st.st_mode));
		free(path);
		return -1;
	}
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		app_error(a, "cannot open session '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(path);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	if (fstat(fileno(f), &st) == 0) {
		for (int i = 0; i < d; i++)
			if (sourcing[i].ino && sourcing[i].dev == st.st_dev && sourcing[i].ino == st.st_ino) {
				fclose(f);
				app_error(a, "source '%s': already being read (a session cannot source itself, "
				          "directly or through another)", path);
				free(path);
				return 1;
			}
		sourcing[d].dev = st.st_dev;
		sourcing[d].ino = st.st_ino;
	}
	int h = a->expect_held, fl = a->expect_failed, sk = a->expect_skipped;
	int failed = source_stream(a, f, path);
	h = a->expect_held - h, fl = a->expect_failed - fl, sk = a->expect_skipped - sk;
	if (d == 0)
		cmds_expect_summary(a, path, h, fl, sk);
	sourcing[d].dev = 0;
	sourcing[d].ino = 0;
	fclose(f);
	free(path);
	return failed;
}

int source_stream(app *a, FILE *f, const char *path)
{
	const char *saved_file = a->in_file;
	int saved_line = a->in_line;
	a->source_depth++;
	a->in_file = path;
	a->in_line = 0;
	int failed = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while (!a->quit && (n = getline(&line, &cap, f)) >= 0) {
		a->in_line++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		const char *nul = memchr(line, 0, (size_t)n);
		if (nul) {
			app_error(a, "a NUL byte at column %d: the line is not run (is '%s' a text file?)",
			          (int)(nul - line) + 1, path);
			failed++;
			if (a->opt.bail)
				break;
			continue;
		}
		failed += command_line(a, line);
		if (g_interrupt) {
			app_error(a, "interrupted: replay of '%s' stopped", path);
			failed++;
			break;
		}
		if (failed && a->opt.bail)
			break;
	}
	free(line);
	a->source_depth--;
	a->in_file = saved_file;
	a->in_line = saved_line;
	return failed;
}
