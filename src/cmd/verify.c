/* verify.c: `cuplay --verify`: one submission of an exercise checked and
 * timed through the run's steps, into one JSON line (verify.h). */
#include "verify.h"
#include "exercise.h"
#include "files.h"
#include "json.h"
#include "ptxread.h"
#include "run.h"
#include "vsource.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

/* One verification's state and what it found. */
typedef struct vstate {
	app *a;
	const verify_req *r;
	struct exercise ex;
	const char *name;          /* the submission as messages name it */
	char dir[64];              /* the private folder of the file verified */
	char *path;                /* that file */
	char *start;               /* the starting file's path */
	int offset;                /* its lines before the submission's */
	char *ignored;             /* the submission's //@ lines ignored */
	char *first_error;         /* the first error said while verifying */
	const char *status;        /* NULL: ok so far */
	char *reason;
	sbuf checks;               /* the checks' JSON objects, ", " between */
	double median, lo, hi, base_ms;
	int timed, base_timed;
	char gpu[128], host[128];
	uint64_t seed;
} vstate;

/* errors while verifying: kept (the first) and shown on stderr */
static void on_error(void *ctx, const char *line)
{
	vstate *v = ctx;
	fprintf(stderr, "%s\n", line);
	if (!v->first_error)
		v->first_error = xstrdup(line);
}

/* The first line of msg with the verified file's "PATH:L" turned into the
 * submission's "NAME:L-offset" (a line of the header stays the
 * exercise file's). */
static char *mapped(const vstate *v, const char *msg)
{
	sbuf b = {0};
	size_t pl = v->path ? strlen(v->path) : 0;
	const char *end = msg + strcspn(msg, "\n");
	for (const char *p = msg; p < end;) {
		if (pl && (size_t)(end - p) > pl + 1 && memcmp(p, v->path, pl) == 0 && p[pl] == ':' &&
		    p[pl + 1] >= '0' && p[pl + 1] <= '9') {
			char *e;
			long l = strtol(p + pl + 1, &e, 10);
			if (l > v->offset)
				sb_printf(&b, "%s:%ld", v->name, l - v->offset);
			else
				sb_printf(&b, "%s (the exercise's header, line %ld)", v->ex.file, l);
			p = e;
			continue;
		}
		sb_putc(&b, *p++);
	}
	return sb_steal(&b);
}

