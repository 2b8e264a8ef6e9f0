/* cmd_metrics.c: the `metrics` command: hardware counters of kernels, by name or set; its entry beside its handler. */
#include "cmd_metrics.h"
#include "files.h"
#include "run.h"
#include "pick.h"
#include "look.h"
#include "counters.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(METRICS_NAME == PLAN_METRIC_NAME, "metric names cross the pipe in a plan");
_Static_assert(METRICS_MAX_RAW <= PROF_MAX_METRICS, "a metric selection fits in a plan");

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
		char *line = look_words_line(argc, argv);
		app_note(a, "%s: skipped (no GPU)", line);
		free(line);
	} else if (rc == 0) {
		rc = metrics_run(a, sel, ks, nk);
	}
	free(ks);
	free(sel);
	return rc;
}

static int cmd_metrics(app *a, int argc, char **argv, const char *rest)
{
	return look_metrics(a, argc, argv);
}

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
const command cmd_metrics_entry = {
	.name = "metrics",
	.fn = cmd_metrics,
	.args = "[KERNEL...] [METRIC|SET...] | on|off | list",
	.help = "hardware counters: traffic, sectors, bank conflicts",
	.min_args = 0,
	.max_args = -1,
	.compl = COMPL_KERNEL,
	.long_help = lh_metrics,
};
