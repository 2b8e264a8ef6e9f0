/* cmds.c: the command table and the handlers of the REPL's commands. */
#include "cmds.h"
#include "expect.h"
#include "headers.h"
#include "inspect.h"
#include "look.h"
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
	const command *t = command_table(&n);
	if (argc == 2) {
		const command *c = command_find(argv[1]);
		if (!c) {
			const char *names[64];
			for (int i = 0; i < n && i < 64; i++)
				names[i] = t[i].name;
			const char *near = nearest_name(argv[1], names, n < 64 ? n : 64);
			if (near)
				return app_error(a, "no command '%s' (did you mean '%s'?)", argv[1], near);
			return app_error(a, "no command '%s' (type 'help' for the list)", argv[1]);
		}
		app_note(a, "%s%s%s\n  %s", c->name, c->args[0] ? " " : "", c->args, c->help);
		if (strcmp(c->name, "metrics") == 0)
			look_metrics_list(a);
		return 0;
	}
	table tb;
	const char *head[] = { "command", "what it does" };
	table_init(&tb, 2, head, "ll");
	for (int i = 0; i < n; i++) {
		int r = table_row(&tb);
		table_set(&tb, r, 0, "%s%s%s", t[i].name, t[i].args[0] ? " " : "", t[i].args);
		table_set(&tb, r, 1, "%s", t[i].help);
	}
	table_print(&tb, stdout, FMT_TABLE, a->color, 2);
	table_free(&tb);
	app_note(a, "Separate commands with ';'. 'help CMD' for one command.");
	return 0;
}

static int cmd_ls(app *a, int argc, char **argv, const char *rest)
{
	app_ls(a);
	return 0;
}

static int cmd_use(app *a, int argc, char **argv, const char *rest)
{
	return app_use(a, argv[1]);
}

static int cmd_show(app *a, int argc, char **argv, const char *rest)
{
	app_show(a);
	return 0;
}

/* `set N=4096 PAD=0`, `set N = 2*TILE_SIZE`: NAME=EXPR pairs; an
 * expression runs to the next `NAME=`. */
static int cmd_set(app *a, int argc, char **argv, const char *rest)
{
	const char *p = rest;
	int any = 0;
	while (*p) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		const char *n0 = p;
		while (is_ident_char((unsigned char)*p))
			p++;
		const char *n1 = p;
		while (isspace((unsigned char)*p))
			p++;
		if (n1 == n0 || !is_ident_start((unsigned char)*n0) || *p != '=')
			return app_error(a, "set: expected NAME=VALUE, got '%s'", n0);
		p++;
		const char *e0 = p;
		/* find the next NAME= that starts a new assignment */
		const char *q = p, *e1 = NULL;
		while (*q && !e1) {
			if (isspace((unsigned char)q[0])) {
				const char *r = q;
				while (isspace((unsigned char)*r))
					r++;
				const char *id = r;
				while (is_ident_char((unsigned char)*r))
					r++;
				const char *after = r;
				while (isspace((unsigned char)*r))
					r++;
				if (after > id && is_ident_start((unsigned char)*id) && *r == '=' && r[1] != '=') {
					e1 = q;
					break;
				}
			}
			q++;
		}
		if (!e1)
			e1 = p + strlen(p);
		char *name = xstrndup(n0, (size_t)(n1 - n0));
		char *expr = xstrndup(e0, (size_t)(e1 - e0));
		/* trim */
		char *s = expr;
		while (isspace((unsigned char)*s))
			s++;
		size_t l = strlen(s);
		while (l && isspace((unsigned char)s[l - 1]))
			s[--l] = 0;
		int r = *s ? app_set(a, name, s) : app_error(a, "set: no value for '%s'", name);
		free(name);
		free(expr);
		if (r != 0)
			return -1;
		any = 1;
		p = e1;
	}
	if (!any)
		return app_error(a, "usage: set NAME=VALUE [NAME=VALUE...]");
	return 0;
}

static int cmd_unset(app *a, int argc, char **argv, const char *rest)
{
	int rc = 0;
	for (int i = 1; i < argc; i++)
		if (app_unset(a, argv[i]) != 0)
			rc = -1;
	return rc;
}

