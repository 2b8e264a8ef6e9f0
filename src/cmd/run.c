/* run.c: the run itself: compile (cache), plan, launch in the worker,
 * check, time, report. */
#include "run.h"
#include "pick.h"
#include "counters.h"
#include "kstate.h"
#include "planshow.h"
#include "prefetch.h"
#include "ptxread.h"
#include "ref.h"
#include "search.h"
#include "cubin.h"
#include "nvrtc.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *values_line(const spec *s, const symtab *vals)
{
	sbuf b = {0};
	for (int i = 0; i < s->nvars; i++) {
		const sym *v = symtab_get(vals, s->vars[i].name, (int)strlen(s->vars[i].name));
		char buf[64] = "?";
		if (v)
			value_format(v->v, buf, sizeof buf);
		sb_printf(&b, "%s%s=%s", i ? " " : "", s->vars[i].name, buf);
	}
	return sb_steal(&b);
}

static const char *masked(app *a, const char *s)
{
	return a->opt.mask_times ? "<t>" : s;
}

void progress(void *ctx, int n, double last_ms)
{
	app *a = ctx;
	if (a->roof_yield) /* measured after a result: quietly */
		return;
	char t[32];
	fmt_time_ms(last_ms, t, sizeof t);
	app_progress(a, "  timing: %d samples, last %s", n, t);
}

void clock_note(app *a, const result *res)
{
	if (res->nsamples == 0 || !res->clock_note[0])
		return;
	if (a->clock_why && strcmp(a->clock_why, res->clock_note) == 0)
		return;
	free(a->clock_why);
	a->clock_why = xstrdup(res->clock_note);
	app_note(a, "timed with CUDA events, not kernel timestamps: %s", res->clock_note);
}

/* Prints what failed in the checks, one line each. */
/* " (element 308, lane 2 of a float4)" for a scalar index into a buffer of
 * a vector type; "" otherwise. */
static const char *lane_of(const plan_buf *pb, int64_t scalar, char *buf, size_t n)
{
	int lanes = dtype_lanes(pb->type);
	buf[0] = 0;
	if (lanes > 1 && scalar >= 0)
		snprintf(buf, n, " (element %" PRId64 ", lane %d of a %s)", scalar / lanes, (int)(scalar % lanes),
		         dtype_name(pb->type));
	return buf;
}

void check_failures(app *a, const plan *p, const result *res)
{
	for (int i = 0; i < res->nchecks; i++) {
		const check_result *c = &res->checks[i];
		if (c->ok)
			continue;
		const plan_check *pc = &p->checks[i];
		const char *against = pc->kind == CHECK_KERNEL ? "kernel" : "reference";
		char lane[96];
		lane_of(&p->bufs[pc->out], c->bad_index, lane, sizeof lane);
		if (c->nonfinite && c->bad_index >= 0)
			app_error(a, "%s: '%s' differs from %s '%s': %" PRIu64 " non-finite values, first at index %" PRId64
			          "%s (got %g, want %g)%s", p->launch.name, c->buf, against, pc->ref,
			          c->nonfinite, c->bad_index, lane, c->got, c->want,
			          isnan(c->got) ? ": never written?" : "");
		else if (c->bad_index >= 0)
			app_error(a, "%s: '%s' differs from %s '%s': relative error %.2e over tolerance %.0e, "
			          "first bad index %" PRId64 "%s (got %g, want %g)", p->launch.name, c->buf, against,
			          pc->ref, c->rel_err, c->tol, c->bad_index, lane, c->got, c->want);
		else
			app_error(a, "%s: '%s' differs from %s '%s': relative error %.2e over tolerance %.0e",
			          p->launch.name, c->buf, against, pc->ref, c->rel_err, c->tol);
	}
}

/* Why none of the file's targets runs on compute capability cc. */
static char *targets_why(const spec *s, int cc)
{
	sbuf b = {0};
	for (int i = 0; i < s->narch; i++) {
		char *why = NULL, name[24];
		target_runs(&s->arch[i], cc, &why);
		target_spell(&s->arch[i], name, sizeof name);
		sb_printf(&b, "%s%s%s%s", i ? "; " : "", s->narch > 1 ? name : "", s->narch > 1 ? ": " : "",
		          why ? why : "?");
		free(why);
	}
	return sb_steal(&b);
}

/* The target of the file for the device (`//@ arch`, target.h): the first
 * of its list the device runs. Without a GPU the device is the one assumed
 * (--arch, else sm_90): where none of the list runs there, the first is
 * compiled and a note says what a run on such a GPU would do. */
