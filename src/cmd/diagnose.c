/* diagnose.c: explain and roofline. */
#include "diagnose.h"
#include "perline.h"
#include "run.h"
#include "pick.h"

#include "explain.h"
#include "kinfo.h"
#include "counters.h"
#include "metrics.h"
#include "occupancy.h"
#include "ptxread.h"
#include "roofline.h"
#include "sass.h"
#include "tensor.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the notes say to enable counters where they are not permitted. */
#define HOW_TO_ALLOW "counters need the GPU's performance counters permitted to this user: an administrator " \
	"sets the nvidia module option NVreg_RestrictProfilingToAdminUsers=0 (or run as root), no other " \
	"profiler may hold them, and CUPLAY_NO_COUNTERS must be unset"

static double fig_of(const metric_sel *s, const double *fig, const char *name)
{
	if (!fig)
		return NAN;
	for (int i = 0; i < s->nfig; i++)
		if (strcmp(s->fig[i].name, name) == 0)
			return fig[i];
	return NAN;
}

/* The launch's theoretical occupancy (0..1) and what limits it, from the
 * compile's resources, as `info` computes them. */
static void occupancy_of(const runctx *c, const plan *p, double *theory, const char **limiter)
{
	*theory = NAN;
	*limiter = NULL;
	int ci = cunit_find(c->u, p->launch.name);
	if (ci < 0 || !c->u->res[ci].known)
		return;
	occ_input in = kinfo_occ_input(&c->u->res[ci], &p->launch);
	occ_result o;
	if (occ_compute(&c->dev, &in, &o) != 0)
		return;
	*theory = o.ok ? o.occupancy : 0;
	if (o.limits & OCC_LIMIT_REGS)
		*limiter = "registers";
	else if (o.limits & OCC_LIMIT_SMEM)
		*limiter = "shared memory";
	else if (o.limits & OCC_LIMIT_BLOCKS)
		*limiter = "block size";
	else if (o.limits & OCC_LIMIT_WARPS)
		*limiter = "threads per SM";
}

/* The pipe of the kernel planned in p: its tensor-core instructions (the
 * SASS where a disassembler is at hand, else the PTX), what else its code
 * holds that the tensor rules read, and the roofs of that pipe. */
static void fill_pipe(app *a, const runctx *c, const plan *p, const measurement *m, explain_in *in)
{
	int ci = cunit_find(c->u, p->launch.name);
	in->sm = c->sm;
	char *f = ci >= 0 && c->u->ptx && c->u->lowered[ci] ? ptx_extract(c->u->ptx, c->u->lowered[ci], NULL, 0) : NULL;
	if (!f)
		return;
	tensor_use use;
	tensor_use_ptx(f, &use);
	in->pipe = use.prec >= 0 ? use.prec : PIPE_FP32;
	in->tensor_kind = use.kind;
	in->ldmatrix = strstr(f, "ldmatrix") != NULL;
	in->async_copy = strstr(f, "cp.async") != NULL;
	free(f);
	const devinfo *d = &c->dev;
	if (in->pipe == PIPE_FP32) {
		in->pipe_roof = in->roof_gflops;
		in->pipe_datasheet = tensor_datasheet(d->name, d->sm_count, PIPE_FP32, NULL);
		return;
	}
	snprintf(in->tensor_sass, sizeof in->tensor_sass, "%s", use.sass);
	char *tool = NULL, *why = NULL, *listing = NULL, *err = NULL;
	if (sass_find_tool(SASS_NONE, &tool, &why) != SASS_NONE &&
	    sass_disasm(c->u->cubin, c->u->cubin_len, c->u->lowered[ci], NULL, 0, &listing, &err) == 0) {
		tensor_use su;
		tensor_use_sass(listing, &su);
		if (su.prec >= 0)
			snprintf(in->tensor_sass, sizeof in->tensor_sass, "%s", su.sass);
	}
	free(tool);
	free(why);
	free(listing);
	free(err);
	if (m->res.known)
		in->spill_bytes = (double)m->res.spill_st + m->res.spill_ld;
	const troofs *r = &a->troof;
	if (r->device == a->device + 1) {
		in->pipe_roof = r->roof[in->pipe] > 0 ? r->roof[in->pipe] : NAN;
		in->mma_roof = r->mma[in->pipe] > 0 ? r->mma[in->pipe] : NAN;
		in->wgmma_roof = r->wgmma[in->pipe] > 0 ? r->wgmma[in->pipe] : NAN;
	}
	double ds = tensor_datasheet(d->name, d->sm_count, in->pipe, NULL);
	in->pipe_datasheet = ds > 0 ? ds : NAN;
}