static int cmd_run(app *a, int argc, char **argv, const char *rest)
{
	free(a->last_run);
	a->last_run = xasprintf("run %s", rest);
	return app_run(a, argv + 1, argc - 1);
}

static int parse_count(app *a, const command *c, const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < lo || v > hi) {
		app_error(a, "%s: '%s' is not a whole number from %ld to %ld", c->name, s, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

static int cmd_reps(app *a, int argc, char **argv, const char *rest)
{
	if (argc == 1) {
		app_note(a, "reps %d (at least this many timed launches)", a->topt.min_reps);
		return 0;
	}
	long v;
	if (parse_count(a, command_find("reps"), argv[1], 1, RES_MAX_SAMPLES, &v) != 0)
		return -1;
	a->topt.min_reps = (int)v;
	return 0;
}

static int cmd_warmup(app *a, int argc, char **argv, const char *rest)
{
	if (argc == 1) {
		app_note(a, "warmup %d", a->topt.warmup);
		return 0;
	}
	long v;
	if (parse_count(a, command_find("warmup"), argv[1], 0, 1000, &v) != 0)
		return -1;
	a->topt.warmup = (int)v;
	return 0;
}

static int on_off(app *a, const char *cmd, int argc, char **argv, int *flag)
{
	if (argc == 1) {
		app_note(a, "%s %s", cmd, *flag ? "on" : "off");
		return 0;
	}
	if (strcmp(argv[1], "on") == 0)
		*flag = 1;
	else if (strcmp(argv[1], "off") == 0)
		*flag = 0;
	else
		return app_error(a, "%s: expected 'on' or 'off', got '%s'", cmd, argv[1]);
	return 0;
}

static int cmd_flush(app *a, int argc, char **argv, const char *rest)
{
	return on_off(a, "flush", argc, argv, &a->topt.flush);
}

static int cmd_check(app *a, int argc, char **argv, const char *rest)
{
	return on_off(a, "check", argc, argv, &a->topt.do_check);
}

static int cmd_batch(app *a, int argc, char **argv, const char *rest)
{
	if (argc == 1) {
		if (a->topt.batch > 1)
			app_note(a, "batch %d (each sample times %d back-to-back launches)", a->topt.batch, a->topt.batch);
		else
			app_note(a, "batch off (one launch between two events per sample)");
		return 0;
	}
	long v;
	if (strcmp(argv[1], "off") == 0) {
		a->topt.batch = 1;
		return 0;
	}
	if (parse_count(a, command_find("batch"), argv[1], 1, 100000, &v) != 0)
		return -1;
	a->topt.batch = (int)v;
	return 0;
}

/* timing [noise X] [min S] [max S] [wall S] [clock kernel|events]: the
 * stopping rule and what times a sample */
static int cmd_timing(app *a, int argc, char **argv, const char *rest)
{
	timing_opts t = a->topt;
	if ((argc - 1) % 2)
		return app_error(a, "usage: timing [noise FRACTION] [min SECONDS] [max SECONDS] [wall SECONDS] "
		                    "[clock kernel|events]");
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "clock") == 0) {
			if (strcmp(argv[i + 1], "kernel") == 0)
				t.clock = CLOCK_KERNEL;
			else if (strcmp(argv[i + 1], "events") == 0)
				t.clock = CLOCK_EVENTS;
			else
				return app_error(a, "timing: clock '%s' is not 'kernel' or 'events'", argv[i + 1]);
			continue;
		}
		char *end;
		double v = strtod(argv[i + 1], &end);
		if (end == argv[i + 1] || *end || !(v >= 0) || v > 3600)
			return app_error(a, "timing: '%s' is not a number from 0 to 3600", argv[i + 1]);
		if (strcmp(argv[i], "noise") == 0)
			t.noise_target = v;
		else if (strcmp(argv[i], "min") == 0)
			t.min_time_s = v;
		else if (strcmp(argv[i], "max") == 0)
			t.max_time_s = v;
		else if (strcmp(argv[i], "wall") == 0)
			t.max_wall_s = v;
		else
			return app_error(a, "timing: unknown setting '%s' (noise, min, max, wall, clock)", argv[i]);
	}
	a->topt = t;
	app_note(a, "timing: at least %d samples; stop once noise <= %.2f%% with %g s of kernel time, "
	         "at %g s of kernel time, or after %g s in the loop; clock: %s", t.min_reps, 100 * t.noise_target,
	         t.min_time_s, t.max_time_s, t.max_wall_s,
	         t.clock == CLOCK_KERNEL ? "kernel (the GPU's timestamps at kernel start and end)"
	                                 : "events (a CUDA event pair around the launch)");
	return 0;
}