static int pick_target(app *a, const spec *s, runctx *c)
{
	int cc = c->dev.cc_major * 10 + c->dev.cc_minor;
	if (s->narch == 0) {
		c->sm = a->opt.arch_sm ? a->opt.arch_sm : c->gpu ? cc : 90;
		if (a->opt.arch_sm && a->opt.arch_suffix) /* --arch sm_100a, sm_100f */
			snprintf(c->arch, sizeof c->arch, "sm_%d%c", c->sm, a->opt.arch_suffix);
		else
			snprintf(c->arch, sizeof c->arch, "sm_%d", c->sm);
		return 0;
	}
	int i = target_pick(s->arch, s->narch, cc);
	const arch_target *t = &s->arch[i < 0 ? 0 : i];
	char name[24];
	target_spell(t, name, sizeof name);
	if (i < 0) {
		char *why = targets_why(s, cc);
		char what[64];
		int many = s->narch > 1;
		snprintf(what, sizeof what, "%s%s%s %s", many ? "no target of 'arch'" : "'", many ? "" : name,
		         many ? "" : "'", many ? (c->gpu ? "runs" : "would run") : (c->gpu ? "does not run" : "would not run"));
		if (c->gpu)
			app_error(a, "%s:%d:%d: %s on the GPU '%s' (compute capability %d.%d): %s", s->path, t->line,
			          t->col, what, c->dev.name, cc / 10, cc % 10, why);
		else
			app_note(a, "compile-only mode: %s:%d:%d: %s on a GPU of compute capability %d.%d (the one "
			         "assumed; --arch sets it): %s; a run there stops here", s->path, t->line, t->col, what,
			         cc / 10, cc % 10, why);
		free(why);
		if (c->gpu)
			return -1;
	}
	c->sm = target_resolve(t, cc, c->arch, sizeof c->arch);
	c->target = t;
	return 0;
}

/* NVRTC compiles for the file's target: 0, or -1 with the error at the
 * `arch` line (a target NVRTC does not know, or too new for it). */
static int target_known(app *a, const spec *s, const runctx *c)
{
	int have[128], n;
	if (!c->target || nvrtc_load(NULL) != 0 || (n = nvrtc_archs(have, 128)) <= 0)
		return 0;
	for (int k = 0; k < n; k++)
		if (have[k] == c->sm)
			return 0;
	return app_error(a, "%s:%d:%d: NVRTC %s does not compile for '%s' (it compiles for sm_%d to sm_%d)", s->path,
	                 c->target->line, c->target->col, nvrtc_version(), c->arch, have[0], have[n - 1]);
}

int run_prepare(app *a, const symtab *extra, int announce, runctx *c)
{
	return run_prepare_for(a, extra, announce, NULL, 0, c);
}

/* c's values, target and device for a run (settings, then extra): 0, or
 * -1 said. */
static int prepare_values(app *a, const symtab *extra, runctx *c)
{
	memset(c, 0, sizeof *c);
	const spec *s = a->file.sp;
	int gpu = app_gpu(a);
	if (gpu < 0)
		return -1;
	c->gpu = gpu;
	app_current_dev(a, &c->dev);
	if (pick_target(a, s, c) != 0)
		return -1;
	/* the user's settings, then the extra ones (a sweep point, a variant) */
	symtab merged = {0};
	for (int i = 0; i < a->file.settings.n; i++)
		symtab_set(&merged, a->file.settings.v[i].name, a->file.settings.v[i].v, 0);
	for (int i = 0; extra && i < extra->n; i++)
		symtab_set(&merged, extra->v[i].name, extra->v[i].v, 0);
	char *err = NULL;
	int r = plan_values(s, &merged, &c->dev, &c->vals, &err);
	symtab_free(&merged);
	if (r != 0) {
		app_error_msg(a, err);
		free(err);
		return -1;
	}
	c->vline = values_line(s, &c->vals);
	app_warm_join();
	if (target_known(a, s, c) != 0) {
		run_release(c);
		return -1;
	}
	return 0;
}

/* The unit of kernels ks[0..nk) (ks NULL: the whole file) at c's values
 * into c->u; NULL with *err. The disk cache's warning is said. */
static const cunit *compile_for(app *a, runctx *c, const int *ks, int nk, char **err)
{
	const spec *s = a->file.sp;
	int ndefs;
	char **defs = plan_defines(s, &c->vals, &ndefs);
	char *warn = NULL;
	c->u = ks ? ccache_compile_some(&a->cache, s, ks, nk, (const char *const *)defs, ndefs, c->arch, &c->from,
	                                &c->compile_ms, &warn, err)
	          : ccache_compile(&a->cache, s, (const char *const *)defs, ndefs, c->arch, &c->from, &c->compile_ms,
	                           &warn, err);
	app_free_list(defs, ndefs);
	if (warn) {
		app_note(a, "warning: %s", warn);
		free(warn);
	}
	return c->u;
}

/* The compile's line: the file, the values, where the unit came from. */
static void announce_compile(app *a, const runctx *c)
{
	const spec *s = a->file.sp;
	char *base = str_visible(strrchr(s->path, '/') ? strrchr(s->path, '/') + 1 : s->path);
	char msbuf[32];
	snprintf(msbuf, sizeof msbuf, "%.0f ms", c->compile_ms);
	if (c->from == CC_COMPILED)
		app_note(a, "%s  %s  (compiled in %s, %s)", base, c->vline, masked(a, msbuf), c->arch);
	else
		app_note(a, "%s  %s  (cached, %s)", base, c->vline, c->arch);
	free(base);
}

/* The unit's NVRTC warnings, the lines not said yet in this run (*said
 * holds those said; NULL: say them all). */