/* The verdict, when none is yet (the first one said stands). */
static void verdict(vstate *v, const char *status, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void verdict(vstate *v, const char *status, const char *fmt, ...)
{
	if (v->status)
		return;
	v->status = status;
	sbuf b = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	v->reason = mapped(v, b.s ? b.s : "");
	sb_free(&b);
}

static void add_check(vstate *v, const char *name, int ok, const char *detail)
{
	if (v->checks.len)
		sb_puts(&v->checks, ",");
	sb_puts(&v->checks, "{\"name\":");
	json_str(&v->checks, name);
	sb_printf(&v->checks, ",\"ok\":%s,\"detail\":", ok ? "true" : "false");
	char *d = mapped(v, detail);
	json_str(&v->checks, d);
	free(d);
	sb_puts(&v->checks, "}");
}

/* The first fault of checks cr[0..n) of plan p: NULL when all passed. */
static char *checks_fault(const plan *p, const check_result *cr, int n)
{
	for (int i = 0; i < n; i++) {
		const check_result *c = &cr[i];
		if (c->ok)
			continue;
		if (c->nonfinite && c->bad_index >= 0)
			return xasprintf("'%s': %llu non-finite values, the first at index %lld (got %g, want %g)", c->buf,
			                 (unsigned long long)c->nonfinite, (long long)c->bad_index, c->got, c->want);
		if (c->bad_index >= 0)
			return xasprintf("'%s' differs from '%s' at index %lld: got %g, want %g (relative error %.2e over "
			                 "tolerance %.0e)", c->buf, p->checks[i].ref, (long long)c->bad_index, c->got, c->want,
			                 c->rel_err, c->tol);
		return xasprintf("'%s' differs from '%s': relative error %.2e over tolerance %.0e", c->buf,
		                 p->checks[i].ref, c->rel_err, c->tol);
	}
	return NULL;
}

/* One check's entry and, where it failed, the verdict "wrong". 1 passed. */
static int judge(vstate *v, const char *label, char *fault)
{
	add_check(v, label, !fault, fault ? fault : "ok");
	if (fault)
		verdict(v, "wrong", "%s: %s", label, fault);
	free(fault);
	return !fault;
}

/* What a run found: its check, the timed launches' check, and the check on
 * fresh inputs in the same module, each an entry. 1 all passed, 0 not. */
static int judge_run(vstate *v, const plan *p, const result *res, const char *label)
{
	char name[512];
	int ok = judge(v, label, res->nchecks == 0 ? xstrdup("nothing was checked")
	                                          : checks_fault(p, res->checks, res->nchecks));
	if (res->nsamples > 0) {
		snprintf(name, sizeof name, "%s: the timed launches", label);
		ok &= judge(v, name, res->timed_check == TIMED_DIFFERS
		                     ? xasprintf("the timed launches did not compute what the checked launch did ('%s', "
		                                 "relative error %.2e): a kernel that keeps state across launches",
		                                 res->timed_buf, res->timed_err)
		                     : NULL);
	}
	if (p->fresh_seed) {
		snprintf(name, sizeof name, "%s: then fresh inputs (seed %llu), the module still loaded", label,
		         (unsigned long long)p->fresh_seed);
		char *f = !res->fresh_done ? xstrdup("not run")
		          : res->fresh_nchecks == 0 ? xstrdup("nothing was checked")
		                                    : checks_fault(p, res->fresh, res->fresh_nchecks);
		if (f && res->fresh_done) {
			char *g = xasprintf("%s: a kernel that keeps an answer across launches, or computes it for "
			                    "the default inputs alone?", f);
			free(f);
			f = g;
		}
		ok &= judge(v, name, f);
	}
	return ok;
}

/* The exercise's size s set on the current file: 0, or -1 said. */
static int set_size(vstate *v, const struct ex_size *s)
{
	for (int i = 0; i < s->n; i++) {
		char val[32];
		snprintf(val, sizeof val, "%lld", s->v[i].value);
		if (app_set(v->a, s->v[i].name, val) != 0)
			return -1;
	}
	return 0;
}

/* One run of kernel `kernel` of the current file at size s, with inputs
 * of seed (0: the default), timed or not; its check is recorded under
 * label. 1 when it ran and its checks passed, 0 when they did not, -1
 * when it did not run (the verdict said). */
static int vrun(vstate *v, const char *kernel, const struct ex_size *s, uint64_t seed, uint64_t fresh,
                int timed, const char *label, stats *st)
{
	app *a = v->a;
	int k = spec_kernel_find(a->file.sp, kernel);
	if (k < 0 || set_size(v, s) != 0) {
		verdict(v, "refused", "%s", v->first_error ? v->first_error : "the kernel is missing");
		return -1;
	}
	runctx c;
	if (run_prepare_for(a, NULL, 0, &k, 1, &c) != 0) {
		verdict(v, "compile_error", "%s", v->first_error ? v->first_error : "the compile failed");
		return -1;
	}
	snprintf(v->gpu, sizeof v->gpu, "%s", c.dev.name);
	timing_opts t = a->opt.topt;
	t.do_check = 1;
	t.do_time = timed;
	plan *p = xcalloc(1, sizeof *p);
	result *res = xcalloc(1, sizeof *res);
	char *err = NULL;
	a->opt.seed = seed;
	int rc = -1;
	if (run_plan(a, &c, k, &t, p, &err) != 0) {
		verdict(v, "refused", "%s", err ? err : "the launch cannot be planned");
	} else {
		for (int i = 0; v->ex.tolerance > 0 && i < p->nchecks; i++)
			p->checks[i].tol = v->ex.tolerance;
		p->fresh_seed = fresh;
		if (run_exec_checked(a, &c, k, p, res, &err) != 0) {
			int hung = err && strstr(err, "made no progress");
			verdict(v, hung ? "timeout" : "crashed", "%s: %s", label, err ? err : "the worker failed");
			add_check(v, label, 0, err ? err : "the worker failed");
		} else if (res->status == RES_INTERRUPTED) {
			verdict(v, "crashed", "interrupted");
		} else {
			rc = judge_run(v, p, res, label);
			if (timed && st)
				stats_compute(res->samples_ms, res->nsamples, st);
		}
	}
	a->opt.seed = 0;
	free(err);
	free(p);
	free(res);
	run_release(&c);
	return rc;
}

/* The seed of fresh inputs i: from getrandom (or --seed), never the default. */
static uint64_t fresh_seed(vstate *v, int i)
{
	uint64_t s = v->seed + (uint64_t)i * 0x9e3779b97f4a7c15ull;
	return s == PLAN_SEED_DEFAULT || s == 0 ? s ^ 0x5a5a5a5a5a5a5a5aull : s;
}

/* On a GPU: the timed size (default inputs, then fresh ones), the
 * check-only sizes on fresh inputs, the baseline. */
static void gpu_checks(vstate *v)
{
	char sz[160], label[400];
	exercise_size_text(&v->ex.timed, sz, sizeof sz);
	stats st;
	memset(&st, 0, sizeof st);
	snprintf(label, sizeof label, "%s, timed, default inputs", sz);
	if (vrun(v, v->ex.kernel, &v->ex.timed, 0, fresh_seed(v, 0), 1, label, &st) < 0)
		return;
	v->timed = st.n > 0;
	v->median = st.median;
	v->lo = st.has_ci ? st.ci_lo : st.min;
	v->hi = st.has_ci ? st.ci_hi : st.max;
	for (int i = 0; i < v->ex.fresh_seeds && !g_interrupt; i++) {
		snprintf(label, sizeof label, "%s, timed, fresh inputs (seed %llu)", sz,
		         (unsigned long long)fresh_seed(v, i + 1));
		if (vrun(v, v->ex.kernel, &v->ex.timed, fresh_seed(v, i + 1), 0, 1, label, NULL) < 0)
			return;
	}
	for (int i = 0; i < v->ex.nchecks && !g_interrupt; i++) {
		exercise_size_text(&v->ex.checks[i], sz, sizeof sz);
		snprintf(label, sizeof label, "%s, fresh inputs (seed %llu)", sz, (unsigned long long)fresh_seed(v, i + 1));
		if (vrun(v, v->ex.kernel, &v->ex.checks[i], fresh_seed(v, i + 1), 0, 0, label, NULL) < 0)
			return;
	}
	if (v->status || g_interrupt)
		return;
	/* the baseline, from the starting file, in the same worker */
	if (app_use(v->a, v->start) == 0) {
		exercise_size_text(&v->ex.timed, sz, sizeof sz);
		snprintf(label, sizeof label, "baseline %s, %s", v->ex.baseline, sz);
		memset(&st, 0, sizeof st);
		if (vrun(v, v->ex.baseline, &v->ex.timed, 0, 0, 1, label, &st) == 1 && st.n > 0) {
			v->base_timed = 1;
			v->base_ms = st.median;
		}
	}
	if (v->status) { /* the baseline's fault is the exercise's, not the submission's */
		fprintf(stderr, "cuplay: the baseline '%s' failed: %s\n", v->ex.baseline, v->reason);
		v->status = NULL;
		free(v->reason);
		v->reason = NULL;
	}
}

/* The submission's text: the file, or stdin ("-"), at most limit bytes
 * (one more is read to know). 0, 1 over the limit (no text), or -1 said. */
static int read_source(const char *src, long limit, char **text, size_t *len)
{
	size_t max = limit > 0 ? (size_t)limit + 1 : (size_t)16 << 20;
	if (strcmp(src, "-") != 0) {
		if (read_file_max(src, text, len, max) == 0)
			return 0;
		if (errno == EFBIG) /* over the limit: the verdict says so */
			return 1;
		fprintf(stderr, "cuplay: cannot read '%s': %s\n", src, strerror(errno));
		return -1;
	}
	sbuf b = {0};
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, stdin)) > 0 && b.len <= max)
		sb_add(&b, buf, n);
	if (ferror(stdin)) {
		fprintf(stderr, "cuplay: cannot read the source from stdin\n");
		sb_free(&b);
		return -1;
	}
	if (b.len > max - 1) {
		sb_free(&b);
		return 1;
	}
	*len = b.len;
	*text = b.s ? sb_steal(&b) : xstrdup("");
	return 0;
}