/* The figures of the diagnosis from the record, the result and the
 * counters' figures (NULL: none). */
static void fill_in(app *a, const runctx *c, const plan *p, const measurement *m, double empty_ms,
                    const metric_sel *s, const double *fig, explain_in *in)
{
	explain_in_init(in);
	in->median_ms = m->timed ? m->st.median : NAN;
	in->empty_ms = empty_ms > 0 ? empty_ms : NAN;
	in->bytes = m->bytes;
	in->flops = m->flops;
	in->roof_gbps = m->roof_gbps > 0 ? m->roof_gbps : NAN;
	in->roof_gflops = a->roof.device == a->device + 1 && a->roof.gflops > 0 ? a->roof.gflops : NAN;
	double blocks = 1, threads = 1;
	for (int i = 0; i < 3; i++) {
		blocks *= p->launch.grid[i];
		threads *= p->launch.block[i];
	}
	in->blocks = blocks;
	in->threads = blocks * threads;
	occupancy_of(c, p, &in->occ_theory, &in->occ_limiter);
	int ci = cunit_find(c->u, p->launch.name);
	if (ci >= 0 && c->u->ptx && c->u->lowered[ci]) {
		ptx_access_widths(c->u->ptx, c->u->lowered[ci], "global", &in->ld_width, &in->st_width, NULL);
		ptx_access_widths(c->u->ptx, c->u->lowered[ci], "shared", &in->shared_ld_width, &in->shared_st_width, NULL);
	}
	fill_pipe(a, c, p, m, in);
	if (!fig)
		return;
	in->counters = 1;
	in->tensor_active = fig_of(s, fig, "tensor_active");
	in->tensor_inst = fig_of(s, fig, "tensor_inst");
	static const char *const stalls[EXPLAIN_NSTALLS] = { "stall_long_sb", "stall_barrier",
		"stall_lg_throttle", "stall_mio_throttle", "stall_short_sb", "stall_math_pipe", "stall_wait" };
	for (int i = 0; i < EXPLAIN_NSTALLS; i++)
		in->stall[i] = fig_of(s, fig, stalls[i]);
	in->sol[EXPLAIN_DRAM] = fig_of(s, fig, "sol_dram");
	in->sol[EXPLAIN_L2] = fig_of(s, fig, "sol_l2");
	in->sol[EXPLAIN_L1] = fig_of(s, fig, "sol_l1");
	in->sol[EXPLAIN_SM] = fig_of(s, fig, "sol_sm");
	in->dram_bytes = fig_of(s, fig, "dram_read") + fig_of(s, fig, "dram_write");
	in->ld_sectors_per_req = fig_of(s, fig, "ld_sectors_per_req");
	in->st_sectors_per_req = fig_of(s, fig, "st_sectors_per_req");
	in->ld_sectors = fig_of(s, fig, "ld_sectors");
	in->bank_ld = fig_of(s, fig, "bank_conflicts_ld");
	in->bank_st = fig_of(s, fig, "bank_conflicts_st");
	in->shared_ld = fig_of(s, fig, "shared_ld_inst");
	in->shared_st = fig_of(s, fig, "shared_st_inst");
	in->l1_hit = fig_of(s, fig, "l1_hit");
	in->l2_hit = fig_of(s, fig, "l2_hit");
	in->occupancy = fig_of(s, fig, "occupancy");
	in->atomics = fig_of(s, fig, "atomic_requests") + fig_of(s, fig, "reduction_requests");
	in->threads_per_inst = fig_of(s, fig, "threads_per_inst");
	in->local_sectors = fig_of(s, fig, "local_ld_sectors");
}

