/* main.c: the command line. Everything else lives in the core; this file
 * parses argv (getopt_long), sets up signals, picks interactive, -c or session mode, and
 * decides the exit status: 0 all ran and none failed, 1 a command or expectation
 * failed, 2 usage. */
#include "app.h"
#include "board.h"
#include "ccserver.h"
#include "fileio.h"
#include "cmds.h"
#include "perline.h"
#include "notebook.h"
#include "repl.h"
#include "serve.h"
#include "client.h"
#include "nvrtc.h"
#include "target.h"
#include "verify.h"
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: cuplay [options] [SESSION...]\n"
	"       cuplay [options] -c 'COMMANDS' [-c 'COMMANDS'...]\n"
	"\n"
	"Compile, run, check and time CUDA kernels from kernels_src/.\n"
	"With no arguments: the prompt (commands from stdin when it is no terminal).\n"
	"A SESSION is a file or a lesson's name: 'cuplay bank_conflicts' (see 'lessons').\n"
	"\n"
	"  -c COMMANDS       run commands (separated by ';') and exit; may be repeated\n"
	"  --step            wait for Enter before each session command (projector demos)\n"
	"  --bail            stop at the first error\n"
	"  --no-gpu          compile-only mode even where a GPU exists\n"
	"  --device N        use GPU N (default 0)\n"
	"  --arch sm_XY      compile for this architecture (default: the GPU's, or sm_90);\n"
	"                    sm_XYa, sm_XYf (sm_100a, sm_100f) where NVRTC has them\n"
	"  -I DIR            also look for #include headers in DIR\n"
	"  --format F        table, csv, json, jsonl or markdown\n"
	"  --mask-times      print <t> for every measured figure (golden tests)\n"
	"  --serve           answer a front end (a notebook's kernel) in JSON lines on\n"
	"                    stdin and stdout (docs/formats.md)\n"
	"  --board [OPTIONS] the class board: a server of exercises, submissions and their\n"
	"                    ranking (docs/formats.md, docs/classroom.md)\n"
	"  --notebook LESSON write the lesson as LESSON.ipynb (or the file named after it)\n"
	"  --verify EXERCISE SOURCE|- [--seed N] [--compile-only] [--gpu N] [--name F]\n"
	"                    verify a class board's submission (SOURCE, or stdin) of\n"
	"                    EXERCISE (sessions/exercises/NAME.exercise): one JSON line\n"
	"                    on stdout (docs/formats.md), everything else on stderr\n"
	"  -X, --no-rc       do not read the start-up file ($XDG_CONFIG_HOME/cuplay/rc,\n"
	"                    run at the start of an interactive session only)\n"
	"  -h, --help        this text\n"
	"  --version         the version\n"
	"  --                the end of options: what follows are session files\n"
	"\n"
	"Exit status: 0 every command ran and no expectation failed (one skipped, as\n"
	"without a GPU, is not checked), 1 a command or expectation failed, 2 usage.\n";

static void on_sigint(int sig)
{
	(void)sig;
	g_interrupt = 1;
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "cuplay: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see 'cuplay --help')\n");
	return 2;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static char *self_exe(const char *argv0)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n > 0) {
		buf[n] = 0;
		return xstrdup(buf);
	}
	return xstrdup(argv0);
}

enum {
	OPT_STEP = 256, OPT_BAIL, OPT_NO_GPU, OPT_MASK_TIMES, OPT_DEVICE, OPT_ARCH, OPT_FORMAT,
	OPT_VERSION, OPT_NO_RC, OPT_SERVE, OPT_NOTEBOOK,
};

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "step", no_argument, NULL, OPT_STEP },
	{ "bail", no_argument, NULL, OPT_BAIL },
	{ "no-gpu", no_argument, NULL, OPT_NO_GPU },
	{ "mask-times", no_argument, NULL, OPT_MASK_TIMES },
	{ "no-rc", no_argument, NULL, 'X' },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "arch", required_argument, NULL, OPT_ARCH },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "serve", no_argument, NULL, OPT_SERVE },
	{ "notebook", required_argument, NULL, OPT_NOTEBOOK },
	{ NULL, 0, NULL, 0 },
};

