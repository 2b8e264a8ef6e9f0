/* compare.c: sweeps over values, interleaved comparisons of variants, and
 * writing the last results (save) and chart (plot). */
#include "compare.h"
#include "prefetch.h"
#include "run.h"
#include "pick.h"
#include "fileio.h"

#include <ctype.h>
#include <pthread.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_MAX 1024
#define COMPARE_MAX 16
#define COMPARE_ROUNDS 5

typedef struct axis {
	char *name;
	int n;
	value *v;
} axis;

static void axes_free(axis *ax, int n)
{
	for (int i = 0; i < n; i++) {
		free(ax[i].name);
		free(ax[i].v);
	}
	free(ax);
}

/* Checks that name is a define or param of the loaded file. */
static int known_var(app *a, const char *name, const char *cmd)
{
	if (spec_var_find(a->file.sp, name))
		return 0;
	const char **names = xcalloc((size_t)a->file.sp->nvars + 1, sizeof *names);
	for (int i = 0; i < a->file.sp->nvars; i++)
		names[i] = a->file.sp->vars[i].name;
	const char *near = nearest_name(name, names, a->file.sp->nvars);
	if (near)
		app_error(a, "%s: unknown name '%s' in %s (did you mean '%s'?)", cmd, name, a->file.path, near);
	else
		app_error(a, "%s: unknown name '%s' in %s", cmd, name, a->file.path);
	free(names);
	return -1;
}

static int eval_plain(app *a, const char *cmd, const char *name, const char *text, value *v)
{
	int col = 0;
	char *err = NULL;
	if (plan_eval_value(a->file.sp, name, text, NULL, v, &col, &err) == 0)
		return 0;
	app_error(a, "%s: %s=%s: %s", cmd, name, text, err);
	free(err);
	return -1;
}

/* NAME=v1,v2,... */
static int parse_axis(app *a, const char *arg, axis *ax)
{
	const char *eq = strchr(arg, '=');
	memset(ax, 0, sizeof *ax);
	ax->name = xstrndup(arg, (size_t)(eq - arg));
	if (known_var(a, ax->name, "sweep") != 0)
		return -1;
	char *list = xstrdup(eq + 1);
	int rc = 0;
	for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		ax->v = xrealloc(ax->v, (size_t)(ax->n + 1) * sizeof *ax->v);
		if (eval_plain(a, "sweep", ax->name, tok, &ax->v[ax->n]) != 0) {
			rc = -1;
			break;
		}
		ax->n++;
	}
	free(list);
	if (rc == 0 && ax->n == 0)
		rc = app_error(a, "sweep: no values for '%s' (write %s=v1,v2,...)", ax->name, ax->name);
	return rc;
}

/* One result of a sweep: its record, its row, its bar. */
static void sweep_result(app *a, table *t, int r, int nax, chart *ch, double *best, int **bar_row,
                         const char *label, const char *vline, const plan *p, const result *res, int *rc,
                         int device, sbuf *clk, kpipe kp)
{
	measurement *m = (measurement *)add_record(a, vline, res, p);
	app_set_pipe(a, m, kp);
	measure_row(t, r, nax, m, a->opt.mask_times);
	app_clock_add(a, m, clk);
	if (m->check == MCHECK_FAIL)
		*rc = -1;
	if (device >= 0)
		table_set(t, r, nax + M_N, "GPU %d", device);
	clock_note(a, res);
	if (!m->timed)
		return;
	const char *unit;
	double v = measure_figure(m, &unit);
	free(ch->unit);
	ch->unit = xstrdup(unit);
	if (m->check != MCHECK_FAIL && v > *best) {
		*best = v;
		ch->best = ch->n;
	}
	chart_add(ch, label, v, m->check == MCHECK_FAIL ? "FAIL" : NULL);
	chart_noise(ch, m->st.has_ci ? m->st.ci_rel : 0);
	*bar_row = xrealloc(*bar_row, (size_t)ch->n * sizeof **bar_row);
	(*bar_row)[ch->n - 1] = r;
}

/* `sweep ... on all`: the front end compiles and plans every
 * configuration, then one thread a GPU feeds its own worker from this list;
 * rows are filled in order afterwards. */
typedef struct sjob {
	int row, k;
	char *label, *vline;
	plan *p, *pc;          /* the timing plan; the `check at` plan or NULL */
	void *cubin, *ccubin;
	size_t len, clen;
	result *res;
	char *err;
	int device;
	kpipe pipe;            /* the kernel's, from the unit it was compiled in */
} sjob;

typedef struct spool {
	app *a;
	sjob *jobs;
	int njobs, next;
	pthread_mutex_t lock;
} spool;

typedef struct sthread {
	spool *pool;
	wclient *w;
} sthread;