static int cmd_timeout(app *a, int argc, char **argv, const char *rest)
{
	if (argc == 1) {
		app_note(a, "timeout %g s", a->timeout_s);
		return 0;
	}
	char *end;
	double v = strtod(argv[1], &end);
	if (end == argv[1] || *end || !(v > 0) || v > 86400)
		return app_error(a, "timeout: '%s' is not a number of seconds (0 to 86400)", argv[1]);
	a->timeout_s = v;
	return 0;
}

static int cmd_format(app *a, int argc, char **argv, const char *rest)
{
	if (argc == 1) {
		app_note(a, "format %s", format_name(a->format));
		return 0;
	}
	if (format_parse(argv[1], &a->format) != 0)
		return app_error(a, "format: expected table, csv, json or markdown, got '%s'", argv[1]);
	return 0;
}

static int cmd_say(app *a, int argc, char **argv, const char *rest)
{
	if (a->color)
		printf("\033[1;36m%s\033[0m\n", rest);
	else
		printf("%s\n", rest);
	fflush(stdout);
	return 0;
}

static int cmd_source(app *a, int argc, char **argv, const char *rest)
{
	int r = source_file(a, argv[1]);
	return r == 0 ? 0 : -1;
}

static int cmd_expect(app *a, int argc, char **argv, const char *rest)
{
	return expect_run(a, argc, argv);
}

static int cmd_pause(app *a, int argc, char **argv, const char *rest)
{
	if (!a->interactive && !a->step)
		return 0; /* batch: no-op */
	FILE *tty = fopen("/dev/tty", "r+");
	FILE *in = tty ? tty : stdin, *out = tty ? tty : stdout;
	fprintf(out, "%s(press Enter to go on)%s ", a->color ? "\033[2m" : "", a->color ? "\033[0m" : "");
	fflush(out);
	int c;
	while ((c = fgetc(in)) != EOF && c != '\n')
		;
	if (tty)
		fclose(tty);
	return 0;
}

static int cmd_record(app *a, int argc, char **argv, const char *rest)
{
	if (argc == 1) {
		app_note(a, "record %s", a->record_fd >= 0 ? a->record_path : "off");
		return 0;
	}
	if (a->record_fd >= 0) {
		close(a->record_fd);
		a->record_fd = -1;
		app_note(a, "recorded to %s", a->record_path);
		free(a->record_path);
		a->record_path = NULL;
	}
	if (strcmp(argv[1], "off") == 0)
		return 0;
	/* appended line by line: a crash loses nothing written so far */
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return app_error(a, "record: cannot open '%s': %s", argv[1], strerror(errno));
	a->record_fd = fd;
	a->record_path = xstrdup(argv[1]);
	a->record_depth = a->source_depth;
	if (a->sp) {
		/* start from where we are: the file and the values set */
		sbuf b = {0};
		sb_printf(&b, "use %s\n", a->path);
		for (int i = 0; i < a->settings.n; i++) {
			char v[64];
			value_format(a->settings.v[i].v, v, sizeof v);
			sb_printf(&b, "set %s=%s\n", a->settings.v[i].name, v);
		}
		if (write(fd, b.s, b.len) != (ssize_t)b.len)
			app_error(a, "record: cannot write '%s': %s", argv[1], strerror(errno));
		sb_free(&b);
	}
	app_note(a, "recording to %s ('record off' stops)", argv[1]);
	return 0;
}