/* The option's name as typed, for messages: "--device", "-c". */
static const char *option_name(int val, char *buf, size_t n)
{
	for (const struct option *o = long_options; o->name; o++)
		if (o->val == val) {
			snprintf(buf, n, "--%s", o->name);
			return buf;
		}
	snprintf(buf, n, "-%c", val);
	return buf;
}

/* The start-up file of an interactive session: $XDG_CONFIG_HOME/cuplay/rc,
 * else ~/.config/cuplay/rc, when there is one. Only interactive sessions
 * read it: -c, session files and piped commands give the same output on
 * every machine. Its errors print as file:line and the session goes on. */
static void run_rc(app *a)
{
	const char *cfg = getenv("XDG_CONFIG_HOME");
	const char *home = getenv("HOME");
	char *path = cfg && *cfg ? xasprintf("%s/cuplay/rc", cfg)
	             : home && *home ? xasprintf("%s/.config/cuplay/rc", home) : NULL;
	struct stat st;
	if (path && stat(path, &st) == 0)
		source_file(a, path);
	free(path);
}

/* "--no" when it is the start of more than one long option: says so. */
static int ambiguous(const char *arg)
{
	if (strncmp(arg, "--", 2) != 0)
		return 0;
	size_t l = strlen(arg) - 2;
	int n = 0;
	char list[256] = "";
	for (const struct option *o = long_options; o->name; o++)
		if (strncmp(o->name, arg + 2, l) == 0) {
			size_t k = strlen(list);
			snprintf(list + k, sizeof list - k, "%s--%s", n++ ? ", " : "", o->name);
		}
	if (n < 2)
		return 0;
	fprintf(stderr, "cuplay: option '%s' is ambiguous (%s)\n(see 'cuplay --help')\n", arg, list);
	return 1;
}

/* The driver keeps its JIT cache under $HOME/.nv unless told otherwise; a
 * HOME that is not a directory is not made by cuplay nor by the driver. */
static void no_home_no_driver_cache(void)
{
	struct stat st;
	const char *home = getenv("HOME");
	if (getenv("CUDA_CACHE_PATH") || (home && home[0] && stat(home, &st) == 0 && S_ISDIR(st.st_mode)))
		return;
	setenv("CUDA_CACHE_DISABLE", "1", 0);
}

/* At the end: was all of the output written? A CSV sent to a full disk
 * must not look complete. Flushes and closes stdout; 1 (said in one line,
 * unless the reader went away: EPIPE) when a write failed. */
static int stdout_failed(void)
{
	int earlier = ferror(stdout);
	errno = 0;
	int flush = fflush(stdout);
	int e = flush ? errno : 0;
	if (earlier && !e) {
		/* the failed write was earlier and stdio kept no reason: the output
		 * is broken already, so one more byte asks the file why */
		if (write(STDOUT_FILENO, "\n", 1) < 0)
			e = errno;
	}
	errno = 0;
	int closed = fclose(stdout);
	if (!closed && !flush && !earlier)
		return 0;
	if (!e && closed)
		e = errno;
	if (e != EPIPE) {
		if (e)
			fprintf(stderr, "cuplay: cannot write the output: %s\n", strerror(e));
		else
			fprintf(stderr, "cuplay: cannot write the output\n");
	}
	return 1;
}

/* What the command line asks for besides the session's settings. */
typedef struct cli {
	const char **commands;     /* -c, in order (it may be given more than once) */
	int ncommands;
	char **files;              /* session files */
	int nfiles;
	int no_rc;                 /* -X */
	int serve;                 /* --serve */
	const char *notebook;      /* --notebook LESSON */
	int done, rc;              /* -h, --version or a bad option: leave with rc */
} cli;

/* Option c (getopt_long's answer) with its value; o->done when the
 * command line says to leave. */