/* The diagnosis of record m (fig: its counters' figures; NULL: none), kept
 * in the record and printed; mask: measured figures as <m>. */
static const explain_out *diagnose(app *a, const runctx *c, const plan *p, measurement *m, double empty_ms,
                                   const metric_sel *s, const double *fig, int mask)
{
	explain_in in;
	fill_in(a, c, p, m, empty_ms, s, fig, &in);
	explain_out *o = xcalloc(1, sizeof *o);
	explain_compute(&in, o);
	free(m->why);
	m->why = o;
	table t;
	explain_table(&t, m->kernel, o, a->format == FMT_TABLE, a->opt.tty, mask);
	app_table(a, &t, 0);
	table_free(&t);
	return o;
}

static void no_counters_note(app *a, const char *why)
{
	app_note(a, "explain: no counters (%s): the verdict and headroom above come from timing alone; the speed "
	         "of light, the limiter and the rules need them; %s", why, HOW_TO_ALLOW);
}

/* Counters of one more launch of p (nothing timed) with the set named. */
static int profile_again(app *a, runctx *c, int k, const char *set, metric_sel *s, plan *p, result *res, char **err)
{
	timing_opts t = a->opt.topt;
	t.do_time = 0;
	if (metrics_parse(set, s, err) != 0 || run_plan(a, c, k, &t, p, err) != 0)
		return -1;
	counters_ask(s, p);
	return run_exec_checked(a, c, k, p, res, err);
}

/* ------------------------------------------------ a recorded run (tests) */

/* CUPLAY_EXPLAIN_FEED=FILE plays recorded runs where there is no GPU, so
 * that what explain makes of a kernel's timing and counters (and what
 * expect, roofline and the report make of that) is tested on any machine.
 * A line: KERNEL[NAME=V,...] then key=value words: median_ms, empty_ms,
 * counters=0 (no counters read), and the figures of the `explain` metric
 * set by name; "roof memory_gbps=X fp32_gflops=Y" gives the roofs; '#'
 * starts a comment. The first line whose kernel and values match is used.
 * Every figure is recorded, none measured: nothing is masked. */
static int fed;

static int feed_matches(const char *label, size_t n, const char *kernel, const char *vline)
{
	const char *br = memchr(label, '[', n);
	size_t kl = br ? (size_t)(br - label) : n;
	if (strlen(kernel) != kl || strncmp(label, kernel, kl) != 0)
		return 0;
	if (!br)
		return 1;
	char *sel = xstrndup(br + 1, n - kl - 1);
	sel[strcspn(sel, "]")] = 0;
	int ok = 1;
	for (char *save = NULL, *pair = strtok_r(sel, ",", &save); pair && ok; pair = strtok_r(NULL, ",", &save)) {
		char *with = xasprintf(" %s ", pair), *in = xasprintf(" %s ", vline);
		ok = strstr(in, with) != NULL;
		free(with);
		free(in);
	}
	free(sel);
	return ok;
}

/* The words after the label of the first line for kernel at vline (caller
 * frees), or NULL. */
static char *feed_line(const char *text, const char *kernel, const char *vline)
{
	for (const char *l = text; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		while (n > 0 && (*l == ' ' || *l == '\t')) {
			l++;
			n--;
		}
		size_t w = strcspn(l, " \t\n");
		if (w > n)
			w = n;
		if (n > 0 && *l != '#' && feed_matches(l, w, kernel, vline))
			return xstrndup(l + w, n - w);
		l = e ? e + 1 : NULL;
	}
	return NULL;
}

static double feed_val(const char *words, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = words; (p = strstr(p, key)); p += kl)
		if ((p == words || p[-1] == ' ' || p[-1] == '\t') && p[kl] == '=') {
			char *end;
			double v = strtod(p + kl + 1, &end);
			return end == p + kl + 1 ? NAN : v;
		}
	return NAN;
}