static void *sweep_thread(void *arg)
{
	sthread *th = arg;
	spool *pl = th->pool;
	for (;;) {
		pthread_mutex_lock(&pl->lock);
		int i = pl->next < pl->njobs && !g_interrupt ? pl->next++ : -1;
		pthread_mutex_unlock(&pl->lock);
		if (i < 0)
			break;
		sjob *j = &pl->jobs[i];
		j->device = th->w->device;
		j->res = xcalloc(1, sizeof *j->res);
		check_result checks[PLAN_MAX_CHECKS];
		int nchecks = -1;
		if (j->pc) {
			if (wc_run(th->w, j->pc, j->ccubin, j->clen, pl->a->opt.timeout_s, &g_interrupt,
			           NULL, NULL, j->res, &j->err) != 0)
				continue;
			if (j->res->status == RES_ERROR || j->res->status == RES_FATAL) {
				j->err = xstrdup(j->res->error);
				continue;
			}
			nchecks = j->res->nchecks;
			memcpy(checks, j->res->checks, sizeof checks);
		}
		if (wc_run(th->w, j->p, j->cubin, j->len, pl->a->opt.timeout_s, &g_interrupt,
		           NULL, NULL, j->res, &j->err) != 0)
			continue;
		if (j->res->status == RES_ERROR || j->res->status == RES_FATAL)
			j->err = xstrdup(j->res->error);
		if (nchecks >= 0) {
			j->res->nchecks = nchecks;
			memcpy(j->res->checks, checks, sizeof checks);
		}
	}
	return NULL;
}

/* Workers on every GPU: the main one plus one for each other device. */
static int all_workers(app *a, wclient ***ws, int *n)
{
	int count = a->worker.dev.count;
	if (a->nmore == 0 && count > 1) {
		a->more = xcalloc((size_t)count, sizeof *a->more);
		for (int d = 0; d < count; d++) {
			if (d == a->device)
				continue;
			wclient *w = &a->more[a->nmore++];
			w->exe = a->opt.exe;
			w->device = d;
			app_worker_notes(a, w);
		}
	}
	*ws = xcalloc((size_t)a->nmore + 1, sizeof **ws);
	(*ws)[0] = &a->worker;
	*n = 1;
	for (int i = 0; i < a->nmore; i++) {
		char *err = NULL;
		if (wc_start(&a->more[i], &err) != 0) {
			app_error(a, "sweep on all: GPU %d: %s", a->more[i].device, err ? err : "cannot start a worker");
			free(err);
			continue;
		}
		(*ws)[(*n)++] = &a->more[i];
	}
	return 0;
}

/* A sweep's state, from its arguments to its table. */
typedef struct sweep {
	axis *ax;
	int nax;
	char **names;
	int nnames, on_all;
	long total;
	wclient **ws;              /* on all: a worker per GPU */
	int nws, parallel;
	int *ks, nk;               /* the kernels */
	table t;
	int note;                  /* the note column */
	chart ch;
	double best;
	int *bar_row;              /* the table's row of each bar */
	sjob *jobs;                /* on all: the runs, made in order, run on every GPU */
	int njobs;
	plan *p;
	result *res;
	int gpu;
	timing_opts opts;
	int rc;
	sbuf clk;                  /* results the kernel clock's check concerns */
} sweep;

/* NAME=v1,v2,... [KERNEL...] [on all] into sw; the number of
 * configurations. */
static int sweep_parse(app *a, sweep *sw, int argc, char **argv)
{
	sw->ax = xcalloc((size_t)argc, sizeof *sw->ax);
	sw->names = xcalloc((size_t)argc + 1, sizeof *sw->names);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "on") == 0) {
			if (i + 1 >= argc || strcmp(argv[i + 1], "all") != 0)
				return app_error(a, "sweep: 'on' takes 'all' (every GPU of the machine), not '%s'",
				                 i + 1 < argc ? argv[i + 1] : "");
			sw->on_all = 1;
			i++;
		} else if (strchr(argv[i], '=')) {
			if (parse_axis(a, argv[i], &sw->ax[sw->nax++]) != 0)
				return -1;
			for (int j = 0; j < sw->nax - 1; j++)
				if (strcmp(sw->ax[j].name, sw->ax[sw->nax - 1].name) == 0)
					return app_error(a, "sweep: '%s' given twice (its values go in one list: %s=v1,v2,...)",
					                 sw->ax[j].name, sw->ax[j].name);
		} else {
			sw->names[sw->nnames++] = argv[i];
		}
	}
	if (sw->nax == 0)
		return app_error(a, "usage: sweep NAME=v1,v2,... [NAME=...] [KERNEL...] [on all]");
	sw->total = 1;
	for (int i = 0; i < sw->nax; i++) {
		sw->total *= sw->ax[i].n;
		if (sw->total > SWEEP_MAX)
			return app_error(a, "sweep: more than %d configurations; sweep fewer values", SWEEP_MAX);
	}
	return 0;
}