static void option(app *a, cli *o, int c, const char *val, char **argv)
{
	char name[64];
	switch (c) {
	case 'h':
		fputs(usage_text, stdout);
		o->done = 1;
		return;
	case OPT_VERSION:
		printf("cuplay %s\n", CUPLAY_VERSION);
		o->done = 1;
		return;
	case 'c':
		o->commands[o->ncommands++] = val;
		return;
	case OPT_STEP:
		a->opt.step = 1;
		return;
	case OPT_BAIL:
		a->opt.bail = 1;
		return;
	case OPT_NO_GPU:
		a->opt.no_gpu = 1;
		return;
	case OPT_MASK_TIMES:
		a->opt.mask_times = 1;
		return;
	case 'X':
		o->no_rc = 1;
		return;
	case OPT_SERVE:
		o->serve = 1;
		return;
	case OPT_NOTEBOOK:
		o->notebook = val;
		return;
	case 'I': {
		char *err = NULL;
		if (ccache_add_include(&a->cache, val, &err) != 0) {
			o->rc = usage_error("-I: %s", err);
			o->done = 1;
			free(err);
		}
		return;
	}
	case OPT_DEVICE:
		if (parse_int(val, 0, 1023, &a->device) != 0) {
			o->rc = usage_error("--device: '%s' is not a device number", val);
			o->done = 1;
		}
		a->device_set = 1;
		return;
	case OPT_ARCH: {
		/* sm_XY, sm_XYa (arch-specific), sm_XYf (family), or XY: target.h */
		char *w = strncmp(val, "sm_", 3) == 0 ? xstrdup(val) : xasprintf("sm_%s", val);
		arch_target t;
		char *why = NULL;
		if (target_parse(w, (int)strlen(w), &t, &why) != 0 || t.sm == 0) {
			o->rc = usage_error("--arch: '%s' is not an architecture like sm_90, sm_100a or sm_100f", val);
			o->done = 1;
		}
		a->opt.arch_sm = t.sm;
		a->opt.arch_suffix = t.suffix;
		free(why);
		free(w);
		return;
	}
	case OPT_FORMAT: {
		out_format f;
		if (format_parse(val, &f) == 0) {
			app_format(a, f);
		} else {
			o->rc = usage_error("--format: '%s' is not table, csv, json, jsonl or markdown", val);
			o->done = 1;
		}
		return;
	}
	case ':':
		o->rc = usage_error("option '%s' needs a value", option_name(optopt, name, sizeof name));
		o->done = 1;
		return;
	default: {
		/* '?': an unknown option, an ambiguous abbreviation, or a
		 * value given to an option that takes none (--no-gpu=yes) */
		const char *arg = argv[optind - 1];
		if (optopt && optopt != '?' && arg[0] == '-' && arg[1] == '-' && strchr(arg, '=')) {
			o->rc = usage_error("option '%s' takes no value", option_name(optopt, name, sizeof name));
		} else if (optopt && optopt < 256) {
			snprintf(name, sizeof name, "-%c", optopt);
			o->rc = usage_error("unknown option '%s'", name);
		} else {
			snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
			o->rc = ambiguous(name) ? 2 : usage_error("unknown option '%s'", name);
		}
		o->done = 1;
		return;
	}
	}
}

/* GNU getopt_long: options anywhere, `--` ends them, -cCMD and
 * --opt=value; messages are ours (opterr off), worded like the rest. */
