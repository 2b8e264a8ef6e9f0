/* cmd_sanitize.c: the `sanitize` command: a kernel run under compute-sanitizer; its entry beside its handler. */
#include "cmd_sanitize.h"
#include "run.h"
#include "sanitize.h"
#include "look.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A temp file for the sanitizer's log; its path (caller unlinks, frees). */
static char *temp_log(char **err)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	char *path = xasprintf("%s/cuplay-sanitize-XXXXXX.log", dir);
	int fd = mkstemps(path, 4);
	if (fd < 0) {
		fail(err, "cannot create a temp file in '%s': %s", dir, strerror(errno));
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

/* The words of `sanitize`: a tool and a kernel, in either order. 0, or
 * -1 (said) for a tool misspelt. */
static int sanitize_words(app *a, int argc, char **argv, san_tool *tool, const char **kernel)
{
	char *err = NULL;
	int tool_set = 0;
	*tool = SAN_MEMCHECK;
	*kernel = NULL;
	for (int i = 1; i < argc; i++) {
		san_tool t;
		if (spec_kernel_find(a->file.sp, argv[i]) >= 0 && !*kernel) {
			*kernel = argv[i];
		} else if (!tool_set && san_tool_parse(argv[i], &t, NULL) == 0) {
			*tool = t;
			tool_set = 1;
		} else if (!tool_set && san_tool_parse(argv[i], &t, &err) != 0 &&
		           ((argc == 3 && i == 1) || (err && strstr(err, "did you mean")))) {
			/* the first of two words, or one close to a tool's name: a tool misspelt */
			int rc = app_error(a, "sanitize: %s", err ? err : "unknown tool");
			free(err);
			return rc;
		} else {
			free(err);
			err = NULL;
			*kernel = argv[i];  /* pick_kernels says what is wrong with it */
		}
	}
	return 0;
}

/* The run's context, at the `//@ check at` values where the file has
 * them: the sanitizer is slow, and one launch of the checked size says as
 * much. 0, or -1 (said). */
static int sanitize_prepare(app *a, runctx *c)
{
	symtab extra;
	memset(&extra, 0, sizeof extra);
	char *err = NULL;
	if (a->file.sp->ncheck_at > 0) {
		if (run_prepare(a, NULL, 0, c) != 0)
			return -1;
		int r = check_at_values(a, c, &extra, &err);
		run_release(c);
		if (r != 0) {
			r = app_error_msg(a, err ? err : "bad '//@ check at' values");
			free(err);
			return r;
		}
	}
	int pr = run_prepare(a, &extra, 1, c);
	symtab_free(&extra);
	return pr != 0 ? -1 : 0;
}

/* The sanitizer's report of the run, and how the run ended. */
static int sanitize_report(app *a, san_tool tool, const char *log, int wr, const char *name, const plan *p,
                           const result *res, const char *err)
{
	char *text = NULL;
	san_report rep;
	if (read_file(log, &text, NULL) != 0 || san_parse(text, &rep) != 0) {
		free(text);
		return app_error(a, "sanitize: compute-sanitizer wrote no report%s%s", wr != 0 ? ": " : "",
		                 wr != 0 ? (err ? err : "the worker failed") : "");
	}
	free(text);
	char *msg = san_format(&rep, tool);
	FILE *sf = app_textf(a);
	fputs(msg, sf);
	if (msg[0] && msg[strlen(msg) - 1] != '\n')
		fputc('\n', sf);
	free(msg);
	/* a kernel the sanitizer stopped ends its worker: expected, said as a note */
	if (wr != 0)
		app_note(a, "%s: %s", name, err ? err : "the worker failed");
	else if (res->status == RES_FATAL || res->status == RES_ERROR)
		app_note(a, "%s: %s", name, res->error);
	else
		check_failures(a, p, res);
	fflush(stdout);
	return 0;
}

/* One checked launch of kernel k, nothing timed, in a worker started
 * under compute-sanitizer (san) for this run; its report. */
static int sanitize_run(app *a, runctx *c, int k, san_tool tool, const char *san)
{
	const char *name = a->file.sp->kernels[k].name;
	int rc = 0;
	char *err = NULL;
	plan *p = xcalloc(1, sizeof *p);
	result *res = xcalloc(1, sizeof *res);
	char *log = NULL, **pre = NULL;
	wclient sw;
	memset(&sw, 0, sizeof sw);
	sw.rfd = sw.wfd = -1;
	sw.exe = a->opt.exe;
	sw.device = a->device;
	sw.fatal_grace_ms = 60000;
	timing_opts t = a->opt.topt;
	t.do_time = 0;
	t.warmup = 0;
	t.do_check = 1;
	if (run_plan(a, c, k, &t, p, &err) != 0) {
		rc = app_error_msg(a, err ? err : "cannot plan the launch");
		goto out;
	}
	if (!(log = temp_log(&err))) {
		rc = app_error(a, "sanitize: %s", err);
		goto out;
	}
	pre = san_argv(san, tool, log, p->launch.lowered, NULL);
	app_note(a, "sanitize: %s under compute-sanitizer --tool %s (slow: the worker is started for this run)",
	         name, san_tool_name(tool));
	if (wc_start_under(&sw, (const char *const *)pre, 120, &err) != 0) {
		rc = app_error(a, "sanitize: cannot start the GPU worker under compute-sanitizer: %s",
		               err ? err : "unknown error");
		goto out;
	}
	double timeout = a->opt.timeout_s * 10 > 120 ? a->opt.timeout_s * 10 : 120;
	int wr = wc_run(&sw, p, c->u->cubin, c->u->cubin_len, timeout, &g_interrupt, progress, a,
	                res, &err);
	if (a->opt.interactive)
		fprintf(stderr, "\r\033[K");
	wc_stop_wait(&sw, 30000); /* the sanitizer writes its summary as the worker leaves */
	rc = sanitize_report(a, tool, log, wr, name, p, res, err);
out:
	if (sw.pid)
		wc_stop(&sw);
	if (log)
		unlink(log);
	free(log);
	san_argv_free(pre);
	free(err);
	free(p);
	free(res);
	return rc;
}

int look_sanitize(app *a, int argc, char **argv)
{
	san_tool tool;
	const char *kernel;
	if (sanitize_words(a, argc, argv, &tool, &kernel) != 0)
		return -1;
	int k;
	if (look_one_kernel(a, kernel, &k) != 0)
		return -1;
	int gpu = app_gpu(a);
	if (gpu < 0)
		return -1;
	if (!gpu) {
		char *line = look_words_line(argc, argv);
		app_note(a, "%s: skipped (no GPU)", line);
		free(line);
		return 0;
	}
	char *san = NULL, *err = NULL;
	if (san_find(&san, &err) != 0) {
		int rc = app_error(a, "sanitize: %s", err ? err : "no compute-sanitizer");
		free(err);
		return rc;
	}
	runctx c;
	if (sanitize_prepare(a, &c) != 0) {
		free(san);
		return -1;
	}
	int rc = sanitize_run(a, &c, k, tool, san);
	free(san);
	run_release(&c);
	return rc;
}

static int cmd_sanitize(app *a, int argc, char **argv, const char *rest)
{
	return look_sanitize(a, argc, argv);
}

static const char lh_sanitize[] =
	"Runs one launch of a kernel under compute-sanitizer: memcheck (the default) finds "
	"out-of-bounds and misaligned accesses, racecheck shared-memory races, synccheck bad "
	"__syncthreads, initcheck reads of memory never written. Each finding names the source "
	"line.\n"
	"\n"
	"Examples:\n"
	"  sanitize transpose_tiled\n"
	"  sanitize racecheck reduce_shared\n";
const command cmd_sanitize_entry = {
	.name = "sanitize",
	.fn = cmd_sanitize,
	.args = "[memcheck|racecheck|synccheck|initcheck] [KERNEL]",
	.help = "one launch under compute-sanitizer (memcheck, ...)",
	.min_args = 0,
	.max_args = 2,
	.flags = CMD_NEEDS_FILE | CMD_FRESH_FILE,
	.compl = COMPL_KERNEL,
	.long_help = lh_sanitize,
};