/* The table: one column per axis, the records, a note; the chart. */
static void sweep_table(app *a, sweep *sw)
{
	int nax = sw->nax;
	const char **head = xcalloc((size_t)nax + 2, sizeof *head);
	char *align = xcalloc((size_t)nax + 2, 1);
	for (int i = 0; i < nax; i++) {
		head[i] = sw->ax[i].name;
		align[i] = 'r';
	}
	head[nax] = "note";
	align[nax] = 'l';
	measure_table_init(&sw->t, nax, 1, head, align);
	table_kind(&sw->t, "sweep");
	for (int i = 0; i < nax; i++)
		table_col(&sw->t, i, sw->ax[i].name, U_PLAIN, COL_BOTH); /* the name as written */
	table_col(&sw->t, nax + M_RANGE, NULL, U_PLAIN, COL_NONE);
	table_col(&sw->t, nax + M_NOISE, NULL, U_FRAC1, COL_RAW);
	sw->note = nax + M_N;
	free(head);
	free(align);
	char *title = xasprintf("%s: sweep of %ld configurations", a->file.sp->path, sw->total);
	chart_init(&sw->ch, title, "");
	free(title);
	sw->best = -1;
}

/* On all: the run of kernel k planned in c, kept to run on every GPU
 * once all are planned. */
static void sweep_job(app *a, sweep *sw, runctx *c, int k, int row, const char *lab)
{
	sw->jobs = xrealloc(sw->jobs, (size_t)(sw->njobs + 1) * sizeof *sw->jobs);
	sjob *j = &sw->jobs[sw->njobs++];
	memset(j, 0, sizeof *j);
	j->row = row;
	j->k = k;
	const char *kname = a->file.sp->kernels[k].name;
	j->label = sw->nk > 1 ? xasprintf("%s %s", lab, kname) : xstrdup(lab);
	j->vline = xstrdup(c->vline);
	j->p = xmalloc(sizeof *j->p);
	*j->p = *sw->p;
	j->pipe = app_kernel_pipe(c->u, kname);
	j->len = c->u->cubin_len;
	j->cubin = xmalloc(j->len);
	memcpy(j->cubin, c->u->cubin, j->len);
	j->pc = xcalloc(1, sizeof *j->pc);
	char *err = NULL;
	int made = run_check_plan(a, c, k, sw->p, j->pc, &j->ccubin, &j->clen, &err);
	if (made == 1) {
		j->p->t.do_check = 0;
	} else {
		free(j->pc);
		j->pc = NULL;
		if (made < 0)
			j->err = err;
	}
}

/* Kernel k of one configuration (c: planned, or not when !prepared): its
 * row, run now or kept as a job. */
static void sweep_kernel(app *a, sweep *sw, runctx *c, int prepared, const int *idx, int k, const char *lab)
{
	table *t = &sw->t;
	const char *kname = a->file.sp->kernels[k].name;
	int r = table_row(t);
	for (int i = 0; i < sw->nax; i++) {
		value v = sw->ax[i].v[idx[i]];
		table_num(t, r, i, v.is_float ? v.f : (double)v.i);
	}
	table_set(t, r, sw->nax + M_KERNEL, "%s", kname);
	table_set(t, r, sw->nax + M_VALUES, "%s", lab);
	if (!prepared) {
		table_set(t, r, sw->note, "compile error (above)");
		sw->rc = -1;
		return;
	}
	char *err = NULL;
	if (run_plan(a, c, k, &sw->opts, sw->p, &err) != 0) {
		/* an unlaunchable configuration is a row that says why */
		const char *why = strstr(err, "': ") ? strstr(err, "': ") + 3 : err;
		table_set(t, r, sw->note, "cannot launch: %s", why);
		free(err);
		return;
	}
	if (!c->gpu) {
		int ci = cunit_find(c->u, kname);
		char sz[32];
		fmt_bytes((double)c->u->res[ci].smem + sw->p->launch.smem, sz, sizeof sz);
		table_set(t, r, sw->note, "not launched (no GPU): %d regs, %s smem", c->u->res[ci].regs, sz);
		return;
	}
	if (sw->parallel) {
		sweep_job(a, sw, c, k, r, lab);
		return;
	}
	if (run_exec_checked(a, c, k, sw->p, sw->res, &err) != 0) {
		table_set(t, r, sw->note, "%s", err ? err : "failed");
		app_error(a, "sweep %s: %s: %s", lab, kname, err ? err : "failed");
		free(err);
		sw->rc = -1;
		return;
	}
	char *label = sw->nk > 1 ? xasprintf("%s %s", lab, kname) : xstrdup(lab);
	sweep_result(a, t, r, sw->nax, &sw->ch, &sw->best, &sw->bar_row, label, c->vline, sw->p, sw->res, &sw->rc, -1, &sw->clk,
	             app_kernel_pipe(c->u, kname));
	free(label);
}

