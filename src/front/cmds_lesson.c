/* cmds_lesson.c: the commands of lessons and the session: say, lessons, expect, pause, record, quit; each command's entry beside its handler. */
#include "cmds_lesson.h"
#include "say.h"
#include "ccserver.h"
#include "diagnose.h"
#include "expect.h"
#include "fileio.h"
#include "headers.h"
#include "help.h"
#include "metrics.h"
#include "search.h"
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

static int cmd_say(app *a, int argc, char **argv, const char *rest)
{
	char *bad = NULL;
	char *text = say_expand(a, rest, &bad);
	FILE *f = app_textf(a);
	if (a->opt.color)
		fprintf(f, "\033[1;36m%s\033[0m\n", text);
	else
		fprintf(f, "%s\n", text);
	fflush(f);
	free(text);
	if (bad) {
		app_error(a, "say: '{%s}' is not a figure (gpu, sms, l2, mem; median, gbps, roof, gflops KERNEL; "
		          "speedup A B; line KERNEL FIGURE TEXT; '{{' for a brace)", bad);
		free(bad);
		return -1;
	}
	return 0;
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
	if (a->display) { /* a notebook: no Enter to wait for */
		app_note(a, "pause: waits for Enter at a terminal; a notebook goes straight on");
		return 0;
	}
	if (!a->opt.interactive && !a->opt.step)
		return 0; /* batch: no-op */
	FILE *tty = fopen("/dev/tty", "r+");
	FILE *in = tty ? tty : stdin, *out = tty ? tty : stdout;
	fprintf(out, "%s(press Enter to go on)%s ", a->opt.color ? "\033[2m" : "", a->opt.color ? "\033[0m" : "");
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
		ssize_t w = write(a->recording.fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = w < 0 ? errno : EIO;
			close(a->recording.fd);
			a->recording.fd = -1;
			app_error(a, "record: cannot write '%s': %s: recording stopped", a->recording.path, strerror(e));
			free(a->recording.path);
			a->recording.path = NULL;
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
		app_note(a, "record %s", a->recording.fd >= 0 ? a->recording.path : "off");
		return 0;
	}
	if (a->recording.fd >= 0) {
		int bad = close(a->recording.fd) != 0;
		a->recording.fd = -1;
		if (bad)
			app_error(a, "record: cannot write '%s': %s", a->recording.path, strerror(errno));
		else
			app_note(a, "recorded to %s", a->recording.path);
		free(a->recording.path);
		a->recording.path = NULL;
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
	a->recording.fd = fd;
	a->recording.path = xstrdup(argv[1]);
	a->recording.depth = a->source_depth;
	if (a->file.sp) {
		/* start from where we are: the file and the values set */
		sbuf b = {0};
		sb_printf(&b, "use %s\n", a->file.path);
		for (int i = 0; i < a->file.settings.n; i++) {
			char v[64];
			value_format(a->file.settings.v[i].v, v, sizeof v);
			sb_printf(&b, "set %s=%s\n", a->file.settings.v[i].name, v);
		}
		int bad = record_write(a, b.s, b.len);
		sb_free(&b);
		if (bad)
			return -1;
	}
	app_note(a, "recording to %s ('record off' stops)", argv[1]);
	return 0;
}

void record_line(app *a, const command *c)
{
	/* the lines of a sourced file are not recorded, only the `source` line:
	 * replaying would run them twice, and sourcing the file being recorded
	 * would grow it as fast as it is read, without end */
	if (a->recording.fd < 0 || !a->cmd_text || strcmp(c->name, "record") == 0 ||
	    strcmp(c->name, "quit") == 0 || a->source_depth > a->recording.depth)
		return;
	char *line = xasprintf("%s\n", a->cmd_text);
	record_write(a, line, strlen(line));
	free(line);
}

static int cmd_quit(app *a, int argc, char **argv, const char *rest)
{
	a->quit = 1;
	return 0;
}

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
const command cmd_say_entry = {
	.name = "say",
	.fn = cmd_say,
	.args = "TEXT",
	.help = "print narration (the rest of the line)",
	.min_args = 0,
	.max_args = -1,
	.flags = CMD_WHOLE_LINE,
	.compl = COMPL_NONE,
	.long_help = lh_say,
};

static const char lh_lessons[] =
	"Lists the lessons (sessions/*.session in ./sessions, CUPLAY_PATH and the lessons that "
	"come with cuplay), each with the first comment line of its file. 'source NAME' replays "
	"one here; 'cuplay --step NAME' replays one command at a time, for a projector.\n"
	"\n"
	"Example:\n"
	"  lessons\n";
const command cmd_lessons_entry = {
	.name = "lessons",
	.fn = cmd_lessons,
	.args = "",
	.help = "list the lessons, each with its summary",
	.min_args = 0,
	.max_args = 0,
	.compl = COMPL_NONE,
	.long_help = lh_lessons,
};

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
const command cmd_expect_entry = {
	.name = "expect",
	.fn = cmd_expect,
	.args = "KERNEL[SEL] correct | A faster|slower B [by X] | KERNEL gbps|roof|time|gflops|overlap OP X " "| KERNEL metric NAME OP X | KERNEL bound|limiter|rule [not] NAME",
	.help = "check an earlier result (a lab's assertion)",
	.min_args = 2,
	.max_args = -1,
	.compl = COMPL_KERNEL,
	.long_help = lh_expect,
};

static const char lh_pause[] =
	"Waits for Enter: in a lesson, time to talk. Only at the prompt or with --step; a "
	"replay goes straight on.\n"
	"\n"
	"Example:\n"
	"  pause\n";
const command cmd_pause_entry = {
	.name = "pause",
	.fn = cmd_pause,
	.args = "",
	.help = "wait for Enter (at the prompt or with --step)",
	.min_args = 0,
	.max_args = 0,
	.compl = COMPL_NONE,
	.long_help = lh_pause,
};

static const char lh_record[] =
	"Appends every command from now on to a session file, starting with the 'use' and "
	"'set' lines that bring back where you are; 'record off' stops. Replay the file with "
	"'source FILE' or 'cuplay FILE'. A write that fails (a full disk) stops the recording, "
	"with one error.\n"
	"\n"
	"Examples:\n"
	"  record padding.session\n"
	"  record off\n";
const command cmd_record_entry = {
	.name = "record",
	.fn = cmd_record,
	.args = "[FILE|off]",
	.help = "append the commands from now on to a session file",
	.min_args = 0,
	.max_args = 1,
	.compl = COMPL_PATH,
	.long_help = lh_record,
};

static const char lh_quit[] =
	"Leaves cuplay (so does 'exit', or Ctrl-D at the prompt).\n"
	"\n"
	"Example:\n"
	"  quit\n";
const command cmd_quit_entry = {
	.name = "quit",
	.fn = cmd_quit,
	.args = "",
	.help = "leave cuplay",
	.min_args = 0,
	.max_args = 0,
	.compl = COMPL_NONE,
	.long_help = lh_quit,
};