static void json_num(sbuf *b, const char *key, int have, double x)
{
	sb_printf(b, ",\"%s\":", key);
	if (have && isfinite(x))
		sb_printf(b, "%.6g", x);
	else
		sb_puts(b, "null");
}

static void json_line(vstate *v, sbuf *json)
{
	const char *status = v->status ? v->status : "ok";
	sbuf b = {0};
	sb_puts(&b, "{\"status\":");
	json_str(&b, status);
	sb_puts(&b, ",\"reason\":");
	char *reason = v->reason ? xstrdup(v->reason)
	               : v->ignored ? xasprintf("every check passed; the submission's lines %s ignored (the "
	                                        "exercise's own header lines)", v->ignored)
	                            : xstrdup("every check passed");
	json_str(&b, reason);
	free(reason);
	sb_puts(&b, ",\"kernel\":");
	json_str(&b, v->ex.kernel);
	int ok = v->status == NULL;
	json_num(&b, "median_ms", ok && v->timed, v->median);
	json_num(&b, "lo_ms", ok && v->timed, v->lo);
	json_num(&b, "hi_ms", ok && v->timed, v->hi);
	json_num(&b, "baseline_ms", v->base_timed, v->base_ms);
	json_num(&b, "speedup", ok && v->timed && v->base_timed && v->median > 0, v->base_ms / v->median);
	sb_puts(&b, ",\"rank_by\":");
	json_str(&b, exercise_rank_name(v->ex.rank_by));
	sb_puts(&b, ",\"gpu\":");
	json_str(&b, v->gpu);
	sb_puts(&b, ",\"host\":");
	json_str(&b, v->host);
	sb_printf(&b, ",\"seed\":%llu,\"checks\":[%s]}", (unsigned long long)v->seed, v->checks.s ? v->checks.s : "");
	sb_puts(json, b.s);
	sb_free(&b);
}