static void record_line(app *a, const command *c)
{
	/* the lines of a sourced file are not recorded, only the `source` line:
	 * replaying would run them twice, and sourcing the file being recorded
	 * would grow it as fast as it is read, without end */
	if (a->record_fd < 0 || !a->cmd_text || strcmp(c->name, "record") == 0 ||
	    strcmp(c->name, "quit") == 0 || a->source_depth > a->record_depth)
		return;
	char *line = xasprintf("%s\n", a->cmd_text);
	ssize_t n = write(a->record_fd, line, strlen(line));
	if (n != (ssize_t)strlen(line))
		app_error(a, "record: cannot write '%s': %s", a->record_path, strerror(errno));
	free(line);
}

static int cmd_edit(app *a, int argc, char **argv, const char *rest)
{
	return app_edit(a, argc > 1 ? argv[1] : NULL);
}

static int cmd_watch(app *a, int argc, char **argv, const char *rest)
{
	if (argc > 1 && strcmp(argv[1], "off") == 0)
		return 0; /* not watching */
	if (argc > 1 && strcmp(argv[1], "on") != 0)
		return app_error(a, "watch: expected 'on' or 'off', got '%s'", argv[1]);
	return app_watch(a);
}

static int cmd_sweep(app *a, int argc, char **argv, const char *rest)
{
	return app_sweep(a, argc, argv);
}

static int cmd_compare(app *a, int argc, char **argv, const char *rest)
{
	return app_compare(a, argc, argv);
}

static int cmd_save(app *a, int argc, char **argv, const char *rest)
{
	return app_save(a, argv[1]);
}

static int cmd_plot(app *a, int argc, char **argv, const char *rest)
{
	return app_plot(a, argv[1]);
}

static int cmd_roof(app *a, int argc, char **argv, const char *rest)
{
	return app_roof(a);
}

static int cmd_device(app *a, int argc, char **argv, const char *rest)
{
	return app_device(a, argc, argv);
}

static int cmd_ptx(app *a, int argc, char **argv, const char *rest)
{
	return app_ptx(a, argc > 1 ? argv[1] : NULL);
}

static int cmd_sass(app *a, int argc, char **argv, const char *rest)
{
	return look_sass(a, argc > 1 ? argv[1] : NULL);
}

static int cmd_info(app *a, int argc, char **argv, const char *rest)
{
	return look_info(a, argc, argv);
}

static int cmd_metrics(app *a, int argc, char **argv, const char *rest)
{
	return look_metrics(a, argc, argv);
}

static int cmd_sanitize(app *a, int argc, char **argv, const char *rest)
{
	return look_sanitize(a, argc, argv);
}

static int cmd_include(app *a, int argc, char **argv, const char *rest)
{
	return app_include(a, argc > 1 ? argv[1] : NULL);
}

static int cmd_quit(app *a, int argc, char **argv, const char *rest)
{
	a->quit = 1;
	return 0;
}