/* Every configuration, in odometer order. */
static void sweep_configs(app *a, sweep *sw)
{
	int nax = sw->nax;
	int *idx = xcalloc((size_t)nax, sizeof *idx);
	for (long done = 0; done < sw->total && !g_interrupt; done++) {
		symtab extra = {0};
		sbuf lab = {0};
		for (int i = 0; i < nax; i++) {
			char v[64];
			value_format(sw->ax[i].v[idx[i]], v, sizeof v);
			symtab_set(&extra, sw->ax[i].name, sw->ax[i].v[idx[i]], 0);
			sb_printf(&lab, "%s%s=%s", i ? " " : "", sw->ax[i].name, v);
		}
		app_progress(a, "sweep %ld/%ld: %s", done + 1, sw->total, lab.s);
		runctx c;
		int prepared = run_prepare_for(a, &extra, 0, sw->ks, sw->nk, &c) == 0;
		if (prepared)
			sw->gpu = c.gpu;
		for (int k = 0; k < sw->nk; k++)
			sweep_kernel(a, sw, &c, prepared, idx, sw->ks[k], lab.s);
		if (prepared)
			run_release(&c);
		symtab_free(&extra);
		sb_free(&lab);
		for (int i = nax - 1; i >= 0; i--) {
			if (++idx[i] < sw->ax[i].n)
				break;
			idx[i] = 0;
		}
	}
	free(idx);
}

/* Every configuration's compile, at once, before the first is run. */
static void sweep_compile_ahead(app *a, const sweep *sw)
{
	if (sw->total < 2 || sw->total > 1024)
		return;
	int n = (int)sw->total;
	symtab *ex = xcalloc((size_t)n, sizeof *ex);
	ahead_item *it = xcalloc((size_t)n, sizeof *it);
	int *idx = xcalloc((size_t)sw->nax + 1, sizeof *idx);
	for (int d = 0; d < n; d++) {
		for (int i = 0; i < sw->nax; i++)
			symtab_set(&ex[d], sw->ax[i].name, sw->ax[i].v[idx[i]], 0);
		it[d] = (ahead_item){ &ex[d], sw->ks, sw->nk };
		for (int i = sw->nax - 1; i >= 0; i--) {
			if (++idx[i] < sw->ax[i].n)
				break;
			idx[i] = 0;
		}
	}
	app_compile_ahead(a, it, n);
	for (int d = 0; d < n; d++)
		symtab_free(&ex[d]);
	free(ex);
	free(it);
	free(idx);
}

/* On all: the jobs on every GPU, a thread each feeding its worker; then
 * the rows in order. A thread that cannot be started leaves its share to
 * the others (with none, this thread feeds the first GPU). */
static void sweep_parallel(app *a, sweep *sw)
{
	spool pl = { a, sw->jobs, sw->njobs, 0, PTHREAD_MUTEX_INITIALIZER };
	sthread *ta = xcalloc((size_t)sw->nws, sizeof *ta);
	app_progress(a, "sweep: %d runs on %d GPUs", sw->njobs, sw->nws);
	for (int i = 0; i < sw->nws; i++)
		ta[i] = (sthread){ &pl, sw->ws[i] };
	int started = threads_run(sw->nws, sweep_thread, ta, sizeof *ta, NULL);
	if (started < sw->nws)
		app_note(a, "sweep on all: %d of %d threads could not be started: their GPUs' runs went to the others",
		         sw->nws - started, sw->nws);
	free(ta);
	for (int i = 0; i < sw->njobs; i++) {
		sjob *j = &sw->jobs[i];
		const char *kname = a->file.sp->kernels[j->k].name;
		if (j->err || !j->res) {
			table_set(&sw->t, j->row, sw->note, "%s", j->err ? j->err : "not run (interrupted)");
			if (j->err)
				app_error(a, "sweep %s: %s: %s", j->label, kname, j->err);
			sw->rc = -1;
		} else {
			sweep_result(a, &sw->t, j->row, sw->nax, &sw->ch, &sw->best, &sw->bar_row, j->label, j->vline, j->p, j->res,
			             &sw->rc, j->device, &sw->clk, j->pipe);
		}
	}
}