/* The starting file: kernels_src/FILE beside the exercise's sessions/
 * folder (EX/../../kernels_src), FILE beside the exercise, else FILE where
 * `use` finds kernel files (a child runs in a folder of its own). */
static char *start_path(const vstate *v)
{
	const char *slash = strrchr(v->r->exercise, '/');
	int dl = slash ? (int)(slash - v->r->exercise) : 1;
	const char *dir = slash ? v->r->exercise : ".";
	char *cands[2] = { xasprintf("%.*s/../../kernels_src/%s", dl, dir, v->ex.file),
	                   xasprintf("%.*s/%s", dl, dir, v->ex.file) };
	char *found = NULL;
	for (int i = 0; i < 2; i++) {
		if (!found && access(cands[i], R_OK) == 0)
			found = cands[i];
		else
			free(cands[i]);
	}
	return found ? found : xstrdup(v->ex.file);
}

/* The submission under the exercise's header, written to a private folder
 * and loaded: 0, or -1 with the verdict said. */
static int load_submission(vstate *v, const char *src, size_t len)
{
	app *a = v->a;
	v->start = start_path(v);
	if (app_use(a, v->start) != 0) {
		fprintf(stderr, "cuplay: the exercise's file '%s' cannot be used\n", v->ex.file);
		return -2;
	}
	const spec *start = a->file.sp;
	int sk = spec_kernel_find(start, v->ex.kernel);
	if (sk < 0 || spec_kernel_find(start, v->ex.baseline) < 0) {
		fprintf(stderr, "cuplay: %s defines no kernel '%s'\n", v->ex.file, sk < 0 ? v->ex.kernel : v->ex.baseline);
		return -2;
	}
	vsource vs;
	char *why = NULL;
	if (vsource_make(start, &v->ex, src, len, v->name, &vs, &why) != 0) {
		verdict(v, "refused", "%s", why);
		free(why);
		return -1;
	}
	/* the starting kernel's parameter types, to compare */
	sbuf want = {0};
	for (int i = 0; i < start->kernels[sk].nparams; i++)
		sb_printf(&want, "%s%s", i ? ", " : "", start->kernels[sk].params[i].type);
	v->offset = vs.offset;
	v->ignored = vs.ignored;
	vs.ignored = NULL;
	const char *tmp = getenv("TMPDIR");
	snprintf(v->dir, sizeof v->dir, "%s/cuplay-verify-XXXXXX", tmp && *tmp && strlen(tmp) < 32 ? tmp : "/tmp");
	int rc = -1;
	if (!mkdtemp(v->dir)) {
		fprintf(stderr, "cuplay: cannot make a private folder '%s': %s\n", v->dir, strerror(errno));
		v->dir[0] = 0;
		rc = -2;
	} else {
		v->path = xasprintf("%s/submission.cu", v->dir);
		if (write_file_atomic(v->path, vs.text, strlen(vs.text)) != 0) {
			fprintf(stderr, "cuplay: cannot write '%s': %s\n", v->path, strerror(errno));
			rc = -2;
		} else if (app_use(a, v->path) != 0) {
			verdict(v, "refused", "%s", v->first_error ? v->first_error : "the submission cannot be read");
		} else {
			int k = spec_kernel_find(a->file.sp, v->ex.kernel);
			sbuf got = {0};
			for (int i = 0; k >= 0 && i < a->file.sp->kernels[k].nparams; i++)
				sb_printf(&got, "%s%s", i ? ", " : "", a->file.sp->kernels[k].params[i].type);
			if (k < 0)
				verdict(v, "refused", "%s defines no kernel '%s' (the exercise's kernel)", v->name, v->ex.kernel);
			else if (strcmp(got.s ? got.s : "", want.s ? want.s : "") != 0)
				verdict(v, "refused", "%s:%d: kernel '%s' takes (%s), the exercise's takes (%s)", v->name,
				        a->file.sp->kernels[k].line - v->offset, v->ex.kernel, got.s ? got.s : "",
				        want.s ? want.s : "");
			else
				rc = 0;
			sb_free(&got);
		}
	}
	sb_free(&want);
	vsource_free(&vs);
	return rc;
}