static void unit_warnings(app *a, const cunit *u, sbuf *said)
{
	if (!u->warnings)
		return;
	if (!said) {
		app_note(a, "%s", u->warnings);
		return;
	}
	sbuf b = {0};
	for (const char *l = u->warnings; *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		char *line = xstrndup(l, n);
		sbuf key = {0};
		sb_printf(&key, "\n%s\n", line);
		if (!said->s || !strstr(said->s, key.s)) {
			sb_printf(said, "%s%s\n", said->len ? "" : "\n", line);
			sb_printf(&b, "%s%s", b.len ? "\n" : "", line);
		}
		sb_free(&key);
		free(line);
		l += n + (e ? 1 : 0);
	}
	if (b.len)
		app_note(a, "%s", b.s);
	sb_free(&b);
}

int run_prepare_for(app *a, const symtab *extra, int announce, const int *ks, int nk, runctx *c)
{
	if (prepare_values(a, extra, c) != 0)
		return -1;
	char *err = NULL;
	if (!compile_for(a, c, ks, nk, &err)) {
		app_error_msg(a, err ? err : "compilation failed");
		free(err);
		run_release(c);
		return -1;
	}
	if (announce) {
		announce_compile(a, c);
		unit_warnings(a, c->u, NULL);
	}
	return 0;
}

/* Each kernel of ks[0..nk) compiled on its own, at once, into the cache:
 * 1 when any was compiled here, -1 when one does not compile. */
static int compile_each(app *a, runctx *c, const int *ks, int nk)
{
	int ndefs, compiled = 0;
	char **defs = plan_defines(a->file.sp, &c->vals, &ndefs);
	cc_item *it = xcalloc((size_t)nk, sizeof *it);
	for (int i = 0; i < nk; i++)
		it[i] = (cc_item){ (const char *const *)defs, ndefs, &ks[i], 1 };
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	compiled = ccache_compile_batch(&a->cache, a->file.sp, it, nk, c->arch, cores > 0 ? (int)cores : 1) > 0;
	free(it);
	app_free_list(defs, ndefs);
	/* each kernel's unit, from the cache now (or compiled here) */
	for (int i = 0; i < nk; i++) {
		char *err = NULL;
		if (!compile_for(a, c, &ks[i], 1, &err)) {
			free(err);
			return -1;
		}
		compiled |= c->from == CC_COMPILED;
	}
	return compiled;
}

int run_prepare_each(app *a, const int *ks, int nk, runctx *c, sbuf *said)
{
	if (nk < 2)
		return run_prepare_for(a, NULL, 1, ks, nk, c);
	if (prepare_values(a, NULL, c) != 0)
		return -1;
	uint64_t t0 = now_ns();
	/* the compile `set` began in the background (prefetch.h: the kernels
	 * as one unit) is waited for, not stopped: that unit serves them all;
	 * where one kernel does not compile, the kernels as one unit, as
	 * before, say the error */
	int compiled = ccache_pending(&a->cache) ? -1 : compile_each(a, c, ks, nk);
	c->each = compiled >= 0;
	char *err = NULL;
	if (!compile_for(a, c, ks, c->each ? 1 : nk, &err)) {
		app_error_msg(a, err ? err : "compilation failed");
		free(err);
		run_release(c);
		return -1;
	}
	if (compiled == 1)
		c->from = CC_COMPILED;
	c->compile_ms = ms_since(t0);
	announce_compile(a, c);
	unit_warnings(a, c->u, said);
	return 0;
}

int run_unit_for(app *a, runctx *c, int k, sbuf *said, char **err)
{
	if (!c->each)
		return 0;
	cc_source from = c->from;
	double ms = c->compile_ms;
	if (!compile_for(a, c, &k, 1, err))
		return -1;
	c->from = from; /* the records keep the run's compile */
	c->compile_ms = ms;
	unit_warnings(a, c->u, said);
	return 0;
}

void run_release(runctx *c)
{
	symtab_free(&c->vals);
	free(c->vline);
	memset(c, 0, sizeof *c);
}

/* The outputs the kernel never reads, from its PTX: the timing loop need
 * not reset them before each sample, since nothing the kernel does can
 * depend on what they held. Every pointer the buffer is bound to must be
 * unread; globals and managed buffers are always reset. */
static void mark_unread_outputs(const char *ptx, plan *p)
{
	uint64_t reads;
	if (!ptx || ptx_param_reads(ptx, p->launch.lowered[0] ? p->launch.lowered : p->launch.name, &reads, NULL) != 0)
		return;
	for (int i = 0; i < p->nbufs; i++) {
		plan_buf *b = &p->bufs[i];
		if (!b->output || b->global || b->managed)
			continue;
		int bound = 0, read = 0;
		for (int j = 0; j < p->launch.nargs; j++)
			if (p->launch.args[j].kind == ARG_PTR && p->launch.args[j].buf == i) {
				bound = 1;
				read |= j >= 63 || (reads >> j & 1);
			}
		b->unread = bound && !read;
		if (getenv("CUPLAY_TRACE"))
			fprintf(stderr, "trace: %s: output '%s' %s\n", p->launch.name, b->name,
			        b->unread ? "never read: not reset before each sample" : "may be read: reset before each sample");
	}
}

