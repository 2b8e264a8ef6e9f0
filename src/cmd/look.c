/* look.c: info, sass, metrics, sanitize, and what a run shows of counters
 * and of the GPU's conditions. */
#include "look.h"
#include "counters.h"
#include "files.h"
#include "run.h"

#include "inspect.h"
#include "kinfo.h"
#include "kstate.h"
#include "nvml.h"
#include "occupancy.h"
#include "prof.h"
#include "sanitize.h"
#include "sass.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(METRICS_NAME == PLAN_METRIC_NAME, "metric names cross the pipe in a plan");
_Static_assert(METRICS_MAX_RAW <= PROF_MAX_METRICS, "a metric selection fits in a plan");

/* "metrics transpose_tiled shared" as typed, for "skipped" notes. */
static char *words_line(int argc, char **argv)
{
	sbuf b = {0};
	for (int i = 0; i < argc; i++)
		sb_printf(&b, "%s%s", i ? " " : "", argv[i]);
	return sb_steal(&b);
}

/* ------------------------------------------------------------- metrics */

void look_metrics_list(app *a)
{
	table t;
	metrics_catalogue_table(&t);
	app_table(a, &t, 2);
	table_free(&t);
	app_note(a, "Any ncu metric name (it contains '__') may be given too, e.g. dram__bytes_read.sum.");
}

/* The figures of nk kernels as one table (kept for `save`). */
static void print_metrics(app *a, const metric_sel *s, int nk, char **kernels, double **figs,
                          const double *theory)
{
	if (nk <= 0)
		return;
	table t;
	metrics_table(&t, s, nk, (const char *const *)kernels, (const double *const *)figs, theory,
	              a->format == FMT_TABLE, a->opt.mask_times);
	app_table(a, &t, 0);
	app_results_keep_table(&a->results, &t);
}

/* The words of `metrics`: those naming kernels of the file are kernels
 * (into *ks), the rest metrics (into sel); a word that is no metric but
 * close to a kernel is a misspelt kernel. 0, or -1 (said). */
static int metrics_words(app *a, int argc, char **argv, metric_sel *sel, int **ks, int *nk)
{
	char **knames = xcalloc((size_t)argc + 1, sizeof *knames);
	const char **mwords = xcalloc((size_t)argc + 1, sizeof *mwords);
	int nkn = 0, nmw = 0, rc = 0;
	char *err = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "all") == 0 || spec_kernel_find(a->file.sp, argv[i]) >= 0)
			knames[nkn++] = argv[i];
		else
			mwords[nmw++] = argv[i];
	}
	for (int i = 0; i < nmw && rc == 0; i++) {
		if (metrics_find(mwords[i]) || metrics_set(mwords[i]) || strstr(mwords[i], "__"))
			continue;
		const char **kn = xcalloc((size_t)a->file.sp->nkernels + 1, sizeof *kn);
		for (int k = 0; k < a->file.sp->nkernels; k++)
			kn[k] = a->file.sp->kernels[k].name;
		const char *near = nearest_name(mwords[i], kn, a->file.sp->nkernels);
		if (near)
			rc = app_error(a, "metrics: no kernel or metric '%s' (did you mean kernel '%s'?)", mwords[i], near);
		free(kn);
	}
	if (rc == 0 && metrics_parse_words(mwords, nmw, sel, &err) != 0) {
		rc = app_error(a, "metrics: %s", err ? err : "bad metric list");
		free(err);
	}
	if (rc == 0 && pick_kernels(a, knames, nkn, ks, nk) != 0)
		rc = -1;
	free(knames);
	free(mwords);
	return rc;
}

/* The kernels' counters, gathered for the table. */
typedef struct counted {
	char **names;
	double **figs;
	double *theory;
	int n;
} counted;

/* Kernel k run once with the counters of sel: its record, its figures
 * into out. 1: stop (the counters cannot be had); 0: go on; *rc -1 on an
 * error. */