/* The device memory the submission takes beyond the exercise's buffers: its
 * __device__ variables (as its PTX declares them; allocated when the module
 * loads; the cubin's section sizes wrap at 4 GiB) and, on a GPU, the local memory its kernel's stack frame
 * reserves at full occupancy (the frame times the threads the GPU holds at
 * once). Over the exercise's `limits memory=`: refused, before anything
 * runs. Its device-side malloc heap stays the driver's 8 MiB: a submission
 * has no host code to raise it. 1 when refused. */
static int over_memory(vstate *v, const runctx *c)
{
	if (v->ex.mem_limit_mb <= 0 || !c->u)
		return 0;
	uint64_t statics = 0, local = 0;
	ptx_global_bytes(c->u->ptx, &statics); /* no PTX: none counted */
	int ci = cunit_find(c->u, v->ex.kernel);
	if (c->gpu && ci >= 0 && c->u->res[ci].known && c->u->res[ci].stack > 0)
		local = (uint64_t)c->u->res[ci].stack * (uint64_t)(c->dev.sm_count > 0 ? c->dev.sm_count : 1) *
		        (uint64_t)(c->dev.max_threads_sm > 0 ? c->dev.max_threads_sm : 2048);
	uint64_t limit = (uint64_t)v->ex.mem_limit_mb << 20;
	if (statics <= limit && local <= limit - statics)
		return 0;
	char lpart[96] = "";
	if (local)
		snprintf(lpart, sizeof lpart, " and its local memory %.1f MiB (%d bytes a thread, every thread the GPU holds)",
		         (double)local / 1048576.0, c->u->res[ci].stack);
	verdict(v, "refused", "%s: its __device__ variables take %.1f MiB%s: over the exercise's memory limit of %ld MiB",
	        v->name, (double)statics / 1048576.0, lpart, v->ex.mem_limit_mb);
	return 1;
}