/* The inputs a launch may write, from its PTX (every input it takes where
 * the PTX cannot say): the worker restores them before the next run, so
 * that no kernel's check stands on what another left in an input. */
static void mark_written_inputs(const char *ptx, plan *p, const plan_launch *l)
{
	uint64_t reads, writes;
	ptx_param_access(ptx, l->lowered[0] ? l->lowered : l->name, &reads, &writes, NULL);
	for (int j = 0; j < l->nargs; j++) {
		const plan_arg *g = &l->args[j];
		if (g->kind != ARG_PTR || g->buf < 0 || p->bufs[g->buf].output || !(j >= 63 || (writes >> j & 1)))
			continue;
		p->bufs[g->buf].written = 1;
		if (getenv("CUPLAY_TRACE"))
			fprintf(stderr, "trace: %s: input '%s' may be written: restored before the next run\n", l->name,
			        p->bufs[g->buf].name);
	}
}

int run_plan(app *a, runctx *c, int k, const timing_opts *t, plan *p, char **err)
{
	const spec *s = a->file.sp;
	int ci = cunit_find(c->u, s->kernels[k].name);
	if (ci < 0)
		return fail(err, "kernel '%s' is missing from the compiled unit", s->kernels[k].name);
	if (plan_build(s, k, &c->vals, &c->dev, t, p, err) != 0)
		return -1;
	if (a->opt.seed)
		p->seed = a->opt.seed;
	snprintf(p->launch.lowered, sizeof p->launch.lowered, "%s", c->u->lowered[ci]);
	for (int i = 0; i < p->nchecks; i++)
		if (p->checks[i].kind == CHECK_KERNEL) {
			int oc = cunit_find(c->u, p->checks[i].other.name);
			if (oc >= 0)
				snprintf(p->checks[i].other.lowered, sizeof p->checks[i].other.lowered, "%s", c->u->lowered[oc]);
		}
	p->cubin_len = c->u->cubin_len;
	for (int j = 0; j < p->nsteps; j++) {
		int sc = cunit_find(c->u, p->steps[j].name);
		if (sc < 0)
			return fail(err, "kernel '%s' is missing from the compiled unit", p->steps[j].name);
		snprintf(p->steps[j].lowered, sizeof p->steps[j].lowered, "%s", c->u->lowered[sc]);
		if (plan_validate_launch(s, s->kernels[k].steps[j], &p->steps[j], &c->dev, c->u->res[sc].smem, err) != 0)
			return -1;
	}
	if (p->nsteps == 0) /* a step may read what another wrote: a sequence resets every output */
		mark_unread_outputs(c->u->ptx, p);
	mark_written_inputs(c->u->ptx, p, &p->launch);
	for (int j = 0; j < p->nsteps; j++)
		mark_written_inputs(c->u->ptx, p, &p->steps[j]);
	plan_bus(p);
	/* each global is a variable of the module, of the size declared */
	for (int i = 0; i < p->nbufs; i++) {
		plan_buf *pb = &p->bufs[i];
		if (!pb->global)
			continue;
		const spec_buffer *b = &s->bufs[i];
		uint64_t size = 0, want = pb->count * dtype_size(pb->type);
		int is_const = 0;
		if (cubin_object(c->u->cubin, c->u->cubin_len, pb->sym, &size, &is_const) != 0)
			return fail(err, "%s:%d:%d: global '%s': the kernel file has no __constant__ or __device__ "
			            "variable '%s'", s->path, b->line, b->col, pb->name, pb->name);
		if (size != want)
			return fail(err, "%s:%d:%d: global '%s' is declared %s[%" PRIu64 "] (%" PRIu64 " bytes) but the "
			            "kernel file's '%s' has %" PRIu64 " bytes", s->path, b->line, b->col, pb->name,
			            dtype_name(pb->type), pb->count, want, pb->name, size);
		if (is_const && pb->output)
			return fail(err, "%s:%d:%d: global '%s' is __constant__: a kernel cannot write it, so it "
			            "cannot be an output", s->path, b->line, b->col, pb->name);
		pb->is_const = is_const;
	}
	return plan_validate(s, k, p, &c->dev, c->u->res[ci].smem, err);
}

/* What the kernel printed (device printf, an assertion's message): one
 * launch's output, each line labelled with the kernel, and a count of what
 * the other launches printed. */
/* s[0..len) with control characters (a kernel may print anything) shown
 * as '?', into buf. */
static const char *printable(const char *s, int len, char *buf, size_t n)
{
	size_t k = 0;
	for (int i = 0; i < len && k + 1 < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		buf[k++] = ch == '\t' || ch >= 0x20 ? (char)ch : '?';
	}
	buf[k] = 0;
	return buf;
}

/* What a launch printed: at most PRINTF_SHOW lines of it, the first ones
 * (the last ones after a failure: an assertion's message is at the end). */
enum { PRINTF_SHOW = 20 };