static int explain_fed(app *a, const char *path, const int *ks, int nk)
{
	char *text = NULL;
	if (read_file(path, &text, NULL) != 0)
		return app_error(a, "explain: cannot read CUPLAY_EXPLAIN_FEED '%s'", path);
	runctx c;
	if (run_prepare(a, NULL, 1, &c) != 0) {
		free(text);
		return -1;
	}
	fed = 1;
	char *roof = feed_line(text, "roof", "");
	if (roof) {
		memset(&a->roof, 0, sizeof a->roof);
		a->roof.device = a->device + 1;
		a->roof.best = feed_val(roof, "memory_gbps");
		a->roof.gflops = feed_val(roof, "fp32_gflops");
		if (isnan(a->roof.best))
			a->roof.best = 0;
		if (isnan(a->roof.gflops))
			a->roof.gflops = 0;
		memset(&a->troof, 0, sizeof a->troof);
		a->troof.device = a->device + 1;
		for (int k = 0; k < TP_N; k++) {
			char key[40];
			snprintf(key, sizeof key, "%s_mma_gflops", tensor_prec_key(k));
			double v = feed_val(roof, key);
			a->troof.mma[k] = v > 0 ? v : 0;
			snprintf(key, sizeof key, "%s_wgmma_gflops", tensor_prec_key(k));
			v = feed_val(roof, key);
			a->troof.wgmma[k] = v > 0 ? v : 0;
			a->troof.roof[k] = a->troof.mma[k] > a->troof.wgmma[k] ? a->troof.mma[k] : a->troof.wgmma[k];
		}
		free(roof);
	}
	metric_sel *sel = xcalloc(1, sizeof *sel);
	metrics_parse("explain", sel, NULL);
	plan *p = xcalloc(1, sizeof *p);
	char *err = NULL;
	int rc = 0, said_why = 0;
	for (int i = 0; i < nk; i++) {
		const char *name = a->file.sp->kernels[ks[i]].name;
		if (run_plan(a, &c, ks[i], &a->opt.topt, p, &err) != 0) {
			rc = app_error_msg(a, err ? err : "cannot plan the launch");
			free(err);
			err = NULL;
			continue;
		}
		char *line = feed_line(text, name, c.vline);
		double med = line ? feed_val(line, "median_ms") : NAN;
		if (!line || !(med > 0)) {
			rc = app_error(a, "explain: %s at %s: no recorded run with a median_ms in '%s'", name, c.vline, path);
			free(line);
			continue;
		}
		measurement mm;
		int ci = cunit_find(c.u, name);
		measure_init(&mm, a->file.path, p, c.vline, a->opt.topt.do_check, ci >= 0 ? &c.u->res[ci] : NULL);
		mm.launched = 1;
		mm.sm = c.sm;
		mm.device = xasprintf("recorded (%s)", path);
		double x[20];
		for (int k = 0; k < 20; k++)
			x[k] = med;
		measure_set_samples(&mm, x, 20);
		measure_use_roof(&mm, a->roof.best);
		app_set_pipe(a, &mm, app_kernel_pipe(c.u, name));
		measurement *m = (measurement *)keep_record(a, &mm);
		double *fig = NULL;
		if (feed_val(line, "counters") != 0) {
			fig = xcalloc((size_t)sel->nfig + 1, sizeof *fig);
			double *raw = xcalloc((size_t)sel->nraw + 1, sizeof *raw);
			for (int k = 0; k < sel->nfig; k++)
				fig[k] = feed_val(line, sel->fig[k].name);
			for (int k = 0; k < sel->nraw; k++)
				raw[k] = NAN;
			counters_keep(m, sel, raw, fig);
			free(raw);
		}
		const explain_out *o = diagnose(a, &c, p, m, feed_val(line, "empty_ms"), sel, fig, 0);
		if (!o->counters && !said_why) {
			said_why = 1;
			no_counters_note(a, "none in the recorded run");
		}
		free(fig);
		free(line);
	}
	free(p);
	free(sel);
	free(text);
	run_release(&c);
	return rc;
}