static const command commands[] = {
	{ "help", cmd_help, "[COMMAND]", "list the commands, or explain one", 0, 1, 0, COMPL_COMMAND, NULL },
	{ "ls", cmd_ls, "", "list the kernel files in kernels_src/", 0, 0, 0, COMPL_NONE, NULL },
	{ "use", cmd_use, "FILE", "load a kernel file (kernels_src/FILE.cu)", 1, 1, 0, COMPL_FILE, NULL },
	{ "show", cmd_show, "", "show the loaded file: defines, params, buffers, kernels, options", 0, 0, 0, COMPL_NONE, NULL },
	{ "set", cmd_set, "NAME=VALUE...", "set a define (recompiles) or a param (no recompile)", 1, -1, CMD_NEEDS_FILE, COMPL_NAME, NULL },
	{ "unset", cmd_unset, "NAME...", "return names to the file's default", 1, -1, CMD_NEEDS_FILE, COMPL_NAME, NULL },
	{ "run", cmd_run, "[KERNEL...|all]", "compile, launch, check and time kernels (default: all)", 0, -1, CMD_NEEDS_FILE, COMPL_KERNEL, NULL },
	{ "sweep", cmd_sweep, "NAME=v1,v2,... [NAME=...] [KERNEL...]", "run every combination of values; table, chart, best marked", 1, -1, CMD_NEEDS_FILE, COMPL_NAME, NULL },
	{ "compare", cmd_compare, "KERNEL[NAME=V,...] KERNEL[...]...", "interleaved runs of variants: speedup over the first and a verdict", 2, -1, CMD_NEEDS_FILE, COMPL_KERNEL, NULL },
	{ "save", cmd_save, "FILE", "write the last results (.csv, .json, .md or the current format)", 1, 1, 0, COMPL_NONE, NULL },
	{ "plot", cmd_plot, "FILE.svg", "write the last comparison or sweep as an SVG bar chart", 1, 1, 0, COMPL_NONE, NULL },
	{ "info", cmd_info, "[KERNEL...]", "registers, shared memory, spills, occupancy and its limit; what changed since the last look", 0, -1, CMD_NEEDS_FILE, COMPL_KERNEL, NULL },
	{ "ptx", cmd_ptx, "[KERNEL]", "show the PTX NVRTC made of a kernel, with its source lines", 0, 1, CMD_NEEDS_FILE, COMPL_KERNEL, NULL },
	{ "sass", cmd_sass, "[KERNEL]", "show the machine code (SASS) of a kernel, with its source lines", 0, 1, CMD_NEEDS_FILE, COMPL_KERNEL, NULL },
	{ "metrics", cmd_metrics, "[KERNEL...] [METRIC|SET...] | on|off | list",
	  "hardware counters of one launch: memory traffic, sectors per request, bank conflicts, occupancy", 0, -1, 0, COMPL_KERNEL, NULL },
	{ "sanitize", cmd_sanitize, "[memcheck|racecheck|synccheck|initcheck] [KERNEL]",
	  "one launch under compute-sanitizer: out-of-bounds accesses, races, bad syncs, uninitialised reads", 0, 2, CMD_NEEDS_FILE, COMPL_KERNEL, NULL },
	{ "roof", cmd_roof, "", "measure the device's memory bandwidth and FP32 FMA throughput", 0, 0, 0, COMPL_NONE, NULL },
	{ "device", cmd_device, "[N]", "show the GPU, or switch to GPU N (settings kept)", 0, 1, 0, COMPL_NONE, NULL },
	{ "reps", cmd_reps, "[N]", "time at least N launches (default 10)", 0, 1, 0, COMPL_NONE, NULL },
	{ "warmup", cmd_warmup, "[N]", "untimed launches before timing (default 2)", 0, 1, 0, COMPL_NONE, NULL },
	{ "timing", cmd_timing, "[noise X] [min S] [max S] [wall S] [clock kernel|events]", "the stopping rule: noise target, kernel-time floor and cap, wall cap; what times a sample", 0, -1, 0, COMPL_WORDS, "noise min max wall clock kernel events" },
	{ "batch", cmd_batch, "[N|off]", "time N back-to-back launches per sample, for kernels shorter than a launch", 0, 1, 0, COMPL_WORDS, "off 10 100 1000" },
	{ "flush", cmd_flush, "[on|off]", "write an L2-sized buffer before each timed launch (cold cache)", 0, 1, 0, COMPL_WORDS, "on off" },
	{ "check", cmd_check, "[on|off]", "compare outputs with the reference on each run", 0, 1, 0, COMPL_WORDS, "on off" },
	{ "timeout", cmd_timeout, "[SECONDS]", "stop a kernel that makes no progress for this long (default 10)", 0, 1, 0, COMPL_NONE, NULL },
	{ "format", cmd_format, "[table|csv|json|markdown]", "how results are printed", 0, 1, 0, COMPL_WORDS, "table csv json markdown" },
	{ "expect", cmd_expect, "KERNEL[SEL] correct | A faster B [by X] | KERNEL gbps|roof|time OP X | KERNEL metric NAME OP X",
	  "check a result of an earlier run; a failure makes the exit status 1", 2, -1, 0, COMPL_KERNEL, NULL },
	{ "pause", cmd_pause, "", "wait for Enter (interactive or --step; nothing in batch mode)", 0, 0, 0, COMPL_NONE, NULL },
	{ "record", cmd_record, "[FILE|off]", "append every command from now on to a session file", 0, 1, 0, COMPL_NONE, NULL },
	{ "edit", cmd_edit, "[FILE]", "open $VISUAL/$EDITOR on the kernel file, then run again", 0, 1, CMD_INTERACTIVE, COMPL_FILE, NULL },
	{ "watch", cmd_watch, "[on|off]", "run again whenever the kernel file is saved", 0, 1, CMD_INTERACTIVE | CMD_NEEDS_FILE, COMPL_WORDS, "on off" },
	{ "say", cmd_say, "TEXT", "print narration (the rest of the line, ';' included)", 0, -1, CMD_WHOLE_LINE, COMPL_NONE, NULL },
	{ "source", cmd_source, "FILE", "run the commands of a session file", 1, 1, 0, COMPL_NONE, NULL },
	{ "include", cmd_include, "[DIR]", "show where #include looks for headers, or add a directory to it", 0, 1, 0, COMPL_FILE, NULL },
	{ "quit", cmd_quit, "", "leave cuplay", 0, 0, 0, COMPL_NONE, NULL },
};