static void show_printf(app *a, const plan *p, const result *res)
{
	char line[sizeof res->printf_text];
	if (res->printf_len == 0)
		return;
	const char *name = p->launch.name;
	const char *t = res->printf_text, *end = t + res->printf_len;
	int n = 0;
	for (const char *q = t; q < end; q++)
		n += *q == '\n';
	n += end[-1] != '\n';
	/* lines of the launch not in the text, or beyond what is shown */
	uint64_t all = res->printf_lines > (uint64_t)n ? res->printf_lines : (uint64_t)n;
	int show = n < PRINTF_SHOW ? n : PRINTF_SHOW;
	if (res->printf_tail) {
		for (int skip = n - show; skip > 0 && t < end; skip--) {
			const char *nl = memchr(t, '\n', (size_t)(end - t));
			t = nl ? nl + 1 : end;
		}
		if (all > (uint64_t)show)
			app_note(a, "printf %s: ... %" PRIu64 " line%s before these, not shown", name, all - show,
			         all - show == 1 ? "" : "s");
	}
	for (int i = 0; i < show && t < end; i++) {
		const char *nl = memchr(t, '\n', (size_t)(end - t));
		int len = (int)((nl ? nl : end) - t);
		app_note(a, "printf %s: %s", name, printable(t, len, line, sizeof line));
		t = nl ? nl + 1 : end;
	}
	if (!res->printf_tail && all > (uint64_t)show)
		app_note(a, "printf %s: ... %" PRIu64 " more line%s from this launch, not shown", name, all - show,
		         all - show == 1 ? "" : "s");
	if (res->printf_others > 0 && res->printf_more_lines > 0)
		app_note(a, "printf: %d more launch%s printed %" PRIu64 " line%s, not shown (printf in a timed "
		         "kernel changes its time)", res->printf_others, res->printf_others == 1 ? "" : "es",
		         res->printf_more_lines, res->printf_more_lines == 1 ? "" : "s");
}

/* CUPLAY_TRACE: where the timing loop's time went, per sample (us). */
static void trace_loop(const plan *p, const result *res)
{
	const loop_split *sp = &res->split;
	int n = res->nsamples;
	double med = 0, rel = 0, tick = 0, runs = 1;
	if (res->ci_hi_ms > 0) {
		stats st;
		stats_compute(res->samples_ms, n, &st);
		med = st.median;
		rel = st.ci_rel;
		tick = st.tick;
		runs = st.cluster;
	}
	char inruns[64] = "";
	if (runs > 1)
		snprintf(inruns, sizeof inruns, "; samples in runs: the median's variance x%.1f", runs);
	fprintf(stderr, "trace: %s loop %.2f ms, %d samples, stopped by %s (median %.6f ms +-%.2f%%): per sample "
	        "%.1f us = kernel %.1f + issuing %.1f + waiting beyond the kernel %.1f + records %.1f (%d fetches) "
	        "+ rule %.1f + other %.1f; on the GPU one reset of %d output%s %.1f us, one L2 flush %.1f us%s; clock step %.0f ns\n",
	        p->launch.name, sp->loop_ms, n, stop_why_name(res->stop)[0] ? stop_why_name(res->stop) : "-", med, 100 * rel,
	        1e3 * sp->loop_ms / n, 1e3 * sp->kernel_ms / n, 1e3 * sp->issue_ms / n,
	        1e3 * (sp->wait_ms - sp->kernel_ms) / n, 1e3 * sp->records_ms / n, sp->takes, 1e3 * sp->rule_ms / n,
	        1e3 * (sp->loop_ms - sp->issue_ms - sp->wait_ms - sp->records_ms - sp->rule_ms) / n,
	        sp->resets, sp->resets == 1 ? "" : "s", 1e3 * sp->reset_gpu_ms, 1e3 * sp->flush_gpu_ms, inruns, 1e6 * tick);
	/* CUPLAY_TRACE_SAMPLES: every sample, in the order taken, for one's own statistics */
	if (getenv("CUPLAY_TRACE_SAMPLES")) {
		fprintf(stderr, "trace: %s samples (ms, in order):", p->launch.name);
		for (int i = 0; i < n; i++)
			fprintf(stderr, " %.6f", res->samples_ms[i]);
		fputc('\n', stderr);
	}
}

/* CUPLAY_TRACE: one round trip of a run in the worker (the timed one, or
   the check pass) after its compile. */
static void trace_trip(const plan *p, const runctx *c, const char *from, const result *res, double trip_ms)
{
	if (getenv("CUPLAY_TRACE"))
		fprintf(stderr, "trace: %s compile %.2f ms (%s), worker %.2f ms (setup %.2f, check %.2f, timing %.2f), "
		        "round trip %.2f ms, samples %d\n", p->launch.name, c->compile_ms, from, res->launch_ms,
		        res->setup_ms, res->check_ms, res->time_ms, trip_ms, res->nsamples);
}

int run_exec(app *a, runctx *c, const plan *p, result *res, char **err)
{
	memset(res, 0, sizeof *res);
	uint64_t t_req = now_ns();
	int wr = wc_run(&a->worker, p, c->u->cubin, c->u->cubin_len, a->opt.timeout_s, &g_interrupt,
	                progress, a, res, err);
	if (a->opt.interactive && !a->roof_yield)
		fprintf(stderr, "\r\033[K");
	if (wr != 0)
		return -1;
	show_printf(a, p, res);
	if (res->status == RES_FATAL)
		return fail(err, "%s: worker restarted, settings kept", res->error);
	if (res->status == RES_ERROR)
		return fail(err, "%s", res->error);
	trace_trip(p, c, c->from == CC_COMPILED ? "compiled" : c->from == CC_MEMORY ? "memory" : "disk", res,
	           ms_since(t_req));
	if (getenv("CUPLAY_TRACE") && res->nsamples > 0)
		trace_loop(p, res);
	return 0;
}