/* "best: LABEL", or where others are within its noise, a tie with them. */
static void best_note(app *a, const chart *c)
{
	if (!chart_ties(c)) {
		app_note(a, "best: %s", c->labels[c->best]);
		return;
	}
	sbuf b = { 0 };
	for (int i = 0; i < c->n; i++)
		if (chart_tie(c, i))
			sb_printf(&b, "%s%s", b.len ? ", " : "", c->labels[i]);
	app_note(a, "best: a tie within the noise (the 95%% intervals overlap): %s and %s", c->labels[c->best], b.s);
	sb_free(&b);
}

/* The best in the table's note column; a best within the noise of
 * another is a tie, said in both rows. */
static void best_rows(sweep *sw)
{
	const chart *c = &sw->ch;
	int ties = chart_ties(c);
	for (int i = 0; i < c->n; i++) {
		const char *w = i == c->best ? (ties ? "best, a tie (within the noise)" : "best")
		                             : chart_tie(c, i) ? "tie for best (within the noise)" : NULL;
		if (!w)
			continue;
		char was[256];
		table_text(&sw->t, sw->bar_row[i], sw->note, was, sizeof was);
		table_set(&sw->t, sw->bar_row[i], sw->note, "%s%s%s", was, was[0] ? "; " : "", w);
	}
}

/* The table, the chart and the notes after the runs. */
static void sweep_show(app *a, sweep *sw)
{
	if (sw->ch.best >= 0)
		best_rows(sw);
	if (a->opt.interactive)
		fprintf(stderr, "\r\033[K");
	app_table(a, &sw->t, 0);
	app_clock_say(a, &sw->clk);
	if (sw->gpu == 0)
		app_note(a, "not launched (no GPU)");
	if (sw->ch.n > 0 && a->format == FMT_TABLE && !a->opt.mask_times)
		app_chart_show(a, &sw->ch);
	if (sw->ch.best >= 0 && !a->opt.mask_times)
		best_note(a, &sw->ch);
	if (g_interrupt) {
		app_note(a, "interrupted");
		sw->rc = -1;
	}
	app_results_keep_table(&a->results, &sw->t);
	if (sw->ch.n > 0)
		app_keep_chart(a, &sw->ch);
	else
		chart_free(&sw->ch);
}

static void sweep_free(sweep *sw)
{
	sb_free(&sw->clk);
	free(sw->bar_row);
	for (int i = 0; i < sw->njobs; i++) {
		sjob *j = &sw->jobs[i];
		free(j->label);
		free(j->vline);
		free(j->p);
		free(j->pc);
		free(j->cubin);
		free(j->ccubin);
		free(j->res);
		free(j->err);
	}
	free(sw->jobs);
	free(sw->ws);
	free(sw->ks);
	free(sw->p);
	free(sw->res);
	axes_free(sw->ax, sw->nax);
	free(sw->names);
}

int app_sweep(app *a, int argc, char **argv)
{
	sweep sw;
	memset(&sw, 0, sizeof sw);
	sw.gpu = -1;
	if (sweep_parse(a, &sw, argc, argv) != 0) {
		sweep_free(&sw);
		return -1;
	}
	/* on all: every GPU of the machine, one worker each */
	if (sw.on_all && app_gpu(a) == 1) {
		if (a->worker.dev.count <= 1) {
			app_note(a, "sweep on all: this machine has one GPU (device %d)", a->device);
		} else {
			all_workers(a, &sw.ws, &sw.nws);
			sw.parallel = sw.nws > 1;
			app_note(a, "sweep on all: %d GPUs, one worker each", sw.nws);
		}
	}
	if (pick_kernels(a, sw.names, sw.nnames, &sw.ks, &sw.nk) != 0 || app_roofs_once(a) != 0) {
		sweep_free(&sw);
		return -1;
	}
	sweep_table(a, &sw);
	sw.p = xcalloc(1, sizeof *sw.p);
	sw.res = xcalloc(1, sizeof *sw.res);
	/* a sweep surveys: each configuration's timing loop stops at 0.1 s */
	sw.opts = a->opt.topt;
	if (sw.opts.max_time_s > 0.1)
		sw.opts.max_time_s = 0.1;
	if (sw.opts.max_wall_s == 0 || sw.opts.max_wall_s > 0.1)
		sw.opts.max_wall_s = 0.1;
	sweep_compile_ahead(a, &sw);
	sweep_configs(a, &sw);
	if (sw.parallel && sw.njobs > 0)
		sweep_parallel(a, &sw);
	sweep_show(a, &sw);
	int rc = sw.rc;
	sweep_free(&sw);
	return rc;
}

/* ---- compare ---- */

typedef struct variant {
	char *label;
	int k;
	symtab extra;
	double *samples;
	int n;
	int clock;         /* timing_clock of the samples */
	plan p;
	char *vline;
	measurement m;     /* made at the first round (the check); the samples of every round */
	int have_m;
	double dram;       /* bytes read and written in DRAM by one run (counters); < 0 unknown */
} variant;