static int metrics_one(app *a, runctx *c, const metric_sel *sel, int k, plan *p, result *res, counted *out, int *rc)
{
	const char *name = a->file.sp->kernels[k].name;
	char *err = NULL;
	timing_opts t = a->opt.topt;
	t.do_time = 0;
	if (run_plan(a, c, k, &t, p, &err) != 0) {
		*rc = app_error_msg(a, err ? err : "cannot plan the launch");
		free(err);
		return 0;
	}
	counters_ask(sel, p);
	if (counters_barred(a)) {
		app_note(a, "metrics: %s", a->prof_why);
		return 1;
	}
	if (run_exec_checked(a, c, k, p, res, &err) != 0) {
		*rc = app_error(a, "%s: %s", name, err ? err : "the worker failed");
		free(err);
		return 0;
	}
	check_failures(a, p, res);
	for (int i = 0; i < res->nchecks; i++)
		if (!res->checks[i].ok)
			*rc = -1;
	add_record(a, c->vline, res, p);
	if (res->status == RES_INTERRUPTED || res->prof.n != p->nmetrics)
		return 0; /* stopped before the profiled launch */
	if (res->prof.status == PROF_UNAVAILABLE) {
		/* not an error of the user's: said once, and the expectations on
		 * counters say skipped */
		counters_unavailable(a, res->prof.error);
		app_note(a, "metrics: %s", a->prof_why);
		return 1;
	}
	if (res->prof.status != PROF_OK) {
		*rc = app_error(a, "metrics: %s: %s", name, res->prof.error[0] ? res->prof.error : "counters failed");
		return 1;
	}
	free(a->prof_why);
	a->prof_why = NULL;
	int n = out->n;
	out->figs[n] = xcalloc((size_t)(sel->nfig ? sel->nfig : 1), sizeof **out->figs);
	metrics_compute(sel, res->prof.values, out->figs[n]);
	counters_keep(&a->results.runs[a->results.nruns - 1], sel, res->prof.values, out->figs[n]);
	out->theory[n] = counters_theory(c, p);
	out->names[out->n++] = xstrdup(name);
	if (getenv("CUPLAY_TRACE"))
		fprintf(stderr, "trace: %s counters: %d passes on %s, %d range(s), %d dropped, %.1f ms\n", name,
		        res->prof.passes, res->prof.chip, res->prof.ranges, res->prof.dropped, res->prof.ms);
	return 0;
}

/* Every kernel of ks with the counters of sel, then their table. */
static int metrics_run(app *a, const metric_sel *sel, const int *ks, int nk)
{
	runctx c;
	if (run_prepare(a, NULL, 1, &c) != 0)
		return -1;
	plan *p = xcalloc(1, sizeof *p);
	result *res = xcalloc(1, sizeof *res);
	counted out = { xcalloc((size_t)nk, sizeof *out.names), xcalloc((size_t)nk, sizeof *out.figs),
	                xcalloc((size_t)nk, sizeof *out.theory), 0 };
	int rc = 0;
	for (int i = 0; i < nk && !g_interrupt; i++)
		if (metrics_one(a, &c, sel, ks[i], p, res, &out, &rc))
			break;
	print_metrics(a, sel, out.n, out.names, out.figs, out.theory);
	if (g_interrupt) {
		app_note(a, "interrupted");
		rc = -1;
	}
	for (int i = 0; i < out.n; i++) {
		free(out.names[i]);
		free(out.figs[i]);
	}
	free(out.names);
	free(out.figs);
	free(out.theory);
	free(p);
	free(res);
	run_release(&c);
	return rc;
}

int look_metrics(app *a, int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "on") == 0 || strcmp(argv[1], "off") == 0)) {
		a->metrics_on = strcmp(argv[1], "on") == 0;
		if (a->metrics_on)
			app_note(a, "metrics on: the default counters after every run (one more launch, profiled, "
			         "after the timed ones)");
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "list") == 0) {
		look_metrics_list(a);
		return 0;
	}
	if (!a->file.sp && a->file.use_failed) { /* said once, by the `use` */
		app_note(a, "metrics: skipped: no kernel file is loaded ('use %s' failed)", a->file.use_failed);
		return 0;
	}
	if (!a->file.sp)
		return app_error(a, "metrics: no kernel file loaded: 'use FILE' first (see 'ls')");
	if (app_reload(a) != 0)
		return -1;
	metric_sel *sel = xcalloc(1, sizeof *sel);
	int *ks = NULL, nk = 0;
	int rc = metrics_words(a, argc, argv, sel, &ks, &nk);
	int gpu = rc == 0 ? app_gpu(a) : 0;
	if (gpu < 0) {
		rc = -1;
	} else if (rc == 0 && !gpu) {
		char *line = words_line(argc, argv);
		app_note(a, "%s: skipped (no GPU)", line);
		free(line);
	} else if (rc == 0) {
		rc = metrics_run(a, sel, ks, nk);
	}
	free(ks);
	free(sel);
	return rc;
}