/* An `explain` under way: the kernels' shared state. */
typedef struct explaining {
	runctx c;
	metric_sel *sel;
	plan *p;
	result *res;
	int counters, said_why, narrowed, rc;
} explaining;

/* The counters of kernel k's run: computed into its record (returned;
 * *fig, the figures), or why not said; a counter this GPU lacks: the speed
 * of light and the default set again, for this kernel and the next ones. */
static measurement *explain_counters(app *a, explaining *x, int k, int mi, double **fig)
{
	const char *name = a->file.sp->kernels[k].name;
	result *res = x->res;
	char *err = NULL;
	if (x->counters && res->prof.n == x->p->nmetrics && res->prof.status == PROF_ERROR && !x->narrowed) {
		app_note(a, "explain: %s: %s; counters again without the rules' extra ones", name,
		         res->prof.error[0] ? res->prof.error : "counters failed");
		x->narrowed = 1;
		result *r2 = xcalloc(1, sizeof *r2);
		if (profile_again(a, &x->c, k, "sol default", x->sel, x->p, r2, &err) == 0)
			memcpy(&res->prof, &r2->prof, sizeof res->prof);
		free(err);
		free(r2);
	}
	measurement *m = &a->results.runs[mi];
	const metric_sel *used = x->sel;
	if (x->counters && res->prof.n == used->nraw && res->prof.status == PROF_OK) {
		*fig = xcalloc((size_t)(used->nfig ? used->nfig : 1), sizeof **fig);
		metrics_compute(used, res->prof.values, *fig);
		counters_keep(m, used, res->prof.values, *fig);
		free(a->prof_why);
		a->prof_why = NULL;
	} else if (x->counters && res->prof.status == PROF_UNAVAILABLE) {
		free(a->prof_why);
		a->prof_why = xstrdup(res->prof.error[0] ? res->prof.error : "hardware counters unavailable");
		x->counters = 0; /* said once; the other kernels from timing alone */
	} else if (x->counters && res->prof.status != PROF_OK) {
		app_note(a, "explain: %s: %s", name, res->prof.error[0] ? res->prof.error : "counters failed");
	}
	return m;
}

/* Kernel k timed (with counters) and explained: 1 when the run was
 * interrupted. */
static int explain_kernel(app *a, explaining *x, int k)
{
	const char *name = a->file.sp->kernels[k].name;
	plan *p = x->p;
	result *res = x->res;
	char *err = NULL;
	if (run_plan(a, &x->c, k, &a->opt.topt, p, &err) != 0) {
		x->rc = app_error_msg(a, err ? err : "cannot plan the launch");
		free(err);
		return 0;
	}
	if (x->counters)
		counters_ask(x->sel, p);
	if (run_exec_checked(a, &x->c, k, p, res, &err) != 0) {
		x->rc = app_error(a, "%s: %s", name, err ? err : "the worker failed");
		free(err);
		return 0;
	}
	check_failures(a, p, res);
	for (int i = 0; i < res->nchecks; i++)
		if (!res->checks[i].ok)
			x->rc = -1;
	measurement *m = (measurement *)add_record(a, x->c.vline, res, p);
	int mi = a->results.nruns - 1;
	m->res = x->c.u->res[cunit_find(x->c.u, name)];
	m->sm = x->c.sm;
	app_set_pipe(a, m, app_kernel_pipe(x->c.u, name));
	if (res->status == RES_INTERRUPTED)
		return 1;
	double *fig = NULL;
	m = explain_counters(a, x, k, mi, &fig);
	const explain_out *o = diagnose(a, &x->c, p, m, res->empty_ms, x->sel, fig, a->opt.mask_times);
	if (o->counters && perline_explain(a, &x->c, k, o) != 0) /* the rules' lines */
		x->rc = -1;
	if (!o->counters && !x->said_why) {
		x->said_why = 1;
		no_counters_note(a, a->prof_why ? a->prof_why : "not read");
	}
	free(fig);
	return 0;
}

