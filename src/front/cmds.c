/* cmds.c: the command table and the handlers of the REPL's commands. */
#include "cmds.h"
#include "ccserver.h"
#include "diagnose.h"
#include "expect.h"
#include "fileio.h"
#include "headers.h"
#include "help.h"
#include "inspect.h"
#include "look.h"
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
	const command *t = command_table(&n);
	char *text = NULL;
	if (argc == 1) {
		text = help_list(t, n);
	} else if ((text = help_topic(argv[1])) == NULL) {
		const command *c = command_find(argv[1]);
		if (!c) {
			const char **names = xcalloc((size_t)n + 8, sizeof *names);
			int k = 0;
			for (int i = 0; i < n; i++)
				names[k++] = t[i].name;
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

static int set_pairs(app *a, const char *rest);

/* `set N=4096 PAD=0`, `set N = 2*TILE_SIZE`: NAME=EXPR pairs; an
 * expression runs to the next `NAME=`. All of them or none: after an
 * error the values are those before the command. */
static int cmd_set(app *a, int argc, char **argv, const char *rest)
{
	symtab before = {0};
	for (int i = 0; i < a->settings.n; i++)
		symtab_set(&before, a->settings.v[i].name, a->settings.v[i].v, a->settings.v[i].hidden);
	int r = set_pairs(a, rest);
	if (r != 0) {
		symtab_free(&a->settings);
		a->settings = before;
	} else {
		symtab_free(&before);
	}
	return r;
}

static int set_pairs(app *a, const char *rest)
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
		char *s = str_trim(expr);
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

/* A fraction, or a percentage with '%' ("0.005", "0.5%"), from 0 to 3600. */
static int timing_number(const char *s, int pct_ok, double *v)
{
	char *end;
	*v = strtod(s, &end);
	if (pct_ok && end != s && *end == '%' && end[1] == 0) {
		*v /= 100;
		end++;
	}
	return end == s || *end || !(*v >= 0) || *v > 3600 ? -1 : 0;
}

/* timing [rule interval|noise] [target X] [noise X] [min S] [max S] [wall S]
 * [clock kernel|events]: the stopping rule and what times a sample */
static int cmd_timing(app *a, int argc, char **argv, const char *rest)
{
	timing_opts t = a->topt;
	int min_given = 0, rule_given = 0;
	if ((argc - 1) % 2)
		return app_error(a, "usage: timing [rule interval|noise] [target FRACTION] [noise FRACTION] "
		                    "[min SECONDS] [max SECONDS] [wall SECONDS] [clock kernel|events]");
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
		if (strcmp(argv[i], "rule") == 0) {
			if (strcmp(argv[i + 1], "interval") == 0)
				t.rule = RULE_INTERVAL;
			else if (strcmp(argv[i + 1], "noise") == 0)
				t.rule = RULE_NOISE;
			else
				return app_error(a, "timing: rule '%s' is not 'interval' or 'noise'", argv[i + 1]);
			rule_given = 1;
			continue;
		}
		double v;
		int frac = strcmp(argv[i], "target") == 0 || strcmp(argv[i], "noise") == 0;
		if (timing_number(argv[i + 1], frac, &v) != 0)
			return app_error(a, "timing: '%s' is not a number from 0 to 3600", argv[i + 1]);
		if (strcmp(argv[i], "target") == 0)
			t.target = v;
		else if (strcmp(argv[i], "noise") == 0)
			t.noise_target = v;
		else if (strcmp(argv[i], "min") == 0)
			t.min_time_s = v, min_given = 1;
		else if (strcmp(argv[i], "max") == 0)
			t.max_time_s = v;
		else if (strcmp(argv[i], "wall") == 0)
			t.max_wall_s = v;
		else
			return app_error(a, "timing: unknown setting '%s' (rule, target, noise, min, max, wall, clock)",
			                 argv[i]);
	}
	if (rule_given && !min_given && t.rule != a->topt.rule)
		t.min_time_s = t.rule == RULE_NOISE ? TIMING_MIN_NOISE_S : TIMING_MIN_INTERVAL_S;
	a->topt = t;
	char stop[160];
	if (t.rule == RULE_NOISE)
		snprintf(stop, sizeof stop, "stop once the noise is <= %.2f%%", 100 * t.noise_target);
	else
		snprintf(stop, sizeof stop, "stop once the median's 95%% interval is within +-%.2f%% of it", 100 * t.target);
	app_note(a, "timing: rule %s: at least %d samples; %s with %g s of kernel time, "
	         "at %g s of kernel time, %d samples, or after %g s in the loop; clock: %s",
	         t.rule == RULE_NOISE ? "noise" : "interval", t.min_reps, stop, t.min_time_s, t.max_time_s,
	         t.max_reps, t.max_wall_s,
	         t.clock == CLOCK_KERNEL ? "kernel (the GPU's timestamps at kernel start and end)"
	                                 : "events (a CUDA event pair around the launch)");
	return 0;
}

/* `timeout [SECONDS]`: a kernel's; `timeout compile [SECONDS]`: a compile's. */
static int cmd_timeout(app *a, int argc, char **argv, const char *rest)
{
	int compile = argc > 1 && strcmp(argv[1], "compile") == 0;
	if (argc == 1 + compile) {
		if (compile)
			app_note(a, "timeout compile %g s", ccs_limit());
		else
			app_note(a, "timeout %g s", a->timeout_s);
		return 0;
	}
	if (argc > 2 + compile)
		return app_error(a, "usage: timeout [SECONDS] | timeout compile [SECONDS]");
	const char *arg = argv[1 + compile];
	char *end;
	double v = strtod(arg, &end);
	if (end == arg || *end || !(v > 0) || v > 86400)
		return app_error(a, "timeout: '%s' is not a number of seconds (0 to 86400)", arg);
	if (compile)
		ccs_set_limit(v);
	else
		a->timeout_s = v;
	return 0;
}

static int cmd_format(app *a, int argc, char **argv, const char *rest)
{
	if (argc == 1) {
		app_note(a, "format %s", format_name(a->format));
		return 0;
	}
	out_format f;
	if (format_parse(argv[1], &f) != 0)
		return app_error(a, "format: expected table, csv, json, jsonl or markdown, got '%s'", argv[1]);
	app_format(a, f);
	return 0;
}

static int cmd_say(app *a, int argc, char **argv, const char *rest)
{
	char *bad = NULL;
	char *text = say_expand(a, rest, &bad);
	FILE *f = app_textf(a);
	if (a->color)
		fprintf(f, "\033[1;36m%s\033[0m\n", text);
	else
		fprintf(f, "%s\n", text);
	fflush(f);
	free(text);
	if (bad) {
		app_error(a, "say: '{%s}' is not a figure (gpu, sms, l2, mem; median, gbps, roof, gflops KERNEL; "
		          "speedup A B; '{{' for a brace)", bad);
		free(bad);
		return -1;
	}
	return 0;
}

static int cmd_source(app *a, int argc, char **argv, const char *rest)
{
	int r = source_file(a, argv[1]);
	return r == 0 ? 0 : -1;
}

/* `lessons`: the sessions on the search path, each with the first comment
 * line of its file. */
static int cmd_lessons(app *a, int argc, char **argv, const char *rest)
{
	int n, nd;
	char **dirs;
	search_entry *e = search_list(SEARCH_SESSIONS, &n, &dirs, &nd);
	if (n == 0) {
		app_note(a, "no sessions found (looked in ./sessions, CUPLAY_PATH and the installed ones)");
	} else {
		int w = 0, from = 0;
		for (int i = 0; i < n; i++) {
			int l = (int)strlen(e[i].name);
			w = l > w ? l : w;
			from |= e[i].dir != e[0].dir;
		}
		sbuf b = {0};
		for (int i = 0; i < n; i++) {
			char *sum = search_session_summary(e[i].path);
			sb_printf(&b, "%-*s  ", w, e[i].name);
			char *text = from ? xasprintf("%s [%s]", sum ? sum : "", dirs[e[i].dir]) : NULL;
			sb_wrap(&b, text ? text : sum ? sum : "", w + 2, w + 2, 80);
			sb_putc(&b, '\n');
			free(text);
			free(sum);
		}
		fputs(b.s, app_textf(a));
		sb_free(&b);
		app_note(a, "Replay one with 'source NAME' (or 'cuplay NAME' from the shell; --step on a projector).");
	}
	search_list_free(e, n);
	search_strv_free(dirs, nd);
	return 0;
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

/* Appends to the file being recorded. A write that fails stops the
 * recording, with one error: 0, or -1 when it stopped. */
static int record_write(app *a, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(a->record_fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;
			close(a->record_fd);
			a->record_fd = -1;
			app_error(a, "record: cannot write '%s': %s: recording stopped", a->record_path, strerror(e));
			free(a->record_path);
			a->record_path = NULL;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static int cmd_record(app *a, int argc, char **argv, const char *rest)
{
	if (argc == 1) {
		app_note(a, "record %s", a->record_fd >= 0 ? a->record_path : "off");
		return 0;
	}
	if (a->record_fd >= 0) {
		int bad = close(a->record_fd) != 0;
		a->record_fd = -1;
		if (bad)
			app_error(a, "record: cannot write '%s': %s", a->record_path, strerror(errno));
		else
			app_note(a, "recorded to %s", a->record_path);
		free(a->record_path);
		a->record_path = NULL;
	}
	if (strcmp(argv[1], "off") == 0)
		return 0;
	/* appended line by line: a crash loses nothing written so far */
	char *why = NULL;
	int fd = open_append(argv[1], &why);
	if (fd < 0) {
		app_error(a, "record: cannot open '%s': %s", argv[1], why);
		free(why);
		return -1;
	}
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
		int bad = record_write(a, b.s, b.len);
		sb_free(&b);
		if (bad)
			return -1;
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
	record_write(a, line, strlen(line));
	free(line);
}

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
	if (a->plot_timeline)
		return app_timeline_svg(a, argv[1]);
	return app_plot(a, argv[1]);
}

static int cmd_timeline(app *a, int argc, char **argv, const char *rest)
{
	return app_timeline(a, argc > 1 ? argv[1] : NULL);
}

static int cmd_report(app *a, int argc, char **argv, const char *rest)
{
	return app_report(a, argv[1]);
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

static int cmd_explain(app *a, int argc, char **argv, const char *rest)
{
	return app_explain(a, argc, argv);
}

static int cmd_roofline(app *a, int argc, char **argv, const char *rest)
{
	return app_roofline(a, argc > 1 ? argv[1] : NULL);
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
static const char lh_ls[] =
	"Lists the kernel files, each with its number of kernels and the first comment line of the "
	"file. They are looked for in ./kernels_src, then in DIR/kernels_src for each DIR of "
	"CUPLAY_PATH (colon-separated), then in the kernel files that come with cuplay; when "
	"files come from more than one of these, a column says where. A file hides one of the "
	"same name further down that path. '*' marks the loaded file.\n"
	"\n"
	"Example:\n"
	"  ls\n";
static const char lh_use[] =
	"Loads a kernel file: its //@ header, its kernels and its values. FILE is a name looked "
	"for as 'ls' lists them (transpose is kernels_src/transpose.cu), or a path. The values set "
	"for a file stay with it: back to a file, its settings are back too.\n"
	"\n"
	"Examples:\n"
	"  use transpose\n"
	"  use ../mine/kernels_src/stencil.cu\n";
static const char lh_show[] =
	"Shows the loaded file: each define and param with its value, whether it was set, and "
	"its default; the buffers; the kernels; the timing options and the GPU.\n"
	"\n"
	"Example:\n"
	"  show\n";
static const char lh_set[] =
	"Sets defines and params of the loaded file. A define is a -D macro: a change "
	"recompiles. A param is a kernel argument: no recompile. A value is an expression of "
	"the other names and SM_COUNT, WARP_SIZE, L2_BYTES ('help header'). Its type comes from "
	"the kernel parameters it binds to: for a float or double one the arithmetic is in "
	"floating point (5/2 is 2.5); an int one takes whole numbers only, in its range. "
	"Several values in one 'set' are set all together, or none of them on an error.\n"
	"\n"
	"Examples:\n"
	"  set PAD=0\n"
	"  set N=8192 TILE_SIZE=16\n"
	"  set N = 2 * SM_COUNT * 1024\n"
	"  set alpha=5/2\n";
static const char lh_unset[] =
	"Returns defines and params to the defaults the file's header gives them.\n"
	"\n"
	"Examples:\n"
	"  unset PAD\n"
	"  unset N TILE_SIZE\n";
static const char lh_run[] =
	"Compiles the loaded file (cached), launches each kernel, checks its outputs against the "
	"reference and times it: warm-up launches, then samples on a cold L2 until the median is "
	"known to +-0.5% ('timing'); the table gives the median with its 95% interval (146 us "
	"+-0.2%), the range, GB/s and the % of the roof (csv and json also the noise, the "
	"relative standard deviation). "
	"Several kernels get a speedup chart. With no kernel, every kernel of the file but the "
	"'skip' ones. The file is read again on every run, so an edit shows at once. Without a "
	"GPU: registers, shared memory, spills, grid and block of each kernel.\n"
	"\n"
	"Examples:\n"
	"  run\n"
	"  run transpose_tiled\n"
	"  run transpose_naive transpose_tiled\n";
static const char lh_sweep[] =
	"Runs every combination of the values given, for the kernels named (default: all), and "
	"prints a table and a chart with the best marked. A combination that cannot launch (too "
	"many threads, too much shared memory) is a row that says why. With 'on all' the "
	"combinations are spread over every GPU of the machine, one worker each. 'plot' writes "
	"the chart, 'save' the table.\n"
	"\n"
	"Examples:\n"
	"  sweep PAD=0,1\n"
	"  sweep TILE_SIZE=8,16,32 PAD=0,1 transpose_tiled\n"
	"  sweep BLOCK_SIZE=64,128,256,512,1024 on all\n";
static const char lh_compare[] =
	"Runs variants of kernels in turns (A B C A B C ...), so a drift of the clocks hits all "
	"alike, and gives each one's speedup over the first with its 95% interval and a "
	"verdict: faster or slower when the interval lies above or below 1, the same when it "
	"holds 1 and lies within 2% of it, ambiguous otherwise. A variant is a kernel with "
	"values in brackets.\n"
	"\n"
	"Examples:\n"
	"  compare transpose_tiled[PAD=0] transpose_tiled[PAD=1]\n"
	"  compare vadd_naive vadd_float4[BLOCK_SIZE=512]\n";
static const char lh_save[] =
	"Writes the last results table (a run, sweep, comparison or metrics) to FILE: .csv, "
	".json and .md by the name's ending, else in the current format. CSV and JSON carry "
	"raw numbers with the unit in the column name. A file is replaced at once (its mode "
	"kept); a link is written through to its target; /dev/stdout, a pipe or a device is "
	"written in place, never replaced.\n"
	"\n"
	"Examples:\n"
	"  save results.csv\n"
	"  save padding.md\n";
static const char lh_plot[] =
	"Writes the chart of the last comparison, sweep or multi-kernel run as an SVG file; "
	"after 'timeline', the timeline.\n"
	"\n"
	"Example:\n"
	"  plot padding.svg\n";
static const char lh_report[] =
	"Writes what this session measured as a lab report: a self-contained HTML page (.html) "
	"or Markdown (.md). Per kernel file: the source of each kernel run, the results "
	"(check, times, GB/s, roof, GFLOP/s, registers, the GPU's clock and temperature, the "
	"command), the speedups as a chart, the hardware counters; then every command of the "
	"session. Compile-only runs are listed with their resources.\n"
	"\n"
	"Examples:\n"
	"  report lab.html\n"
	"  report lab.md\n";
static const char lh_info[] =
	"Shows what the compiler made of each kernel: registers, shared memory, stack, spills, "
	"the launch, and the occupancy with what limits it. Looked at again, it says what "
	"changed since the last look (after a 'set', say).\n"
	"\n"
	"Examples:\n"
	"  info\n"
	"  info transpose_tiled\n";
static const char lh_ptx[] =
	"Shows the PTX of a kernel (default: the first), with the source lines it came from.\n"
	"\n"
	"Example:\n"
	"  ptx transpose_tiled\n";
static const char lh_sass[] =
	"Shows the machine code (SASS) of a kernel (default: the first), disassembled with "
	"nvdisasm, with the source lines it came from.\n"
	"\n"
	"Example:\n"
	"  sass transpose_tiled\n";
static const char lh_metrics[] =
	"Reads hardware counters in one more launch of each kernel named (default: all) through "
	"CUPTI, as Nsight Compute does: the default set, a named set, or figures and raw ncu "
	"metrics by name. 'metrics on' reads the default set after every run; 'metrics list' "
	"shows every figure with its meaning and raw metrics. Where counters are not "
	"permitted it says how to enable them.\n"
	"\n"
	"Examples:\n"
	"  metrics\n"
	"  metrics transpose_tiled shared\n"
	"  metrics ld_sectors_per_req dram__bytes_read.sum\n"
	"  metrics on\n";
static const char lh_explain[] =
	"Answers the lab's three questions for each kernel named (default: all): what limits "
	"it, memory or compute, and how much is left. One timed run, then one profiled launch "
	"reads the speed of light as Nsight Compute's SOL section does: DRAM, L2, L1/shared "
	"and SM throughput as % of peak, drawn as bars; the busiest is the limiter. The "
	"verdict: launch-bound (within 2x of an empty launch), memory- or compute-bound (the "
	"limiter at 60% or more), else latency-bound. The headroom: the median against the "
	"declared bytes at the measured memory roof (flops at the FMA roof when "
	"compute-bound). Then the rules that fire, each with its evidence and the usual fix: "
	"uncoalesced, bank_conflicts, low_l1_hit, occupancy, divergence, atomics. Where "
	"counters are not permitted it says what timing alone supports and how to enable "
	"them. 'expect K bound|limiter|rule' asserts on the diagnosis.\n"
	"\n"
	"Examples:\n"
	"  explain\n"
	"  explain transpose_tiled\n"
	"  expect transpose_tiled rule bank_conflicts\n";
static const char lh_roofline[] =
	"Places the kernels timed so far (by run or explain) that declare their flops: "
	"arithmetic intensity (flops over the DRAM bytes the counters read, else the declared "
	"bytes, marked) against GFLOP/s, under the measured memory roof's slope and the FP32 "
	"roof's flat top. A chart in the terminal; with FILE.svg, an SVG file as well.\n"
	"\n"
	"Examples:\n"
	"  roofline\n"
	"  roofline tiling.svg\n";
static const char lh_sanitize[] =
	"Runs one launch of a kernel under compute-sanitizer: memcheck (the default) finds "
	"out-of-bounds and misaligned accesses, racecheck shared-memory races, synccheck bad "
	"__syncthreads, initcheck reads of memory never written. Each finding names the source "
	"line.\n"
	"\n"
	"Examples:\n"
	"  sanitize transpose_tiled\n"
	"  sanitize racecheck reduce_shared\n";
static const char lh_roof[] =
	"Measures the GPU's memory ceiling and its FP32 throughput (chains of fused "
	"multiply-adds): the roofs that 'run' gives as a %. The memory roof is the best of a "
	"device-to-device copy and cuplay's streaming kernels (16-byte loads and stores: read "
	"only, write only, copy, tens of thousands of blocks); the datasheet's peak (memory "
	"clock x bus width x 2) is shown beside it, 'unknown' when the driver gives neither. "
	"They are measured once per device, before its first run, and kept in the cache directory, "
	"so later processes start without measuring; 'roof' measures them again. It also measures the host "
	"link, each way, from pageable and from pinned memory (a copy of 64 MiB): the roof of a "
	"run on host data, whose copies could at best go both ways at once at the link's speed.\n"
	"\n"
	"On sm_80 and later it measures the tensor cores too, one roof per precision (FP16 and BF16 "
	"with FP32 accumulate, TF32, INT8, FP8 from sm_89): cuplay's own kernels keep every SM's "
	"tensor cores busy from registers, through mma.sync and, on sm_90, through wgmma (compiled for "
	"sm_90a); the roof is the better of the two, shown beside the datasheet's dense figure (a table "
	"of NVIDIA's datasheets by device name and SM count; 'unknown' for a device not in it). "
	"explain and roofline hold a kernel on the tensor cores against its precision's roof. The tensor "
	"roofs are measured when first needed and kept in the cache directory like the others.\n"
	"\n"
	"Example:\n"
	"  roof\n";
static const char lh_device[] =
	"Shows the GPU in use, or switches to GPU N; every setting is kept. Without a GPU it "
	"says so, and which architecture kernels are compiled for.\n"
	"\n"
	"Examples:\n"
	"  device\n"
	"  device 1\n";
static const char lh_reps[] =
	"Sets the least number of timed launches of each kernel (default 10); more come until "
	"the stopping rule is met ('timing'). Alone: shows it.\n"
	"\n"
	"Example:\n"
	"  reps 50\n";
static const char lh_warmup[] =
	"Sets the number of untimed launches before timing (default 2). Alone: shows it.\n"
	"\n"
	"Example:\n"
	"  warmup 5\n";
static const char lh_timing[] =
	"Sets when sampling stops. The rule 'interval' (the default) samples until the 95% "
	"confidence interval of the median is within +-target of it (target 0.005, or 0.5%); "
	"the interval comes from the samples' order statistics and holds whatever their "
	"distribution; where the samples come in runs (a GPU that holds one speed for several "
	"launches, then another), it is widened for them. The rule 'noise' samples until their relative standard deviation is "
	"under 'noise' (0.005). Either stops only once 'min' seconds of kernel time are "
	"sampled (2 ms for interval, 20 ms for noise: naming a rule sets its own unless min "
	"comes with it), and always at a cap of kernel time (max 0.5 s), of samples (2048) or "
	"of wall time in the loop (wall 1 s; for a kernel under 10 ms, once 'min' is sampled, 100 "
	"of its medians, at least 0.1 s). 'clock kernel' times each launch by the GPU's own "
	"start and end timestamps (the default); 'clock events' by a CUDA event pair, which "
	"also counts the launch's processing. Shows the rule it ends with.\n"
	"\n"
	"Examples:\n"
	"  timing target 0.2%\n"
	"  timing rule noise\n"
	"  timing noise 0.01 max 2\n"
	"  timing clock events\n";
static const char lh_timeline[] =
	"Draws the last timed run's copies and kernels against time, a row a stream, from the "
	"GPU's own timestamps (CUPTI's activity records of one more run after the samples): "
	"'>' a copy in (host to device), '#' a kernel, '<' a copy out. Then what it shows: the "
	"copies' bytes and speed, the share of copy time hidden under kernels (the overlap), "
	"how long copies went both ways at once, and the gaps where nothing ran. Recorded for "
	"runs on host data ('//@ buffer ... host', '//@ streams') and for batches ('batch N', "
	"whose launches show back to back). With FILE.svg, or 'plot FILE.svg' after it, also "
	"as SVG.\n"
	"\n"
	"Examples:\n"
	"  set STREAMS=4\n"
	"  run vadd\n"
	"  timeline\n"
	"  timeline vadd4.svg\n";
static const char lh_batch[] =
	"Times N back-to-back launches per sample, between two events, and divides: for kernels "
	"shorter than a launch. 'batch off' goes back to one launch a sample.\n"
	"\n"
	"Examples:\n"
	"  batch 100\n"
	"  batch off\n";
static const char lh_flush[] =
	"With flush on (the default), a buffer twice the size of the L2 is read before each "
	"timed launch, so every kernel starts with a cold cache; flush off shows warm-cache "
	"behaviour.\n"
	"\n"
	"Example:\n"
	"  flush off\n";
static const char lh_check[] =
	"With check on (the default), every run compares each output with its reference before "
	"timing; check off skips that (a kernel under construction).\n"
	"\n"
	"Example:\n"
	"  check off\n";
static const char lh_timeout[] =
	"Stops a kernel that makes no progress for this many seconds (default 10): the worker "
	"is stopped, every setting is kept, and the next run starts a new one.\n"
	"'timeout compile SECONDS' limits one compile likewise (default 120): NVRTC runs in a "
	"process of its own, which is stopped (so is it on Ctrl-C) and started again.\n"
	"\n"
	"Examples:\n"
	"  timeout 60\n"
	"  timeout compile 30\n";
static const char lh_format[] =
	"Sets how results print: an aligned table (the default), or data: csv, json (one "
	"document for the whole invocation), jsonl (a record a line) or markdown. Data carries "
	"raw numbers with the unit in the field name and null for what is missing; notes and "
	"errors then go to stderr, so stdout holds only data.\n"
	"\n"
	"Example:\n"
	"  format csv\n";
static const char lh_expect[] =
	"Checks a result of an earlier run, as a lab does: a failure prints file:line and makes "
	"the exit status 1. A kernel may carry the values it ran with in brackets. 'correct': "
	"its check passed. 'faster'/'slower': the ratio of medians, above 1 (at least X with "
	"'by X') over its whole 95% interval, which comes from the two medians' intervals; an "
	"interval that holds the bound cannot tell, and fails saying so. gbps, roof (a fraction), time (ms), gflops "
	"and overlap (the share of copy time under kernels in the run's timeline) compare a figure; 'metric' a "
	"hardware counter ('metrics list'). OP is one of < <= > >=. 'bound', 'limiter' and "
	"'rule [not]' check the latest 'explain': bound memory|compute|latency|launch, "
	"limiter dram|l2|l1|sm, rule uncoalesced|bank_conflicts|low_l1_hit|occupancy|"
	"divergence|atomics. Without a GPU it says skipped; without counters, so do "
	"expectations on counters and on a diagnosis timing alone cannot give.\n"
	"\n"
	"Examples:\n"
	"  expect transpose_tiled correct\n"
	"  expect transpose_tiled[PAD=1] faster transpose_tiled[PAD=0] by 1.5\n"
	"  expect vadd_float4 roof > 0.85\n"
	"  expect saxpy_iter[STREAMS=4] overlap > 0.3\n"
	"  expect transpose_tiled[PAD=0] rule bank_conflicts\n"
	"  expect matmul_register_tiled bound compute\n";
static const char lh_pause[] =
	"Waits for Enter: in a lesson, time to talk. Only at the prompt or with --step; a "
	"replay goes straight on.\n"
	"\n"
	"Example:\n"
	"  pause\n";
static const char lh_record[] =
	"Appends every command from now on to a session file, starting with the 'use' and "
	"'set' lines that bring back where you are; 'record off' stops. Replay the file with "
	"'source FILE' or 'cuplay FILE'. A write that fails (a full disk) stops the recording, "
	"with one error.\n"
	"\n"
	"Examples:\n"
	"  record padding.session\n"
	"  record off\n";
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
static const char lh_say[] =
	"Prints the rest of the line, ';' included: the narration of a lesson. Figures in "
	"braces come from the GPU and from earlier runs, so a lesson holds on any card: {gpu}, "
	"{sms}, {l2}, {mem}; {median K}, {gbps K}, {roof K}, {gflops K}, {overlap K} of kernel K's last run "
	"(K may carry [NAME=VALUE]); {speedup A B}, how much faster A ran than B. Write {{ for "
	"a brace. Without a result the figure is '?'.\n"
	"\n"
	"Examples:\n"
	"  say Padding moves each row of the tile to another bank.\n"
	"  say 12 MB fits in the {l2} L2 of the {gpu}.\n"
	"  say PAD=1 ran {speedup transpose_tiled[PAD=1] transpose_tiled[PAD=0]} faster.\n";
static const char lh_source[] =
	"Runs the commands of a session file, as if typed; an error names file:line. A lesson "
	"is found by name, as 'lessons' lists them: ./sessions, CUPLAY_PATH, then the lessons "
	"that come with cuplay.\n"
	"\n"
	"Examples:\n"
	"  source bank_conflicts\n"
	"  source my_lab.session\n";
static const char lh_lessons[] =
	"Lists the lessons (sessions/*.session in ./sessions, CUPLAY_PATH and the lessons that "
	"come with cuplay), each with the first comment line of its file. 'source NAME' replays "
	"one here; 'cuplay --step NAME' replays one command at a time, for a projector.\n"
	"\n"
	"Example:\n"
	"  lessons\n";
static const char lh_include[] =
	"Shows where #include looks for headers: the kernel file's own directory, the "
	"directories its //@ include lines and -I name, and the CUDA toolkit's (CCCL too). "
	"With DIR, adds a directory for every file from now on.\n"
	"\n"
	"Examples:\n"
	"  include\n"
	"  include ../common/include\n";
static const char lh_quit[] =
	"Leaves cuplay (so does 'exit', or Ctrl-D at the prompt).\n"
	"\n"
	"Example:\n"
	"  quit\n";

static const command commands[] = {
	{ "help", cmd_help, "[COMMAND|TOPIC]", "list the commands, or explain one (or a topic)",
	  0, 1, 0, COMPL_COMMAND, NULL, lh_help },
	{ "ls", cmd_ls, "", "list the kernel files, where they come from",
	  0, 0, 0, COMPL_NONE, NULL, lh_ls },
	{ "use", cmd_use, "FILE", "load a kernel file (kernels_src/FILE.cu)", 1, 1, 0, COMPL_FILE, NULL, lh_use },
	{ "show", cmd_show, "", "the loaded file's values, buffers and kernels",
	  0, 0, 0, COMPL_NONE, NULL, lh_show },
	{ "set", cmd_set, "NAME=VALUE...", "set a define (recompiles) or a param (no recompile)",
	  1, -1, CMD_NEEDS_FILE, COMPL_NAME, NULL, lh_set },
	{ "unset", cmd_unset, "NAME...", "return names to the file's default", 1, -1, CMD_NEEDS_FILE, COMPL_NAME, NULL, lh_unset },
	{ "run", cmd_run, "[KERNEL...|all]", "compile, launch, check and time (default: all)",
	  0, -1, CMD_NEEDS_FILE | CMD_FRESH_FILE, COMPL_KERNEL, NULL, lh_run },
	{ "sweep", cmd_sweep, "NAME=v1,v2,... [NAME=...] [KERNEL...] [on all]",
	  "run every combination of values (on all: all GPUs)",
	  1, -1, CMD_NEEDS_FILE | CMD_FRESH_FILE, COMPL_NAME, NULL, lh_sweep },
	{ "compare", cmd_compare, "KERNEL[NAME=V,...] KERNEL[...]...",
	  "interleaved runs of variants, with a verdict",
	  2, -1, CMD_NEEDS_FILE | CMD_FRESH_FILE, COMPL_KERNEL, NULL, lh_compare },
	{ "save", cmd_save, "FILE", "write the last results: .csv, .json or .md",
	  1, 1, 0, COMPL_PATH, NULL, lh_save },
	{ "plot", cmd_plot, "FILE.svg", "write the last chart as an SVG file",
	  1, 1, 0, COMPL_PATH, NULL, lh_plot },
	{ "report", cmd_report, "FILE.html|FILE.md", "write the session's results as a lab report",
	  1, 1, 0, COMPL_PATH, NULL, lh_report },
	{ "info", cmd_info, "[KERNEL...]", "registers, shared memory, spills, occupancy",
	  0, -1, CMD_NEEDS_FILE | CMD_FRESH_FILE, COMPL_KERNEL, NULL, lh_info },
	{ "ptx", cmd_ptx, "[KERNEL]", "the PTX of a kernel, with its source lines",
	  0, 1, CMD_NEEDS_FILE | CMD_FRESH_FILE, COMPL_KERNEL, NULL, lh_ptx },
	{ "sass", cmd_sass, "[KERNEL]", "the machine code (SASS), with its source lines",
	  0, 1, CMD_NEEDS_FILE | CMD_FRESH_FILE, COMPL_KERNEL, NULL, lh_sass },
	{ "metrics", cmd_metrics, "[KERNEL...] [METRIC|SET...] | on|off | list",
	  "hardware counters: traffic, sectors, bank conflicts",
	  0, -1, 0, COMPL_KERNEL, NULL, lh_metrics },
	{ "explain", cmd_explain, "[KERNEL...]", "what limits a kernel, and how much is left",
	  0, -1, CMD_NEEDS_FILE | CMD_FRESH_FILE, COMPL_KERNEL, NULL, lh_explain },
	{ "roofline", cmd_roofline, "[FILE.svg]", "kernels timed so far under the roofs",
	  0, 1, 0, COMPL_PATH, NULL, lh_roofline },
	{ "sanitize", cmd_sanitize, "[memcheck|racecheck|synccheck|initcheck] [KERNEL]",
	  "one launch under compute-sanitizer (memcheck, ...)",
	  0, 2, CMD_NEEDS_FILE | CMD_FRESH_FILE, COMPL_KERNEL, NULL, lh_sanitize },
	{ "timeline", cmd_timeline, "[FILE.svg]", "the last run's copies and kernels by stream, in time",
	  0, 1, 0, COMPL_PATH, NULL, lh_timeline },
	{ "roof", cmd_roof, "", "measure memory, FP32, tensor and host link ceilings",
	  0, 0, CMD_NEEDS_GPU, COMPL_NONE, NULL, lh_roof },
	{ "device", cmd_device, "[N]", "show the GPU, or switch to GPU N", 0, 1, 0, COMPL_NONE, NULL, lh_device },
	{ "reps", cmd_reps, "[N]", "time at least N launches (default 10)", 0, 1, 0, COMPL_NONE, NULL, lh_reps },
	{ "warmup", cmd_warmup, "[N]", "untimed launches before timing (default 2)", 0, 1, 0, COMPL_NONE, NULL, lh_warmup },
	{ "timing", cmd_timing, "[rule interval|noise] [target X] [noise X] [min S] [max S] [wall S] [clock kernel|events]",
	  "when sampling stops; what clock times a sample",
	  0, -1, 0, COMPL_WORDS, "rule interval noise target min max wall clock kernel events", lh_timing },
	{ "batch", cmd_batch, "[N|off]", "time N back-to-back launches per sample",
	  0, 1, 0, COMPL_WORDS, "off 10 100 1000", lh_batch },
	{ "flush", cmd_flush, "[on|off]", "a cold L2 before each timed launch (default on)",
	  0, 1, 0, COMPL_WORDS, "on off", lh_flush },
	{ "check", cmd_check, "[on|off]", "compare outputs with the reference (default on)",
	  0, 1, 0, COMPL_WORDS, "on off", lh_check },
	{ "timeout", cmd_timeout, "[compile] [SECONDS]", "stop a stuck kernel (10 s) or compile (120 s)",
	  0, 2, 0, COMPL_NONE, NULL, lh_timeout },
	{ "format", cmd_format, "[table|csv|json|jsonl|markdown]", "how results print: for people, or as data",
	  0, 1, 0, COMPL_WORDS, "table csv json markdown", lh_format },
	{ "expect", cmd_expect, "KERNEL[SEL] correct | A faster|slower B [by X] | KERNEL gbps|roof|time|gflops|overlap OP X "
	  "| KERNEL metric NAME OP X | KERNEL bound|limiter|rule [not] NAME",
	  "check an earlier result (a lab's assertion)", 2, -1, 0, COMPL_KERNEL, NULL, lh_expect },
	{ "pause", cmd_pause, "", "wait for Enter (at the prompt or with --step)",
	  0, 0, 0, COMPL_NONE, NULL, lh_pause },
	{ "record", cmd_record, "[FILE|off]", "append the commands from now on to a session file",
	  0, 1, 0, COMPL_PATH, NULL, lh_record },
	{ "edit", cmd_edit, "[FILE]", "edit a kernel file in $EDITOR, then run it",
	  0, 1, CMD_INTERACTIVE, COMPL_FILE, NULL, lh_edit },
	{ "watch", cmd_watch, "[on|off]", "run again whenever the kernel file is saved",
	  0, 1, CMD_INTERACTIVE | CMD_NEEDS_FILE, COMPL_WORDS, "on off", lh_watch },
	{ "say", cmd_say, "TEXT", "print narration (the rest of the line)",
	  0, -1, CMD_WHOLE_LINE, COMPL_NONE, NULL, lh_say },
	{ "source", cmd_source, "FILE|LESSON", "run a session file, or a lesson by name",
	  1, 1, 0, COMPL_SESSION, NULL, lh_source },
	{ "lessons", cmd_lessons, "", "list the lessons, each with its summary",
	  0, 0, 0, COMPL_NONE, NULL, lh_lessons },
	{ "include", cmd_include, "[DIR]", "where #include looks for headers; add DIR",
	  0, 1, 0, COMPL_PATH, NULL, lh_include },
	{ "quit", cmd_quit, "", "leave cuplay", 0, 0, 0, COMPL_NONE, NULL, lh_quit },
};

void command_init(app *a)
{
	a->observer = &look_observer;
	a->roof_hook = app_roof_measure;
	a->troof_hook = app_troof_measure;
}

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
	return str_visible(s);
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
	if ((c->flags & CMD_NEEDS_FILE) && !a->sp && a->use_failed) {
		char *shown = visible(a->use_failed);
		app_note(a, "%s: skipped: no kernel file is loaded ('use %s' failed)", c->name, shown);
		free(shown);
		return 0;
	}
	if ((c->flags & CMD_NEEDS_FILE) && !a->sp)
		return app_error(a, "%s: no kernel file loaded: 'use FILE' first (see 'ls')", c->name);
	if ((c->flags & CMD_INTERACTIVE) && !a->interactive)
		return app_error(a, "%s: only at an interactive prompt", c->name);
	record_line(a, c);
	app_history_add(a, a->cmd_text);
	if ((c->flags & CMD_FRESH_FILE) && a->sp && app_reload(a) != 0)
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
		if (failed && a->bail)
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
	if (d == 0 && h + fl + sk > 0)
		app_note(a, "%s: expectations: %d held, %d failed, %d skipped", path, h, fl, sk);
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