/* The values of `//@ check at`, evaluated with the run's values. */
int check_at_values(app *a, const runctx *c, symtab *extra, char **err)
{
	const spec *s = a->file.sp;
	memset(extra, 0, sizeof *extra);
	for (int i = 0; i < s->ncheck_at; i++) {
		const spec_var *cv = &s->check_at[i];
		value v;
		int col = 0;
		char *msg = NULL;
		if (expr_eval(cv->value.text, &c->vals, &v, &col, &msg) != 0) {
			fail(err, "%s:%d:%d: %s", s->path, cv->value.line, cv->value.col + (col > 0 ? col - 1 : 0), msg);
			free(msg);
			symtab_free(extra);
			return -1;
		}
		symtab_set(extra, cv->name, v, 0);
	}
	return 0;
}

int run_check_plan(app *a, runctx *c, int k, const plan *p, plan *pc, void **cubin, size_t *len, char **err)
{
	if (a->file.sp->ncheck_at == 0 || !p->t.do_check)
		return 0;
	symtab extra;
	if (check_at_values(a, c, &extra, err) != 0)
		return -1;
	runctx cc;
	int r = run_prepare_for(a, &extra, 0, &k, 1, &cc); /* k alone, as the run compiles it */
	symtab_free(&extra);
	if (r != 0)
		return fail(err, "cannot prepare the check pass ('//@ check at')");
	timing_opts tc = p->t;
	tc.do_time = 0;
	r = run_plan(a, &cc, k, &tc, pc, err);
	if (r == 0) {
		*len = cc.u->cubin_len;
		*cubin = xmalloc(*len);
		memcpy(*cubin, cc.u->cubin, *len);
	}
	run_release(&cc);
	return r == 0 ? 1 : -1;
}

int run_exec_checked(app *a, runctx *c, int k, plan *p, result *res, char **err)
{
	kstate_note_once(a, c->u, k);
	if (a->file.sp->ncheck_at == 0 || !p->t.do_check || !c->gpu)
		return run_exec(a, c, p, res, err);
	/* check small: a plan at the `check at` values, checking only */
	plan *pc = xcalloc(1, sizeof *pc);
	void *cubin = NULL;
	size_t len = 0;
	uint64_t t_prep = now_ns();
	int r = run_check_plan(a, c, k, p, pc, &cubin, &len, err);
	if (r == 1) {
		double prep_ms = ms_since(t_prep);
		uint64_t t_req = now_ns();
		memset(res, 0, sizeof *res);
		r = wc_run(&a->worker, pc, cubin, len, a->opt.timeout_s, &g_interrupt, progress, a, res, err);
		if (r == 0 && (res->status == RES_FATAL || res->status == RES_ERROR))
			r = fail(err, "%s%s", res->error, res->status == RES_FATAL ? ": worker restarted, settings kept" : "");
		char from[64]; /* the check pass is the run's own work: its round trip, as the timed one's */
		snprintf(from, sizeof from, "check pass, prepared in %.2f ms", prep_ms);
		if (r == 0)
			trace_trip(pc, c, from, res, ms_since(t_req));
	}
	free(pc);
	free(cubin);
	if (r != 0)
		return -1;
	int nchecks = res->nchecks;
	check_result checks[PLAN_MAX_CHECKS];
	memcpy(checks, res->checks, sizeof checks);
	/* then time large, without checking again */
	p->t.do_check = 0;
	p->t.checked_apart = 1;
	r = run_exec(a, c, p, res, err);
	p->t.checked_apart = 0;
	p->t.do_check = 1;
	if (r != 0)
		return -1;
	res->nchecks = nchecks;
	memcpy(res->checks, checks, sizeof checks);
	return 0;
}

/* "N=509" for the note under a table. */
static char *check_at_text(const app *a)
{
	sbuf b = {0};
	for (int i = 0; i < a->file.sp->ncheck_at; i++)
		sb_printf(&b, "%s%s=%s", i ? " " : "", a->file.sp->check_at[i].name, a->file.sp->check_at[i].value.text);
	return sb_steal(&b);
}

/* Under the table of a file with `//@ check at`: where it was checked. */
static void check_at_note(app *a, int gpu)
{
	char *ca = check_at_text(a);
	app_note(a, "%s at %s ('//@ check at'), timed at the values above", gpu ? "checked" : "to be checked", ca);
	free(ca);
}

/* `timing graph on`: a sequence's graph against its steps one by one. */
static void graph_note(app *a, const char *name, const result *res)
{
	char g[32], s[32];
	fmt_time_ms(res->seq.graph_ms, g, sizeof g);
	fmt_time_ms(res->seq.streamed_ms, s, sizeof s);
	if (res->seq.note[0])
		app_note(a, "%s: %s", name, res->seq.note);
	else if (res->seq.graph_n > 0)
		app_note(a, "%s: as one CUDA graph %s, launched step by step %s (both between CUDA events from an "
		         "idle GPU, in turns, %d each)", name, masked(a, g), masked(a, s), res->seq.graph_n);
}

