/* main.c: the command line. Everything else lives in the core; this file
 * parses argv, sets up signals, picks interactive, -c or session mode, and
 * decides the exit status: 0 all ran and held, 1 a command or expectation
 * failed, 2 usage. */
#include "app.h"
#include "cmds.h"
#include "repl.h"
#include "worker.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: cuplay [options] [FILE.session...]\n"
	"       cuplay [options] -c 'COMMANDS'\n"
	"\n"
	"Compile, run, check and time CUDA kernels from kernels_src/.\n"
	"With no arguments: an interactive prompt (batch mode when stdin is not a terminal).\n"
	"\n"
	"  -c COMMANDS       run commands (separated by ';') and exit\n"
	"  --step            wait for Enter before each session command (projector demos)\n"
	"  --bail            stop at the first error\n"
	"  --no-gpu          compile-only mode even where a GPU exists\n"
	"  --device N        use GPU N (default 0)\n"
	"  --arch sm_XY      compile for this architecture (default: the GPU's, or sm_90)\n"
	"  -I DIR            also look for #include headers in DIR\n"
	"  --format F        table, csv, json or markdown\n"
	"  --mask-times      print <t> for every measured figure (golden tests)\n"
	"  --help            this text\n"
	"  --version         the version\n"
	"\n"
	"Exit status: 0 all ran and held, 1 a command or expectation failed, 2 usage.\n";

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

int main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "--worker") == 0)
		return worker_main(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));

	char *exe = self_exe(argv[0]);
	app a;
	app_init(&a, exe);
	const char *commands = NULL;
	char **files = xcalloc((size_t)argc + 1, sizeof *files);
	int nfiles = 0;
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		const char *val = NULL;
		/* --opt=value as well as --opt value */
		char name[64];
		const char *eq = strchr(o, '=');
		if (o[0] == '-' && o[1] == '-' && eq && (size_t)(eq - o) < sizeof name) {
			memcpy(name, o, (size_t)(eq - o));
			name[eq - o] = 0;
			o = name;
			val = eq + 1;
		}
#define NEED_VALUE() do { if (!val) { if (i + 1 >= argc) { rc = usage_error("option '%s' needs a value", o); goto out; } val = argv[++i]; } } while (0)
		if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
			fputs(usage_text, stdout);
			goto out;
		} else if (strcmp(o, "--version") == 0) {
			printf("cuplay %s\n", CUPLAY_VERSION);
			goto out;
		} else if (strcmp(o, "-c") == 0) {
			NEED_VALUE();
			commands = val;
		} else if (strncmp(o, "-I", 2) == 0) {
			const char *dir = o[2] ? o + 2 : i + 1 < argc ? argv[++i] : NULL;
			char *err = NULL;
			if (!dir) {
				rc = usage_error("option '%s' needs a directory", "-I");
				goto out;
			}
			if (ccache_add_include(&a.cache, dir, &err) != 0) {
				rc = usage_error("-I: %s", err);
				free(err);
				goto out;
			}
		} else if (strcmp(o, "--step") == 0) {
			a.step = 1;
		} else if (strcmp(o, "--bail") == 0) {
			a.bail = 1;
		} else if (strcmp(o, "--no-gpu") == 0) {
			a.no_gpu = 1;
		} else if (strcmp(o, "--mask-times") == 0) {
			a.mask_times = 1;
		} else if (strcmp(o, "--device") == 0) {
			NEED_VALUE();
			if (parse_int(val, 0, 1023, &a.device) != 0) {
				rc = usage_error("--device: '%s' is not a device number", val);
				goto out;
			}
		} else if (strcmp(o, "--arch") == 0) {
			NEED_VALUE();
			const char *v = strncmp(val, "sm_", 3) == 0 ? val + 3 : val;
			if (parse_int(v, 30, 1299, &a.arch_sm) != 0) {
				rc = usage_error("--arch: '%s' is not an architecture like sm_90", val);
				goto out;
			}
		} else if (strcmp(o, "--format") == 0) {
			NEED_VALUE();
			if (format_parse(val, &a.format) != 0) {
				rc = usage_error("--format: '%s' is not table, csv, json or markdown", val);
				goto out;
			}
		} else if (o[0] == '-' && o[1] != 0) {
			rc = usage_error("unknown option '%s'", o);
			goto out;
		} else {
			files[nfiles++] = argv[i];
		}
#undef NEED_VALUE
	}
	if (commands && nfiles) {
		rc = usage_error("%s", "-c and session files cannot be mixed");
		goto out;
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL); /* no SA_RESTART: waits see EINTR */
	signal(SIGPIPE, SIG_IGN);

	a.tty = isatty(STDOUT_FILENO);
	a.color = a.tty && !getenv("NO_COLOR");
	if (a.step)
		step_hook = repl_step;

	int failed = 0;
	if (commands) {
		failed = command_line(&a, commands);
	} else if (nfiles) {
		for (int i = 0; i < nfiles && !a.quit; i++) {
			int r = source_file(&a, files[i]);
			failed += r < 0 ? 1 : r;
			if ((failed && a.bail) || g_interrupt)
				break;
		}
	} else if (isatty(STDIN_FILENO)) {
		a.interactive = 1;
		printf("cuplay %s: type 'help' for commands, 'ls' for kernel files, 'quit' to leave\n", CUPLAY_VERSION);
		repl_loop(&a);
	} else {
		/* batch: stdin is a script */
		failed = source_stream(&a, stdin, "<stdin>");
	}
	rc = failed || (!a.interactive && a.nerrors) ? 1 : 0;
out:
	app_free(&a);
	free(files);
	free(exe);
	return rc;
}