/* Where a sequence is compared (fusion), the DRAM bytes each variant moves,
 * from the counters of one more run each, untimed and unchecked: v[i].dram,
 * or a note saying why there are none. */
static void dram_pass(app *a, variant *v, int nv)
{
	int seq = 0;
	for (int i = 0; i < nv; i++) {
		v[i].dram = -1;
		seq |= a->file.sp->kernels[v[i].k].nsteps > 0;
	}
	if (!seq)
		return;
	static const char *const names[] = { "dram__bytes_read.sum", "dram__bytes_write.sum" };
	result *res = xcalloc(1, sizeof *res);
	timing_opts t = a->opt.topt;
	t.do_check = t.do_time = 0;
	for (int i = 0; i < nv && !g_interrupt; i++) {
		runctx c;
		char *err = NULL;
		if (run_prepare_for(a, &v[i].extra, 0, &v[i].k, 1, &c) != 0)
			break;
		int r = run_plan(a, &c, v[i].k, &t, &v[i].p, &err);
		if (r == 0) {
			v[i].p.nmetrics = 2;
			for (int j = 0; j < 2; j++)
				snprintf(v[i].p.metrics[j], sizeof v[i].p.metrics[j], "%s", names[j]);
			r = run_exec(a, &c, &v[i].p, res, &err);
		}
		run_release(&c);
		if (r == 0 && res->prof.status != PROF_OK)
			r = fail(&err, "%s", res->prof.error);
		if (r != 0) {
			app_note(a, "compare: no DRAM bytes: %s", err ? err : "the counters failed");
			free(err);
			break;
		}
		v[i].dram = res->prof.values[0] + res->prof.values[1];
	}
	free(res);
}

/* kernel[NAME=EXPR,...] */
static int parse_variant(app *a, const char *label, variant *v)
{
	memset(v, 0, sizeof *v);
	v->label = xstrdup(label);
	const char *br = strchr(label, '[');
	char *kname = xstrndup(label, br ? (size_t)(br - label) : strlen(label));
	v->k = spec_kernel_find(a->file.sp, kname);
	if (v->k < 0) {
		char *names[] = { kname };
		int *ks, nk;
		if (pick_kernels(a, names, 1, &ks, &nk) == 0) /* prints the suggestion */
			free(ks);
		free(kname);
		return -1;
	}
	free(kname);
	if (!br)
		return 0;
	size_t l = strlen(br);
	if (br[l - 1] != ']')
		return app_error(a, "compare: malformed variant '%s' (write kernel[NAME=VALUE,...])", label);
	char *inner = xstrndup(br + 1, l - 2);
	int rc = 0;
	for (char *save = NULL, *tok = strtok_r(inner, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq) {
			rc = app_error(a, "compare: '%s' in '%s' is not NAME=VALUE", tok, label);
			break;
		}
		*eq = 0;
		value val;
		if (known_var(a, tok, "compare") != 0 || eval_plain(a, "compare", tok, eq + 1, &val) != 0) {
			rc = -1;
			break;
		}
		symtab_set(&v->extra, tok, val, 0);
	}
	free(inner);
	return rc;
}

/* Interleaved rounds, A B C A B C ..., so drift affects every variant
 * alike. With the interval rule, each round samples until its median's
 * interval is within sqrt(rounds) times the target, so that the rounds
 * pooled come near the target; with the noise rule, the rounds decide. */
static timing_opts round_opts(const app *a)
{
	timing_opts t = a->opt.topt;
	t.max_time_s = a->opt.topt.max_time_s / COMPARE_ROUNDS;
	t.min_time_s = 0;
	if (t.rule == RULE_INTERVAL) {
		t.target = a->opt.topt.target * sqrt((double)COMPARE_ROUNDS);
		t.min_time_s = a->opt.topt.min_time_s / COMPARE_ROUNDS;
	} else {
		t.min_reps = a->opt.topt.min_reps / COMPARE_ROUNDS + 2;
		t.noise_target = 0;
	}
	return t;
}

/* Variant v run once in round `round`, its samples pooled. 0, or -1
 * (said); *gpu: whether it was launched. */