/* A kernel within 2x of an empty launch measures the launch, not itself. */
static void launch_bound_note(app *a, const char *name, const result *res, const stats *st)
{
	if (res->nsamples == 0 || !(res->empty_ms > 0) || st->median >= 2 * res->empty_ms)
		return;
	char e[32], m[32];
	fmt_time_ms(res->empty_ms, e, sizeof e);
	fmt_time_ms(st->median, m, sizeof m);
	if (a->opt.topt.batch > 1)
		app_note(a, "%s: launch-bound: %s a launch, within 2x of an empty launch (%s) in batches of %d",
		         name, a->opt.mask_times ? "<t>" : m, a->opt.mask_times ? "<t>" : e, a->opt.topt.batch);
	else
		app_note(a, "%s: launch-bound: %s is within 2x of an empty launch (%s); 'batch 100' times "
		         "back-to-back launches", name, a->opt.mask_times ? "<t>" : m, a->opt.mask_times ? "<t>" : e);
}

/* A kernel on the tensor cores: its GFLOP/s against the roof of its
 * precision, a line into b (the table's GFLOP/s is the figure; the roof is
 * the pipe's, not the FMA roof). */
static void pipe_note(app *a, const measurement *m, sbuf *b)
{
	if (m->pipe < 0 || m->pipe >= TP_N || !(m->gflops > 0) || !m->timed)
		return;
	double roof = a->troof.device == a->device + 1 ? a->troof.roof[m->pipe] : 0;
	if (b->len)
		sb_putc(b, '\n');
	if (a->opt.mask_times)
		sb_printf(b, "%s: on the %s tensor cores: <t> of their roof", m->kernel, tensor_prec_name(m->pipe));
	else if (roof > 0)
		sb_printf(b, "%s: on the %s tensor cores: %.1f TFLOP/s, %.1f%% of their roof (%.0f TFLOP/s; `roof`)",
		          m->kernel, tensor_prec_name(m->pipe), m->gflops / 1000, 100 * m->gflops / roof, roof / 1000);
	else
		sb_printf(b, "%s: on the %s tensor cores (their roof not measured on this device)", m->kernel,
		          tensor_prec_name(m->pipe));
}

/* Several kernels: the speedup over the first (the last nrec records),
 * as the lab's graph. */
static void speedup_chart(app *a, int nrec)
{
	chart ch;
	char *title = xasprintf("speedup over %s", a->results.runs[a->results.nruns - nrec].kernel);
	chart_init(&ch, title, "x");
	free(title);
	ch.baseline = 0;
	double base = a->results.runs[a->results.nruns - nrec].st.median, best = 0;
	for (int i = a->results.nruns - nrec; i < a->results.nruns; i++) {
		const run_record *r = &a->results.runs[i];
		double sp = r->st.median > 0 ? base / r->st.median : 0;
		if (r->check != MCHECK_FAIL && sp > best) {
			best = sp;
			ch.best = ch.n;
		}
		chart_add(&ch, r->kernel, sp, r->check == MCHECK_FAIL ? "FAIL" : NULL);
		chart_noise(&ch, r->st.has_ci ? r->st.ci_rel : 0);
	}
	app_chart_show(a, &ch);
	app_keep_chart(a, &ch);
}

/* Without a GPU: the plan's buffers (once), pipeline and resources, and a
 * record of what would run. */
static void run_compile_only(app *a, runctx *c, const plan *p, const char *name, table *t, int *printed_bufs)
{
	int k = spec_kernel_find(a->file.sp, name);
	if (k >= 0)
		kstate_note_once(a, c->u, k);
	if (!*printed_bufs)
		planshow_buffers(a, p);
	*printed_bufs = 1;
	if (p->nchunks > 0)
		planshow_pipeline(a, p);
	planshow_resource_row(t, c, p, a->file.path);
	measurement cm;
	measure_init(&cm, a->file.path, p, c->vline, a->opt.topt.do_check, &c->u->res[cunit_find(c->u, name)]);
	cm.sm = c->sm;
	cm.compile_ms = c->from == CC_COMPILED ? c->compile_ms : 0;
	keep_record(a, &cm);
}

/* A run's result: its record, its row, its notes. -1 when its check
 * failed. */
static int run_result(app *a, runctx *c, const plan *p, const result *res, const char *name, table *t,
                      sbuf *clk, sbuf *pipes)
{
	measurement *m = (measurement *)add_record(a, c->vline, res, p);
	m->res = c->u->res[cunit_find(c->u, name)];
	m->sm = c->sm;
	app_set_pipe(a, m, app_kernel_pipe(c->u, name));
	m->compile_ms = c->from == CC_COMPILED ? c->compile_ms : 0;
	measure_row(t, table_row(t), 0, m, a->opt.mask_times);
	app_clock_add(a, m, clk);
	check_failures(a, p, res);
	clock_note(a, res);
	launch_bound_note(a, name, res, &m->st);
	pipe_note(a, m, pipes);
	graph_note(a, name, res);
	return m->check == MCHECK_FAIL ? -1 : 0;
}