int app_explain(app *a, int argc, char **argv)
{
	int *ks = NULL, nk = 0;
	if (pick_kernels(a, argv + 1, argc - 1, &ks, &nk) != 0)
		return -1;
	int gpu = app_gpu(a);
	if (gpu < 0) {
		free(ks);
		return -1;
	}
	const char *feed = getenv("CUPLAY_EXPLAIN_FEED");
	if (!gpu && feed && *feed) {
		int rc = explain_fed(a, feed, ks, nk);
		free(ks);
		return rc;
	}
	if (!gpu) {
		app_note(a, "explain: skipped: it needs a GPU (it times each kernel and reads its hardware counters); "
		         "compile-only mode here");
		free(ks);
		return 0;
	}
	explaining x;
	memset(&x, 0, sizeof x);
	/* the tensor roofs before the file's compile, where its source may hold
	 * tensor-core code (measuring them compiles and runs kernels of their own) */
	if (app_roofs_once(a) != 0 || (app_src_tensor(a->file.sp->src) && app_troofs_once(a) != 0) ||
	    run_prepare(a, NULL, 1, &x.c) != 0) {
		free(ks);
		return -1;
	}
	x.sel = xcalloc(1, sizeof *x.sel);
	char *err = NULL;
	x.counters = metrics_parse("explain", x.sel, &err) == 0 && !counters_barred(a);
	free(err);
	x.p = xcalloc(1, sizeof *x.p);
	x.res = xcalloc(1, sizeof *x.res);
	for (int i = 0; i < nk && !g_interrupt; i++)
		if (explain_kernel(a, &x, ks[i]))
			break;
	if (g_interrupt) {
		app_note(a, "interrupted");
		x.rc = -1;
	}
	free(x.p);
	free(x.res);
	free(x.sel);
	free(ks);
	run_release(&x.c);
	return x.rc;
}

/* ------------------------------------------------------------ roofline */

/* The latest record of each file, kernel and values that declares flops
 * and was timed, in the order they were first run (newest first in pick);
 * *mem: the memory roof (the measured one, else the records'). */
static int roofline_pick(app *a, int *pick, double *mem)
{
	int np = 0;
	*mem = a->roof.device == a->device + 1 ? a->roof.best : 0;
	for (int i = a->results.nruns - 1; i >= 0; i--) {
		const measurement *m = &a->results.runs[i];
		if (*mem <= 0 && m->roof_gbps > *mem)
			*mem = m->roof_gbps;
		if (!m->launched || !m->timed || !(m->flops > 0))
			continue;
		int dup = 0;
		for (int k = 0; k < np && !dup; k++) {
			const measurement *o = &a->results.runs[pick[k]];
			dup = strcmp(o->kernel, m->kernel) == 0 && strcmp(o->values, m->values) == 0 &&
			      strcmp(o->file, m->file) == 0;
		}
		if (!dup)
			pick[np++] = i;
	}
	return np;
}

/* A placed kernel's row of the data table (on the roof of its pipe). */
static void roofline_row(app *a, table *t, const roofline *r, const measurement *m, double ai, int declared,
                         int pipe)
{
	int row = table_row(t);
	double roof = roofline_roof_on(r, ai, pipe);
	table_set(t, row, 7, "%s", tensor_prec_name(pipe));
	table_set(t, row, 0, "%s", m->kernel);
	table_set(t, row, 1, "%s", m->values);
	if (a->opt.mask_times && !fed) {
		for (int c = 2; c < 7; c++)
			if (c != 4)
				table_set(t, row, c, "<t>");
	} else {
		table_num(t, row, 2, ai);
		table_num(t, row, 3, m->gflops);
		if (roof > 0) {
			table_num(t, row, 5, roof);
			table_num(t, row, 6, m->gflops / roof);
		}
	}
	table_set(t, row, 4, "%s", declared ? "declared" : "counters");
}