static int compare_once(app *a, variant *v, int round, const timing_opts *t, result *res, int *gpu)
{
	runctx c;
	if (run_prepare_for(a, &v->extra, 0, &v->k, 1, &c) != 0)
		return -1;
	*gpu = c.gpu;
	char *err = NULL;
	if (run_plan(a, &c, v->k, t, &v->p, &err) != 0 || (*gpu && run_exec_checked(a, &c, v->k, &v->p, res, &err) != 0)) {
		app_error(a, "compare: %s: %s", v->label, err ? err : "failed");
		free(err);
		run_release(&c);
		return -1;
	}
	if (!v->vline)
		v->vline = xstrdup(c.vline);
	if (*gpu && round == 0) {
		measure_make(&v->m, a->file.path, &v->p, res, v->vline, a->opt.topt.do_check);
		app_roof_record(a, &v->m); /* the roof `run` and `roof` divide by, not the worker's copy */
		app_set_pipe(a, &v->m, app_kernel_pipe(c.u, a->file.sp->kernels[v->k].name));
		v->have_m = 1;
	}
	if (*gpu && round > 0 && v->have_m)
		measure_timed_flag(&v->m, res); /* each round's timed launches checked too */
	run_release(&c);
	if (!*gpu)
		return 0;
	clock_note(a, res);
	if (res->nsamples > 0 && v->n > 0 && res->clock != v->clock)
		v->n = 0; /* the worker went over to events: never mix clocks */
	if (res->nsamples > 0)
		v->clock = res->clock;
	v->samples = xrealloc(v->samples, (size_t)(v->n + res->nsamples) * sizeof(double));
	memcpy(v->samples + v->n, res->samples_ms, (size_t)res->nsamples * sizeof(double));
	v->n += res->nsamples;
	return 0;
}

/* Every round of every variant. 0, or -1; *gpu: whether they were
 * launched. */
static int compare_rounds(app *a, variant *v, int nv, int *gpu)
{
	result *res = xcalloc(1, sizeof *res);
	timing_opts t = round_opts(a);
	int rc = 0;
	*gpu = 1;
	for (int round = 0; round < COMPARE_ROUNDS && !g_interrupt && rc == 0; round++) {
		t.do_check = round == 0 && a->opt.topt.do_check;
		/* the later rounds, checked in the first: each one's last launch against its first */
		t.checked_apart = round > 0 && a->opt.topt.do_check;
		for (int i = 0; i < nv && !g_interrupt && rc == 0; i++)
			rc = compare_once(a, &v[i], round, &t, res, gpu);
		if (!*gpu)
			break;
	}
	free(res);
	return rc;
}

/* The variants' table and chart: speedups over the first, with their
 * intervals and verdicts. -1 when a variant's check failed. */
static int compare_table(app *a, variant *v, int nv)
{
	int rc = 0;
	sbuf clk = { 0 }; /* variants the kernel clock's check concerns */
	table tb;
	dram_pass(a, v, nv);
	const char *head[] = { "variant", "speedup", "95% interval", "verdict", "speedup_lo", "speedup_hi", "DRAM" };
	measure_table_init(&tb, 1, 6, head, "lrllrrr");
	table_kind(&tb, "compare");
	table_col(&tb, 1 + M_KERNEL, NULL, U_PLAIN, COL_RAW); /* the variant names it */
	table_col(&tb, 1 + M_N, NULL, U_X, COL_BOTH);
	table_col(&tb, 2 + M_N, NULL, U_PLAIN, COL_HUMAN);
	table_col(&tb, 4 + M_N, NULL, U_X, COL_RAW);
	table_col(&tb, 5 + M_N, NULL, U_X, COL_RAW);
	table_col(&tb, 6 + M_N, "dram_bytes", U_BYTES, COL_BOTH);
	chart ch;
	char *title = xasprintf("speedup over %s", v[0].label);
	chart_init(&ch, title, "x");
	free(title);
	ch.baseline = 0;
	double best = 0;
	for (int i = 0; i < nv; i++) {
		measure_set_samples(&v[i].m, v[i].samples, v[i].n);
		app_flag_flops(a, &v[i].m);
		ratio_ci ri = { 1, 1, 1, 1 };
		const char *verdict = i == 0 ? "baseline" :
			stats_verdict(v[0].samples, v[0].n, v[i].samples, v[i].n, 0.02, &ri);
		double sp = ri.r;
		int r = table_row(&tb);
		table_set(&tb, r, 0, "%s", v[i].label);
		measure_row(&tb, r, 1, &v[i].m, a->opt.mask_times);
		app_clock_add(a, &v[i].m, &clk);
		if (a->opt.mask_times) {
			table_set(&tb, r, 1 + M_N, "<t>");
		} else {
			table_num(&tb, r, 1 + M_N, sp);
			if (ri.known && i > 0) {
				table_set(&tb, r, 2 + M_N, "%.3fx .. %.3fx", ri.lo, ri.hi);
				table_num(&tb, r, 4 + M_N, ri.lo);
				table_num(&tb, r, 5 + M_N, ri.hi);
			}
		}
		table_set(&tb, r, 3 + M_N, "%s", verdict);
		if (v[i].dram >= 0)
			table_num(&tb, r, 6 + M_N, v[i].dram);
		int failed = v[i].m.check == MCHECK_FAIL;
		if (failed)
			rc = -1;
		/* each variant is addressable afterwards, by its label's values */
		keep_record(a, &v[i].m);
		v[i].have_m = 0;
		if (!failed && sp > best) {
			best = sp;
			ch.best = i;
		}
		chart_add(&ch, v[i].label, sp, i == 0 ? "baseline" : verdict);
		chart_noise(&ch, v[i].m.st.has_ci ? v[i].m.st.ci_rel : 0);
	}
	app_table(a, &tb, 0);
	app_clock_say(a, &clk);
	if (a->format == FMT_TABLE && !a->opt.mask_times)
		app_chart_show(a, &ch);
	for (int i = 1; i < nv; i++)
		if (v[i].clock != v[0].clock) {
			app_note(a, "compare: %s and %s were timed on different clocks (kernel timestamps, events): "
			         "the speedups are not like for like", v[0].label, v[i].label);
			break;
		}
	app_results_keep_table(&a->results, &tb);
	app_keep_chart(a, &ch);
	return rc;
}