/* ---------------------------------------------------------------- info */

static struct kinfo_seen *seen_find(app *a, const char *kernel)
{
	for (int i = 0; i < a->nkseen; i++)
		if (strcmp(a->kseen[i].path, a->file.path) == 0 && strcmp(a->kseen[i].kernel, kernel) == 0)
			return &a->kseen[i];
	return NULL;
}

static void seen_keep(app *a, const char *kernel, const kres *r, const plan_launch *l)
{
	struct kinfo_seen *s = seen_find(a, kernel);
	if (!s) {
		a->kseen = xrealloc(a->kseen, (size_t)(a->nkseen + 1) * sizeof *a->kseen);
		s = &a->kseen[a->nkseen++];
		s->path = xstrdup(a->file.path);
		s->kernel = xstrdup(kernel);
	}
	s->res = *r;
	s->launch = *l;
}

static void info_row(table *t, const char *what, const char *val)
{
	int r = table_row(t);
	table_set(t, r, 0, "%s", what);
	table_set(t, r, 1, "%s", val);
}

/* The driver's rows: its function attributes, the occupancy API, the GPU now. */
static void driver_rows(table *t, const runctx *c, const plan *p, const result *res)
{
	const func_info *fi = &res->fn;
	const devinfo *d = &c->dev;
	char x[32], y[32], line[512];
	if (fi->known) {
		fmt_bytes(fi->static_smem, x, sizeof x);
		fmt_bytes(fi->local_bytes, y, sizeof y);
		snprintf(line, sizeof line, "%d registers, %s static shared, %s local per thread, "
		         "at most %d threads per block", fi->regs, x, y, fi->max_threads);
		info_row(t, "driver", line);
	}
	int threads = (int)(p->launch.block[0] * p->launch.block[1] * p->launch.block[2]);
	int ws = d->warp_size > 0 ? d->warp_size : 32;
	int max_warps = d->max_threads_sm / ws;
	if (fi->occ_blocks >= 0 && max_warps > 0) {
		int warps = fi->occ_blocks * ((threads + ws - 1) / ws);
		snprintf(line, sizeof line, "%d block%s of %d threads per SM: %.0f%% (the driver's occupancy API)",
		         fi->occ_blocks, fi->occ_blocks == 1 ? "" : "s", threads, 100.0 * warps / max_warps);
		info_row(t, "occupancy api", line);
	}
	if (fi->suggest_block > 0) {
		snprintf(line, sizeof line, "%d threads (with a grid of at least %d blocks, every SM is full)",
		         fi->suggest_block, fi->suggest_grid);
		info_row(t, "best block", line);
	}
	if (res->cond.available) {
		nvml_describe(&res->cond, line, sizeof line);
		info_row(t, "gpu now", line);
	}
}

/* The state the kernel keeps across launches (kstate.h): for people a row
 * a variable, with the header line that would reset it (t given); for the
 * data, the names ("done finished", returned; caller frees). */
static char *state_of(table *t, const spec *s, const cunit *u, int k)
{
	kstate_var *v = NULL;
	int n = 0;
	sbuf names = {0};
	if (kstate_find(s, u, k, &v, &n) != 0)
		return NULL;
	for (int i = 0; i < n; i++) {
		char line[512];
		snprintf(line, sizeof line, "'%s' (%s): written by the kernel, reset by nothing: %s", v[i].name,
		         v[i].managed ? "__managed__" : "__device__", v[i].line);
		if (t)
			info_row(t, "state", line);
		sb_printf(&names, "%s%s", i ? " " : "", v[i].name);
	}
	free(v);
	return sb_steal(&names);
}