const command *command_table(int *n)
{
	*n = (int)ARRAY_LEN(commands);
	return commands;
}

const command *command_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_LEN(commands); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	if (strcmp(name, "exit") == 0)
		return command_find("quit");
	return NULL;
}

/* s with control characters written \xNN: a stray byte in a session file
 * must show in the message ("unknown command 'show\x1f'", not 'show'). */
static char *visible(const char *s)
{
	sbuf b = {0};
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			sb_printf(&b, "\\x%02x", *p);
		else
			sb_putc(&b, (char)*p);
	return sb_steal(&b);
}

int command_run(app *a, int argc, char **argv, const char *rest)
{
	const command *c = command_find(argv[0]);
	if (!c) {
		const char *names[ARRAY_LEN(commands)];
		for (size_t i = 0; i < ARRAY_LEN(commands); i++)
			names[i] = commands[i].name;
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
	if ((c->flags & CMD_NEEDS_FILE) && !a->sp)
		return app_error(a, "%s: no kernel file loaded: 'use FILE' first (see 'ls')", c->name);
	if ((c->flags & CMD_INTERACTIVE) && !a->interactive)
		return app_error(a, "%s: only at an interactive prompt", c->name);
	record_line(a, c);
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
		const char *s = cmd;
		while (isspace((unsigned char)*s))
			s++;
		size_t l = strlen(s);
		while (l && isspace((unsigned char)s[l - 1]))
			((char *)s)[--l] = 0;
		if (*s && *s != '#') {
			int go = 1;
			/* --step waits before commands; narration flows */
			if (step_hook && !(wc && strcmp(wc->name, "say") == 0))
				go = step_hook(a, s);
			if (!go) {
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
		if (failed && a->bail)
			break;
	}
	return failed;
}

/* The files being sourced, by depth: a file that sources itself, directly
 * or through others, is refused at once. Without this only the depth limit
 * stopped it, after an amount of work exponential in the number of its
 * `source` lines (two lines: 65536 nested opens and as many messages). */
static struct { dev_t dev; ino_t ino; } sourcing[SOURCE_DEPTH_MAX];

int source_file(app *a, const char *path)
{
	int d = a->source_depth;
	if (d >= SOURCE_DEPTH_MAX)
		return app_error(a, "source '%s': nested %d deep, too deep", path, SOURCE_DEPTH_MAX), 1;
	FILE *f = fopen(path, "r");
	if (!f) {
		app_error(a, "cannot open session '%s': %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fileno(f), &st) == 0) {
		for (int i = 0; i < d; i++)
			if (sourcing[i].ino && sourcing[i].dev == st.st_dev && sourcing[i].ino == st.st_ino) {
				fclose(f);
				return app_error(a, "source '%s': already being read (a session cannot source itself, "
				                 "directly or through another)", path), 1;
			}
		sourcing[d].dev = st.st_dev;
		sourcing[d].ino = st.st_ino;
	}
	int failed = source_stream(a, f, path);
	sourcing[d].dev = 0;
	sourcing[d].ino = 0;
	fclose(f);
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
			if (a->bail)
				break;
			continue;
		}
		failed += command_line(a, line);
		if (g_interrupt) {
			app_error(a, "interrupted: replay of '%s' stopped", path);
			failed++;
			break;
		}
		if (failed && a->bail)
			break;
	}
	free(line);
	a->source_depth--;
	a->in_file = saved_file;
	a->in_line = saved_line;
	return failed;
}