static void vstate_free(vstate *v)
{
	if (v->path)
		unlink(v->path);
	if (v->dir[0])
		rmdir(v->dir);
	free(v->path);
	free(v->start);
	free(v->ignored);
	free(v->first_error);
	free(v->reason);
	sb_free(&v->checks);
}

int verify_run(app *a, const verify_req *r, sbuf *json)
{
	vstate v;
	memset(&v, 0, sizeof v);
	v.a = a;
	v.r = r;
	char err[512];
	if (exercise_load(r->exercise, &v.ex, err, sizeof err) != 0) {
		fprintf(stderr, "cuplay: %s\n", err);
		return -1;
	}
	char *src = NULL;
	size_t len = 0;
	int over = read_source(r->source, v.ex.source_limit, &src, &len);
	if (over < 0)
		return -1;
	const char *base = strrchr(r->source, '/');
	v.name = r->name ? r->name : strcmp(r->source, "-") == 0 ? "submission.cu" : base ? base + 1 : r->source;
	v.seed = r->seed;
	while (!v.seed || v.seed == PLAN_SEED_DEFAULT)
		if (getrandom(&v.seed, sizeof v.seed, 0) != sizeof v.seed)
			v.seed = now_ns() ^ ((uint64_t)getpid() << 32);
	if (gethostname(v.host, sizeof v.host - 1) != 0)
		snprintf(v.host, sizeof v.host, "unknown");
	app_display d = { .ctx = &v, .show_error = on_error };
	const app_display *was = a->display;
	a->display = &d;
	a->opt.no_gpu |= r->compile_only;
	/* a launch that makes no progress for a third of the time limit is stopped */
	a->opt.timeout_s = v.ex.time_limit_s / 3.0 < 1 ? 1 : v.ex.time_limit_s / 3.0;
	int rc = -1;
	if (over)
		verdict(&v, "refused", "%s: over the exercise's limit of %ld bytes", v.name, v.ex.source_limit);
	else
		rc = load_submission(&v, src, len);
	if (rc == 0) {
		int k = spec_kernel_find(a->file.sp, v.ex.kernel), prepared = 0;
		runctx c;
		if (set_size(&v, &v.ex.timed) != 0) { /* the exercise's fault: no result */
			fprintf(stderr, "cuplay: %s: its sizes do not fit '%s'\n", r->exercise, v.ex.file);
			rc = -2;
		} else if (run_prepare_for(a, NULL, 0, &k, 1, &c) != 0)
			verdict(&v, "compile_error", "%s", v.first_error ? v.first_error : "the compile failed");
		else
			prepared = 1;
		if (prepared) {
			int gpu = c.gpu, hoard = over_memory(&v, &c);
			run_release(&c);
			if (hoard)
				; /* refused, said */
			else if (!gpu)
				verdict(&v, "needs_gpu", "compiled; %s%s%s%s", r->compile_only ? "compile-only: checked and timed on "
				        "a GPU" : "no GPU here to check and time it on", v.ignored ? "; the submission's lines " : "",
				        v.ignored ? v.ignored : "", v.ignored ? " ignored (the exercise's own header lines)" : "");
			else
				gpu_checks(&v);
		}
	}
	a->display = was;
	free(src);
	if (rc != -2)
		json_line(&v, json);
	vstate_free(&v);
	return rc == -2 ? -1 : 0;
}