static void parse_options(app *a, cli *o, int argc, char **argv)
{
	opterr = 0;
	int c;
	while (!o->done && (c = getopt_long(argc, argv, ":hXc:I:", long_options, NULL)) != -1)
		option(a, o, c, optarg, argv);
	if (o->done)
		return;
	for (int i = optind; i < argc; i++)
		o->files[o->nfiles++] = argv[i];
	if ((o->serve || o->notebook) && (o->ncommands || o->nfiles > (o->notebook ? 1 : 0) || (o->serve && o->notebook))) {
		o->rc = usage_error("%s", o->serve ? "--serve takes its commands from stdin alone"
		                                   : "--notebook takes a lesson and at most the notebook's file");
		o->done = 1;
	} else if (o->ncommands && o->nfiles) {
		o->rc = usage_error("%s", "-c and session files cannot be mixed");
		o->done = 1;
	}
	/* --arch: what the NVRTC in use compiles for, as it says */
	char *why = NULL;
	if (!o->done && a->opt.arch_sm && nvrtc_load(NULL) == 0 &&
	    nvrtc_arch_known(a->opt.arch_sm, a->opt.arch_suffix, &why) != 0) {
		o->rc = usage_error("--arch: %s", why);
		o->done = 1;
	}
	free(why);
}

/* Ctrl-C, SIGPIPE, the terminal; --step needs one. 0, or 2 (said). */
static int front_setup(app *a)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL); /* no SA_RESTART: waits see EINTR */
	signal(SIGPIPE, SIG_IGN);
	a->opt.tty = isatty(STDOUT_FILENO);
	a->opt.color = a->opt.tty && !getenv("NO_COLOR");
	if (!a->opt.step)
		return 0;
	/* --step waits for Enter at the terminal: without one, every replay
	 * would stop at its first command */
	int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (tty < 0) {
		fprintf(stderr, "cuplay: --step waits for Enter at a terminal, and there is none (%s): "
		        "run without --step\n", strerror(errno));
		return 2;
	}
	close(tty);
	step_hook = repl_step;
	return 0;
}

/* The commands of -c, the session files, the prompt, or stdin as a
 * script: how many failed. */
static int run_inputs(app *a, const cli *o)
{
	int failed = 0;
	if (o->serve) {
		int rc = serve_loop(a);
		return rc ? rc : a->nerrors > 0;
	}
	if (o->notebook) {
		char *err = NULL;
		const char *base = strrchr(o->notebook, '/');
		base = base ? base + 1 : o->notebook;
		size_t bl = strcspn(base, ".");
		char *out = o->nfiles ? xstrdup(o->files[0]) : xasprintf("%.*s.ipynb", (int)bl, base);
		if (notebook_write(o->notebook, out, &err) != 0) {
			fprintf(stderr, "cuplay: %s\n", err);
			free(err);
			failed = 1;
		} else {
			printf("wrote %s\n", out);
		}
		free(out);
		return failed;
	}
	if (o->ncommands) {
		for (int i = 0; i < o->ncommands && !a->quit; i++) {
			failed += command_line(a, o->commands[i]);
			if ((failed && a->opt.bail) || g_interrupt)
				break;
		}
	} else if (o->nfiles) {
		for (int i = 0; i < o->nfiles && !a->quit; i++) {
			int r = source_file(a, o->files[i]);
			failed += r < 0 ? 1 : r;
			if ((failed && a->opt.bail) || g_interrupt)
				break;
		}
	} else if (isatty(STDIN_FILENO)) {
		a->opt.interactive = 1;
		printf("cuplay %s: type 'help' for commands, 'ls' for kernel files, 'quit' to leave\n", CUPLAY_VERSION);
		/* the worker starts while the user types; no GPU: said now */
		app_gpu_background(a);
		if (!o->no_rc)
			run_rc(a);
		repl_loop(a);
	} else {
		/* batch: stdin is a script */
		failed = source_stream(a, stdin, "<stdin>");
	}
	return failed;
}

/* `--verify EXERCISE SOURCE|- [--seed N] [--compile-only] [--gpu N] [--name F]`
 * (args after --verify): the JSON line on the first stdout, everything else
 * on stderr. 0 a result printed, 1 none, 2 usage. */