int look_info(app *a, int argc, char **argv)
{
	int *ks = NULL, nk = 0;
	if (pick_kernels(a, argv + 1, argc - 1, &ks, &nk) != 0)
		return -1;
	runctx c;
	if (run_prepare(a, NULL, 1, &c) != 0) {
		free(ks);
		return -1;
	}
	plan *p = xcalloc(1, sizeof *p);
	result *res = xcalloc(1, sizeof *res);
	char *err = NULL;
	int rc = 0;
	for (int i = 0; i < nk; i++) {
		const char *name = a->file.sp->kernels[ks[i]].name;
		int ci = cunit_find(c.u, name);
		if (ci < 0) {
			rc = app_error(a, "info: kernel '%s' is missing from the compiled unit", name);
			continue;
		}
		if (run_plan(a, &c, ks[i], &a->opt.topt, p, &err) != 0) {
			rc = app_error_msg(a, err ? err : "cannot plan the launch");
			free(err);
			err = NULL;
			continue;
		}
		const kres *kr = &c.u->res[ci];
		table t;
		int data = format_is_data(a->format);
		if (!data) {
			kinfo_table(&t, name, c.u->lowered[ci], c.arch, kr, &p->launch, &c.dev, NULL);
			free(state_of(&t, a->file.sp, c.u, ks[i]));
		}
		int ran = 0;
		if (c.gpu) {
			p->info_only = 1;
			if (run_exec(a, &c, p, res, &err) == 0) {
				ran = 1;
				if (!data)
					driver_rows(&t, &c, p, res);
			} else {
				rc = app_error(a, "info: %s: %s", name, err ? err : "the worker failed");
				free(err);
				err = NULL;
			}
		}
		if (data) {
			char *state = state_of(NULL, a->file.sp, c.u, ks[i]);
			kinfo_record(&t, name, c.u->lowered[ci], c.arch, kr, &p->launch, &c.dev, ran ? &res->fn : NULL,
			             state);
			free(state);
		}
		app_table(a, &t, 0);
		table_free(&t);
		struct kinfo_seen *s = seen_find(a, name);
		char changes[512];
		if (s && kinfo_changes(&s->res, &s->launch, kr, &p->launch, &c.dev, changes, sizeof changes) > 0)
			app_note(a, "%s changed: %s", name, changes);
		if (kr->known)
			seen_keep(a, name, kr, &p->launch);
	}
	free(p);
	free(res);
	free(ks);
	run_release(&c);
	return rc;
}

/* ---------------------------------------------------------------- sass */

static int one_kernel(app *a, const char *kernel, int *k)
{
	int *ks = NULL, nk = 0;
	char *names[] = { (char *)kernel };
	if (pick_kernels(a, kernel ? names : NULL, kernel ? 1 : 0, &ks, &nk) != 0)
		return -1;
	*k = ks[0];
	free(ks);
	return 0;
}

int look_sass(app *a, const char *kernel)
{
	int k;
	if (one_kernel(a, kernel, &k) != 0)
		return -1;
	/* say a missing disassembler before compiling */
	char *tool = NULL, *why = NULL;
	if (sass_find_tool(SASS_NONE, &tool, &why) == SASS_NONE) {
		int rc = app_error(a, "sass: %s", why ? why : "no disassembler");
		free(why);
		return rc;
	}
	free(tool);
	runctx c;
	if (run_prepare_for(a, NULL, 0, &k, 1, &c) != 0)
		return -1;
	const char *name = a->file.sp->kernels[k].name;
	int ci = cunit_find(c.u, name);
	int rc = 0;
	char *out = NULL, *err = NULL;
	sass_src src = { a->file.sp->path, a->file.sp->src };
	if (ci < 0) {
		rc = app_error(a, "sass: kernel '%s' is missing from the compiled unit", name);
	} else if (sass_disasm(c.u->cubin, c.u->cubin_len, c.u->lowered[ci], &src, 1, &out, &err) != 0) {
		rc = app_error(a, "sass: %s", err ? err : "the disassembler failed");
	} else {
		sass_counts cnt;
		sass_count(out, &cnt);
		char sum[512];
		sass_summary(&cnt, sum, sizeof sum);
		FILE *f = pager_open(a);
		fprintf(f, "// %s: %s  (%s)\n", name, c.vline, c.arch);
		fputs(out, f);
		if (out[0] && out[strlen(out) - 1] != '\n')
			fputc('\n', f);
		fprintf(f, "// %s\n", sum);
		pager_close(a, f, "sass", name);
	}
	free(out);
	free(err);
	run_release(&c);
	return rc;
}

/* ------------------------------------------------------------ sanitize */

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
	if (one_kernel(a, kernel, &k) != 0)
		return -1;
	int gpu = app_gpu(a);
	if (gpu < 0)
		return -1;
	if (!gpu) {
		char *line = words_line(argc, argv);
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