/* The chart as text (or a note, masked) and its SVG. */
static int roofline_show(app *a, const roofline *r, int data, const char *svg_path)
{
	int rc = 0;
	if (!data && a->opt.mask_times && !fed) {
		app_note(a, "roofline: %d kernel%s placed (figures masked)", r->n, r->n == 1 ? "" : "s");
	} else if (!data) {
		sbuf b = {0};
		roofline_text(r, &b, 60, 14);
		if (a->display && a->format == FMT_TABLE) {
			sbuf svg = {0};
			roofline_svg_text(r, &svg, 0);
			app_figure(a, b.s, svg.s);
			sb_free(&svg);
		} else {
			FILE *f = app_textf(a);
			fputs(b.s, f);
			fflush(f);
		}
		sb_free(&b);
	}
	if (svg_path) {
		char *err = NULL;
		if (roofline_svg(r, svg_path, &err) != 0) {
			rc = app_error(a, "roofline: %s", err);
			free(err);
		} else {
			app_note(a, "wrote %s", svg_path);
		}
	}
	return rc;
}

/* The tensor roofs, where a picked kernel ran on the tensor cores. */
static void roofline_tensor(app *a, roofline *r, const int *pick, int np)
{
	int tensor = 0;
	for (int k = 0; k < np; k++)
		tensor |= a->results.runs[pick[k]].pipe >= 0 && a->results.runs[pick[k]].pipe < TP_N;
	if (tensor && !fed)
		app_troofs_once(a);
	for (int p = 0; tensor && a->troof.device == a->device + 1 && p < TP_N; p++)
		roofline_set_tensor(r, p, a->troof.roof[p]);
}

int app_roofline(app *a, const char *svg_path)
{
	int *pick = xcalloc((size_t)a->results.nruns + 1, sizeof *pick);
	double mem;
	int np = roofline_pick(a, pick, &mem);
	double fp = a->roof.device == a->device + 1 ? a->roof.gflops : 0;
	char *title = xasprintf("roofline%s%s", a->gpu == 1 ? " of " : "", a->gpu == 1 ? a->worker.dev.name : "");
	roofline r;
	roofline_init(&r, title, mem, fp);
	free(title);
	roofline_tensor(a, &r, pick, np);
	int data = format_is_data(a->format);
	table t;
	if (data) {
		const char *head[] = { "kernel", "values", "intensity", "gflops", "bytes_from", "roof_gflops", "roof_frac",
			               "pipe" };
		table_init(&t, 8, head, "llrrlrrl");
		table_kind(&t, "roofline");
		table_col(&t, 2, "flop_per_byte", U_PLAIN, COL_BOTH);
	}
	for (int k = np - 1; k >= 0; k--) {
		const measurement *m = &a->results.runs[pick[k]];
		double ai;
		int declared;
		if (roofline_place(m, &ai, &declared) != 0)
			continue;
		/* the kernel's name alone, unless it was run at other values too */
		int same = 0;
		for (int q = 0; q < np; q++)
			same += strcmp(a->results.runs[pick[q]].kernel, m->kernel) == 0;
		char *label = same > 1 ? xasprintf("%s [%s]", m->kernel, m->values) : xstrdup(m->kernel);
		int pipe = m->pipe >= 0 ? m->pipe : PIPE_FP32;
		roofline_add_on(&r, label, ai, m->gflops, declared, pipe);
		if (data)
			roofline_row(a, &t, &r, m, ai, declared, pipe);
		free(label);
	}
	free(pick);
	if (data) {
		app_table(a, &t, 0);
		table_free(&t);
	}
	if (r.n == 0) {
		app_note(a, "roofline: no kernel to place: it places the kernels with a '//@ flops' line timed "
		         "on a GPU (by 'run' or 'explain')");
		roofline_free(&r);
		return 0;
	}
	int rc = roofline_show(a, &r, data, svg_path);
	roofline_free(&r);
	return rc;
}