/* The first result before the roofs: where a row of the last nrec has a
 * bandwidth, the table says its roof fraction comes next. */
static void roof_next_note(app *a, int nrec)
{
	for (int i = a->results.nruns - nrec; i >= 0 && i < a->results.nruns; i++)
		if (a->results.runs[i].gbps > 0 && !(a->results.runs[i].roof_gbps > 0) && !a->results.runs[i].link[0]) {
			app_note(a, "the roof column comes next: this GPU's roofs are measured after this result, before "
			         "the next prompt");
			return;
		}
}

/* Under a run's table of nrows: the trace of when it was shown (the
 * first result's time, CUPLAY_TRACE), and where the roofs wait (later),
 * the note that its roof comes next. */
static void result_shown(app *a, int nrows, int nrec, int later, uint64_t t_start)
{
	if (getenv("CUPLAY_TRACE") && nrows > 0)
		fprintf(stderr, "trace: run: the result shown %.2f ms after the command began%s\n", ms_since(t_start),
		        later ? " (the roofs and the kernel clock's check after it)" : "");
	if (later)
		roof_next_note(a, nrec);
}

int app_run(app *a, char **names, int nnames)
{
	uint64_t t_start = now_ns();
	int *ks = NULL, nk = 0;
	if (pick_kernels(a, names, nnames, &ks, &nk) != 0)
		return -1;
	runctx c;
	sbuf warned = {0}; /* the compile's warnings said, a line each */
	/* the tensor roofs too where the source may hold tensor-core code: each
	 * such kernel's GFLOP/s is said against its precision's roof; and
	 * the memory roofs and the clock's check, at the prompt on an empty
	 * cache, after the result (app_roofs_later) */
	int later = app_roofs_later(a);
	if ((!later && app_roofs_once(a) != 0) || (app_src_tensor(a->file.sp->src) && app_troofs_once(a) != 0) ||
	    run_prepare_each(a, ks, nk, &c, &warned) != 0) {
		sb_free(&warned);
		free(ks);
		return -1;
	}
	app_prefetch_note_run(a, ks, nk);
	int rc = 0;
	sbuf pipes = {0};
	table t;
	if (!c.gpu)
		planshow_resource_table(&t);
	else
		measure_table_init(&t, 0, 0, NULL, NULL);
	plan *p = xcalloc(1, sizeof *p);
	result *res = xcalloc(1, sizeof *res);
	int printed_bufs = 0, nrec = 0;
	sbuf clk_note = { 0 }; /* results the kernel clock's check concerns */
	char *err = NULL;
	counters_run *cr = counters_run_begin(a, &c); /* `metrics on`, throttling notes */
	char *said = NULL; /* a plan's error shared by every kernel (a buffer's size) is said once */
	for (int i = 0; i < nk && !g_interrupt; i++) {
		const char *name = a->file.sp->kernels[ks[i]].name;
		if ((i > 0 && run_unit_for(a, &c, ks[i], &warned, &err) != 0) ||
		    run_plan(a, &c, ks[i], &a->opt.topt, p, &err) != 0) {
			if (!said || !err || strcmp(said, err) != 0)
				app_error_msg(a, err);
			free(said);
			said = err;
			err = NULL;
			rc = -1;
			continue;
		}
		if (!c.gpu) {
			run_compile_only(a, &c, p, name, &t, &printed_bufs);
			continue;
		}
		counters_run_plan(cr, p);
		if (run_exec_checked(a, &c, ks[i], p, res, &err) != 0) {
			app_error(a, "%s: %s", name, err ? err : "the worker failed");
			free(err);
			err = NULL;
			rc = -1;
			continue;
		}
		if (run_result(a, &c, p, res, name, &t, &clk_note, &pipes) != 0)
			rc = -1;
		counters_run_result(a, cr, &c, p, res);
		nrec += res->nsamples > 0;
		if (res->status == RES_INTERRUPTED)
			break;
	}
	if (t.nrows > 0)
		app_table(a, &t, 0);
	result_shown(a, t.nrows, nrec, later, t_start);
	app_clock_say(a, &clk_note);
	if (pipes.len > 0)
		app_note(a, "%s", pipes.s);
	sb_free(&pipes);
	if (!c.gpu && t.nrows > 0)
		app_note(a, "not launched (no GPU)");
	if (a->file.sp->ncheck_at > 0 && a->opt.topt.do_check && t.nrows > 0)
		check_at_note(a, c.gpu);
	counters_run_end(a, cr);
	if (c.gpu && nrec > 1 && a->format == FMT_TABLE && !a->opt.mask_times)
		speedup_chart(a, nrec);
	if (g_interrupt) {
		app_note(a, "interrupted");
		rc = -1;
	}
	if (t.nrows > 0)
		app_results_keep_table(&a->results, &t);
	else
		table_free(&t);
	free(said);
	sb_free(&warned);
	free(p);
	free(res);
	free(ks);
	run_release(&c);
	fflush(stdout);
	if (getenv("CUPLAY_TRACE"))
		fprintf(stderr, "trace: run total %.2f ms\n", ms_since(t_start));
	return rc;
}