int app_compare(app *a, int argc, char **argv)
{
	if (argc < 3)
		return app_error(a, "usage: compare KERNEL[NAME=VALUE,...] KERNEL[...] ... (at least two)");
	if (argc - 1 > COMPARE_MAX)
		return app_error(a, "compare: at most %d variants", COMPARE_MAX);
	int nv = argc - 1;
	variant *v = xcalloc((size_t)nv, sizeof *v);
	int rc = 0, gpu = 1;
	for (int i = 0; i < nv && rc == 0; i++)
		if (parse_variant(a, argv[i + 1], &v[i]) != 0)
			rc = -1;
	if (rc == 0 && app_roofs_once(a) != 0)
		rc = -1;
	if (rc == 0) {
		ahead_item *it = xcalloc((size_t)nv, sizeof *it);
		for (int i = 0; i < nv; i++)
			it[i] = (ahead_item){ &v[i].extra, &v[i].k, 1 };
		app_compile_ahead(a, it, nv); /* every variant's compile at once */
		free(it);
		rc = compare_rounds(a, v, nv, &gpu);
	}
	if (rc == 0 && !gpu) {
		for (int i = 0; i < nv; i++)
			app_note(a, "%s: %s", v[i].label, v[i].vline ? v[i].vline : "");
		app_note(a, "not launched (no GPU)");
	} else if (rc == 0) {
		rc = compare_table(a, v, nv);
	}
	for (int i = 0; i < nv; i++) {
		if (v[i].have_m)
			measure_free(&v[i].m);
		free(v[i].label);
		symtab_free(&v[i].extra);
		free(v[i].samples);
		free(v[i].vline);
	}
	free(v);
	if (g_interrupt) {
		app_note(a, "interrupted");
		rc = -1;
	}
	return rc;
}

/* ---- save and plot ---- */

static int ends_with(const char *s, const char *suf)
{
	size_t l = strlen(s), m = strlen(suf);
	return l >= m && strcmp(s + l - m, suf) == 0;
}

int app_save(app *a, const char *path)
{
	if (!a->results.have_last)
		return app_error(a, "save: no results yet: 'run', 'sweep' or 'compare' first");
	out_format f = a->format;
	if (ends_with(path, ".csv"))
		f = FMT_CSV;
	else if (ends_with(path, ".json"))
		f = FMT_JSON;
	else if (ends_with(path, ".md"))
		f = FMT_MARKDOWN;
	else if (ends_with(path, ".txt"))
		f = FMT_TABLE;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return app_error(a, "save: %s", strerror(errno));
	doc d; /* one document of its own, with the version as stdout's has it */
	doc_open(&d, m, f, 0, CUPLAY_VERSION);
	doc_table(&d, &a->results.last, 0);
	doc_close(&d);
	fclose(m);
	char *why = NULL;
	int r = write_file(path, buf, len, &why);
	free(buf);
	if (r != 0) {
		app_error(a, "save: cannot write '%s': %s", path, why);
		free(why);
		return -1;
	}
	app_note(a, "saved %d rows to %s (%s)", a->results.last.nrows, path, format_name(f));
	return 0;
}

int app_plot(app *a, const char *path)
{
	if (!a->results.have_chart)
		return app_error(a, "plot: nothing to plot yet: 'compare', 'sweep' or a 'run' of several kernels first");
	if (!ends_with(path, ".svg"))
		return app_error(a, "plot: '%s': write an .svg file", path);
	char *err = NULL;
	if (chart_svg(&a->results.last_chart, path, &err) != 0) {
		app_error(a, "plot: %s", err);
		free(err);
		return -1;
	}
	app_note(a, "wrote %s", path);
	return 0;
}