static int verify_main(app *a, int argc, char **argv)
{
	verify_req r = { 0 };
	const char *pos[2];
	int npos = 0;
	for (int i = 0; i < argc; i++) {
		const char *o = argv[i];
		char *end;
		if (strcmp(o, "--compile-only") == 0) {
			r.compile_only = 1;
		} else if (strcmp(o, "--name") == 0) {
			if (i + 1 == argc || !argv[i + 1][0] || strchr(argv[i + 1], '/'))
				return usage_error("%s", "--name takes the submission's file name, without folders");
			r.name = argv[++i];
		} else if (strcmp(o, "--seed") == 0 || strcmp(o, "--gpu") == 0) {
			if (i + 1 == argc)
				return usage_error("option '%s' needs a value", o);
			const char *val = argv[++i];
			errno = 0;
			unsigned long long x = strtoull(val, &end, 0);
			if (errno || end == val || *end || val[0] == '-' || (o[2] == 'g' && x > 1023) || (o[2] == 's' && x == 0))
				return usage_error(o[2] == 'g' ? "--gpu: '%s' is not a device number"
				                               : "--seed: '%s' is not a seed (a whole number above 0)", val);
			if (o[2] == 'g') {
				a->device = (int)x;
				a->device_set = 1;
			} else {
				r.seed = x;
			}
		} else if (o[0] == '-' && o[1]) {
			return usage_error("unknown option '%s' of --verify", o);
		} else if (npos < 2) {
			pos[npos++] = o;
		} else {
			return usage_error("--verify takes an exercise and a source, and '%s' is a third", o);
		}
	}
	if (npos < 2)
		return usage_error("%s", "--verify takes an exercise file and a source file (or - for stdin)");
	r.exercise = pos[0];
	r.source = pos[1];
	fflush(stdout);
	int out = dup(STDOUT_FILENO);
	if (out < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		fprintf(stderr, "cuplay: --verify: %s\n", strerror(errno));
		return 1;
	}
	sbuf json = { 0 };
	int rc = verify_run(a, &r, &json) == 0 ? 0 : 1;
	if (rc == 0) {
		sb_putc(&json, '\n');
		FILE *f = fdopen(out, "w");
		if (!f || fwrite(json.s, 1, json.len, f) != json.len || fclose(f) != 0) {
			fprintf(stderr, "cuplay: cannot write the result: %s\n", strerror(errno));
			rc = 1;
		}
		out = -1;
	}
	if (out >= 0)
		close(out);
	sb_free(&json);
	return rc;
}

int main(int argc, char **argv)
{
	no_home_no_driver_cache();
	if (argc >= 2 && strcmp(argv[1], "--worker") == 0)
		return worker_main(argc - 2, argv + 2);
	if (argc >= 2 && strcmp(argv[1], "--compile-server") == 0)
		return ccs_main(argc - 2, argv + 2);

	file_note_inherited();
	char *exe = self_exe(argv[0]);
	if (argc >= 2 && strcmp(argv[1], "--board") == 0) {
		int rc = board_main(exe, argc - 2, argv + 2);
		free(exe);
		return rc;
	}
	app a;
	app_init(&a, exe);
	command_init(&a);
	/* NVRTC in a child the front end can abandon: Ctrl-C stops a compile */
	ccs_init(exe, &g_interrupt);
	cli o;
	memset(&o, 0, sizeof o);
	o.commands = xcalloc((size_t)argc + 1, sizeof *o.commands);
	o.files = xcalloc((size_t)argc + 1, sizeof *o.files);
	int verify = argc >= 2 && strcmp(argv[1], "--verify") == 0;
	if (!verify)
		parse_options(&a, &o, argc, argv);
	int rc = o.rc;
	if (verify) {
		if ((rc = front_setup(&a)) == 0)
			rc = verify_main(&a, argc - 2, argv + 2);
	} else if (!o.done && (rc = front_setup(&a)) == 0) {
		int failed = run_inputs(&a, &o);
		rc = failed || (!a.opt.interactive && a.nerrors) ? 1 : 0;
	}
	app_free(&a);
	perline_forget();
	ccs_stop();
	file_guards_free();
	free(o.commands);
	free(o.files);
	free(exe);
	if (stdout_failed() && rc == 0)
		rc = 1;
	return rc;
}
