/* expect.c: assertions on the results of earlier runs. */
#include "expect.h"
#include "perline.h"
#include "explain.h"
#include "metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Does "A=1 B=2 C=3" contain the pair "B=2"? */
static int has_pair(const char *values, const char *pair, size_t n)
{
	for (const char *p = values; *p;) {
		const char *e = strchr(p, ' ');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == n && strncmp(p, pair, n) == 0)
			return 1;
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

/* What a record must hold to answer an expectation. */
enum { WANT_ANY, WANT_TIMED, WANT_METRICS, WANT_EXPLAINED };

static const run_record *find_if(const app *a, const char *label, int want)
{
	const char *br = strchr(label, '[');
	size_t kl = br ? (size_t)(br - label) : strlen(label);
	for (int i = a->results.nruns - 1; i >= 0; i--) {
		const run_record *r = &a->results.runs[i];
		if (strlen(r->kernel) != kl || strncmp(r->kernel, label, kl) != 0 || !r->launched)
			continue; /* compile-only records are no results */
		/* `metrics` records hold counters and no times: a time expectation
		 * looks past them, a counter expectation past plain runs */
		if ((want == WANT_TIMED && !r->timed) || (want == WANT_METRICS && r->nmet == 0) ||
		    (want == WANT_EXPLAINED && !r->why))
			continue;
		int match = 1;
		if (br) {
			const char *p = br + 1;
			while (*p && *p != ']' && match) {
				while (*p == ' ' || *p == ',')
					p++;
				const char *e = p;
				while (*e && *e != ',' && *e != ' ' && *e != ']')
					e++;
				if (e > p && !has_pair(r->values, p, (size_t)(e - p)))
					match = 0;
				p = e;
			}
		}
		if (match)
			return r;
	}
	return NULL;
}

const run_record *expect_find(const app *a, const char *label)
{
	return find_if(a, label, WANT_ANY);
}

const run_record *expect_find_timed(const app *a, const char *label)
{
	return find_if(a, label, WANT_TIMED);
}

static int valid_label(const char *s)
{
	const char *br = strchr(s, '[');
	if (!br)
		return 1;
	size_t l = strlen(s);
	return l > 0 && s[l - 1] == ']' && strchr(br + 1, '[') == NULL;
}

static int parse_num(const char *s, double *v)
{
	char *end;
	*v = strtod(s, &end);
	if (end != s && *end == 'x' && end[1] == 0) /* "1.5x" */
		return 0;
	return end == s || *end ? -1 : 0;
}

static const char *fig(const app *a, char *buf, size_t n, const char *fmt, double v)
{
	if (a->opt.mask_times)
		snprintf(buf, n, "<t>");
	else
		snprintf(buf, n, fmt, v);
	return buf;
}

/* The room an expectation had: how far the figure is past its bound, as a
 * fraction of the bound (NaN: none to say, as for `correct`). */
static int held(app *a, double margin, const char *what)
{
	a->expect_held++;
	if (isnan(margin))
		app_note(a, "expect: %s: ok", what);
	else if (a->opt.mask_times)
		app_note(a, "expect: %s: ok (margin <t>)", what);
	else
		app_note(a, "expect: %s: ok (margin %.0f%%)", what, margin * 100);
	return 0;
}

static int failed(app *a, const char *what)
{
	a->expect_failed++;
	return app_error(a, "expectation failed: %s", what);
}

static double margin_of(const char *op, double v, double x)
{
	if (x == 0)
		return NAN;
	return op[0] == '>' ? (v - x) / fabs(x) : (x - v) / fabs(x);
}

static int need(app *a, const char *label, int want, const run_record **r)
{
	*r = find_if(a, label, want);
	if (!*r && want != WANT_ANY)
		*r = find_if(a, label, WANT_ANY); /* says what it lacks */
	if (*r)
		return 0;
	char *m = xasprintf("no run of '%s' yet (run it first)", label);
	failed(a, m);
	free(m);
	return -1;
}

static int cmp_op(const char *op, double x, double y, int *ok)
{
	if (strcmp(op, ">") == 0) *ok = x > y;
	else if (strcmp(op, ">=") == 0) *ok = x >= y;
	else if (strcmp(op, "<") == 0) *ok = x < y;
	else if (strcmp(op, "<=") == 0) *ok = x <= y;
	else return -1;
	return 0;
}

/* expect KERNEL[SEL] metric NAME OP X: a hardware counter of the latest
 * run that collected it (`metrics`, or `run` with `metrics on`). */
static int expect_counter(app *a, const char *label, const char *name, const char *op, double x)
{
	char buf[512], f1[32];
	const run_record *r = find_if(a, label, WANT_METRICS);
	if (!r) {
		if (a->prof_why) {
			a->expect_skipped++;
			app_note(a, "expect %s metric %s %s %g: skipped: %s", label, name, op, x, a->prof_why);
			return 0;
		}
		snprintf(buf, sizeof buf, "no counters of '%s' yet (run 'metrics %.*s' first)", label,
		         (int)strcspn(label, "["), label);
		return failed(a, buf);
	}
	/* a raw name that a figure shows as it is: that figure's short name */
	const metric_def *short_def = strstr(name, "__") ? metrics_by_raw(name) : NULL;
	int i = 0;
	while (i < r->nmet && strcmp(r->met_names[i], name) != 0 &&
	       !(short_def && strcmp(r->met_names[i], short_def->name) == 0))
		i++;
	if (i == r->nmet) {
		const char *near = nearest_name(name, (const char *const *)r->met_names, r->nmet);
		if (near)
			snprintf(buf, sizeof buf, "%s has no metric '%s' (did you mean '%s'?)", label, name, near);
		else
			snprintf(buf, sizeof buf, "%s has no metric '%s' (collect it with 'metrics %.*s %s')", label,
			         name, (int)strcspn(label, "["), label, name);
		return failed(a, buf);
	}
	double v = r->met_values[i];
	if (isnan(v)) {
		snprintf(buf, sizeof buf, "%s metric %s has no value (a ratio of zero counts?)", label, name);
		return failed(a, buf);
	}
	int ok = 0;
	cmp_op(op, v, x, &ok);
	snprintf(buf, sizeof buf, "%s %s is %s, expected %s %g", label, name, fig(a, f1, sizeof f1, "%.4g", v),
	         op, x);
	return ok ? held(a, margin_of(op, v, x), buf) : failed(a, buf);
}

static int in_names(const char *w, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(names[i], w) == 0)
			return 1;
	return 0;
}

/* expect KERNEL bound|limiter|rule [not] NAME: a word names one of its
 * kind; the error says which are. */
static int check_diag_word(app *a, const char *what, const char *w)
{
	const char *const *names = strcmp(what, "bound") == 0     ? explain_bound_names()
	                           : strcmp(what, "limiter") == 0 ? explain_unit_names()
	                                                          : explain_rule_names();
	if (in_names(w, names))
		return 0;
	int n = 0;
	while (names[n])
		n++;
	const char *near = nearest_name(w, names, n);
	sbuf b = {0};
	for (int i = 0; names[i]; i++)
		sb_printf(&b, "%s%s", i ? ", " : "", names[i]);
	if (near)
		app_error(a, "expect: unknown %s '%s' (did you mean '%s'?)", what, w, near);
	else
		app_error(a, "expect: unknown %s '%s' (one of %s)", what, w, b.s);
	sb_free(&b);
	return -1;
}

/* The diagnosis of the latest `explain` of the kernel. */
static int expect_diag(app *a, const char *label, const char *what, int negate, const char *w)
{
	char buf[512];
	const run_record *r = find_if(a, label, WANT_EXPLAINED);
	const char *not = negate ? "not " : "";
	if (!r) {
		snprintf(buf, sizeof buf, "no diagnosis of '%s' yet (run 'explain %.*s' first)", label,
		         (int)strcspn(label, "["), label);
		return failed(a, buf);
	}
	const explain_out *o = r->why;
	int bound = strcmp(what, "bound") == 0;
	/* without counters only a launch-bound verdict stands on timing alone */
	if (!o->counters && !(bound && o->bound == BOUND_LAUNCH)) {
		a->expect_skipped++;
		app_note(a, "expect %s %s %s%s: skipped: %s (the %s needs hardware counters)", label, what, not, w,
		         a->prof_why ? a->prof_why : "no counters were read", bound ? "verdict" : what);
		return 0;
	}
	int ok;
	if (bound) {
		ok = strcmp(explain_bound_name(o->bound), w) == 0;
		snprintf(buf, sizeof buf, "%s is %s-bound, expected %s%s-bound (%s)", label, explain_bound_name(o->bound),
		         not, w, o->verdict);
	} else if (strcmp(what, "limiter") == 0) {
		ok = strcmp(explain_unit_name(o->limiter), w) == 0;
		snprintf(buf, sizeof buf, "%s is limited by %s (%.0f%% of its peak), expected %s%s", label,
		         explain_unit_name(o->limiter), o->limiter >= 0 ? o->sol[o->limiter] : 0.0, not, w);
	} else {
		ok = explain_has_rule(o, w);
		sbuf fired = {0};
		for (int i = 0; i < o->nrules; i++)
			sb_printf(&fired, "%s%s", i ? ", " : "", o->rules[i].name);
		snprintf(buf, sizeof buf, "%s: rule %s %s, expected %sto fire (rules fired: %s)", label, w,
		         ok ? "fired" : "did not fire", not, fired.len ? fired.s : "none");
		sb_free(&fired);
	}
	if (negate)
		ok = !ok;
	return ok ? held(a, NAN, buf) : failed(a, buf);
}

/* expect A correct */
static int expect_correct(app *a, const char *name, const run_record *r)
{
	char buf[512];
	if (r->check != MCHECK_OK && r->check != MCHECK_FAIL) {
		snprintf(buf, sizeof buf, "%s was not checked (no //@ check, or 'check off')", name);
		return failed(a, buf);
	}
	if (r->check == MCHECK_FAIL && r->timed_bad[0]) {
		snprintf(buf, sizeof buf, "%s is not correct: %s", name, r->timed_bad);
		return failed(a, buf);
	}
	if (r->check == MCHECK_FAIL) {
		snprintf(buf, sizeof buf, "%s is not correct (relative error %.2e)", name, r->check_err);
		return failed(a, buf);
	}
	snprintf(buf, sizeof buf, "%s correct", name);
	return held(a, NAN, buf);
}

/* expect A faster|slower B [by X] (argc 6: with X) */
static int expect_ratio(app *a, int argc, char **argv, const run_record *r, double x)
{
	char buf[512], f1[32], f2[32];
	const char *what = argv[2];
	const run_record *r2;
	int ok;
	if (need(a, argv[3], WANT_TIMED, &r2) != 0)
		return -1;
	if (!r2->timed) {
		snprintf(buf, sizeof buf, "%s was not timed", argv[3]);
		return failed(a, buf);
	}
	int faster = strcmp(what, "faster") == 0;
	/* A faster B by X: median(B) / median(A) >= X. X below 1 reads
	 * "A keeps at least X of B's speed" (back at the coalesced speed).
	 * The ratio's 95% interval decides: all of it at X or above holds,
	 * all of it below fails, and one that holds X cannot tell. */
	double want = argc == 6 ? x : 1.0;
	ratio_ci ri;
	stats_ratio(faster ? &r2->st : &r->st, faster ? &r->st : &r2->st, &ri);
	double sp = ri.r, lo = ri.known ? ri.lo : sp, hi = ri.known ? ri.hi : sp;
	const char *fast = faster ? argv[1] : argv[3], *slow = faster ? argv[3] : argv[1];
	ok = argc == 6 ? lo >= want : lo > 1.0;
	int below = argc == 6 ? hi < want : hi <= 1.0;
	char f3[32], iv[96] = "";
	if (ri.known)
		snprintf(iv, sizeof iv, "95%% interval %sx .. %sx", fig(a, f2, sizeof f2, "%.3f", lo),
		         fig(a, f3, sizeof f3, "%.3f", hi));
	if (!ok && !below) {
		if (argc == 6)
			snprintf(buf, sizeof buf, "cannot tell whether %s is at least %gx %s %s: %sx, %s holds %gx",
			         fast, want, want >= 1.0 ? "faster than" : "the speed of", slow,
			         fig(a, f1, sizeof f1, "%.3f", sp), iv, want);
		else
			snprintf(buf, sizeof buf, "cannot tell whether %s is faster than %s: %sx, %s holds 1", fast,
			         slow, fig(a, f1, sizeof f1, "%.3f", sp), iv);
		return failed(a, buf);
	}
	/* the interval as the sentence gives the ratio: inverted where it says 1 / ratio */
	char pre[112] = "", paren[112] = "", inv[96] = "";
	if (ri.known) {
		snprintf(pre, sizeof pre, "%s; ", iv);
		snprintf(paren, sizeof paren, " (%s)", iv);
		snprintf(inv, sizeof inv, " (95%% interval %sx .. %sx)", fig(a, f2, sizeof f2, "%.3f", 1.0 / hi),
		         fig(a, f3, sizeof f3, "%.3f", 1.0 / lo));
	}
	if (sp >= 1.0 && ok)
		snprintf(buf, sizeof buf, "%s is %sx faster than %s (%sexpected at least %gx)", fast,
		         fig(a, f1, sizeof f1, "%.2f", sp), slow, pre, want);
	else if (sp >= 1.0)
		snprintf(buf, sizeof buf, "%s is %sx slower than %s%s, expected at least %gx", slow,
		         fig(a, f1, sizeof f1, "%.2f", sp), fast, paren, want);
	else if (ok)
		snprintf(buf, sizeof buf, "%s runs at %sx the speed of %s (%sexpected at least %gx)", fast,
		         fig(a, f1, sizeof f1, "%.2f", sp), slow, pre, want);
	else
		snprintf(buf, sizeof buf, "%s is %sx slower than %s%s, expected %s%gx", fast,
		         fig(a, f1, sizeof f1, "%.2f", 1.0 / sp), slow, inv,
		         want >= 1.0 ? "it faster by " : "at least ", want);
	return ok ? held(a, argc == 6 ? lo / want - 1 : lo - 1, buf) : failed(a, buf);
}

/* expect A gbps|roof|time|gflops|overlap OP X */
static int expect_figure(app *a, char **argv, const run_record *r, double x)
{
	char buf[512], f2[32];
	const char *what = argv[2];
	int ok;
	double v = strcmp(what, "gbps") == 0 ? r->gbps : strcmp(what, "roof") == 0 ? r->roof_frac :
	           strcmp(what, "gflops") == 0 ? r->gflops : strcmp(what, "overlap") == 0 ? r->overlap : r->st.median;
	if (strcmp(what, "overlap") == 0 && v < 0) {
		snprintf(buf, sizeof buf, "%s has no overlap (no timeline with copies: a run on host data has one)", argv[1]);
		return failed(a, buf);
	}
	cmp_op(argv[3], v, x, &ok);
	if ((strcmp(what, "gbps") == 0 || strcmp(what, "roof") == 0) && v <= 0) {
		snprintf(buf, sizeof buf, "%s has no %s (no //@ bytes line, or no roof measured)", argv[1], what);
		return failed(a, buf);
	}
	snprintf(buf, sizeof buf, "%s %s is %s, expected %s %g", argv[1], what,
	         fig(a, f2, sizeof f2, "%.3g", v), argv[3], x);
	return ok ? held(a, margin_of(argv[3], v, x), buf) : failed(a, buf);
}

/* An expectation nothing ran for, skipped with the reason: the file's
 * `use` failed, no GPU (compile-only), or the GPU not started because a
 * command before failed (a machine with a GPU says that, not "no GPU"). */
static int skipped_not_run(app *a, int argc, char **argv)
{
	sbuf b = {0};
	for (int i = 1; i < argc; i++)
		sb_printf(&b, " %s", argv[i]);
	if (a->file.use_failed)
		app_note(a, "expect%s: skipped: nothing ran (no kernel file is loaded: 'use %s' failed)", b.s,
		         a->file.use_failed);
	else if (a->opt.no_gpu || a->gpu == 0)
		app_note(a, "expect%s: skipped (no GPU)", b.s);
	else if (a->nerrors > 0)
		app_note(a, "expect%s: skipped: nothing ran on the GPU (a command before failed)", b.s);
	else
		app_note(a, "expect%s: skipped: nothing ran on the GPU yet", b.s);
	sb_free(&b);
	a->expect_skipped++;
	return 0;
}

int expect_run(app *a, int argc, char **argv)
{
	static const char use[] = "usage: expect KERNEL[SEL] correct | expect A faster|slower B [by X] | "
	                          "expect KERNEL gbps|roof|time|gflops|overlap OP NUMBER | expect KERNEL metric NAME OP NUMBER | "
	                          "expect KERNEL bound|limiter|rule [not] NAME | expect KERNEL line \"TEXT\" FIGURE OP X";
	if (argc < 3)
		return app_error(a, "%s", use);
	if (strcmp(argv[2], "line") == 0 && valid_label(argv[1]))
		return perline_expect(a, argc, argv); /* its text is free: not a selector */
	for (int i = 1; i < argc; i++)
		if (!valid_label(argv[i]))
			return app_error(a, "expect: malformed selector '%s' (write kernel[NAME=VALUE,...])", argv[i]);
	const char *what = argv[2];
	int ratio = strcmp(what, "faster") == 0 || strcmp(what, "slower") == 0;
	int metric = strcmp(what, "gbps") == 0 || strcmp(what, "roof") == 0 ||
	             strcmp(what, "time") == 0 || strcmp(what, "gflops") == 0 || strcmp(what, "overlap") == 0;
	int counter = strcmp(what, "metric") == 0;
	int diag = strcmp(what, "bound") == 0 || strcmp(what, "limiter") == 0 || strcmp(what, "rule") == 0;
	int negate = diag && argc == 5 && strcmp(argv[3], "not") == 0;
	if (!(strcmp(what, "correct") == 0 && argc == 3) &&
	    !(ratio && (argc == 4 || (argc == 6 && strcmp(argv[4], "by") == 0))) &&
	    !(metric && argc == 5) && !(counter && argc == 6) && !(diag && (argc == 4 || negate)))
		return app_error(a, "%s", use);
	if (diag && check_diag_word(a, what, argv[argc - 1]) != 0)
		return -1;
	double x = 0;
	if ((ratio && argc == 6 && (parse_num(argv[5], &x) != 0 || !(x > 0))) ||
	    ((metric || counter) && parse_num(argv[argc - 1], &x) != 0))
		return app_error(a, "expect: '%s' is not a number", argv[argc - 1]);
	int ok;
	if ((metric || counter) && cmp_op(argv[argc - 2], 0, 0, &ok) != 0)
		return app_error(a, "expect: '%s' is not one of < <= > >=", argv[argc - 2]);

	/* nothing ran on a GPU: skipped, with the reason, unless the record is
	 * there (a diagnosis of a recorded run, CUPLAY_EXPLAIN_FEED) */
	if (a->gpu != 1 && !(strcmp(what, "correct") == 0 && expect_find(a, argv[1])) &&
	    !(diag && find_if(a, argv[1], WANT_EXPLAINED)))
		return skipped_not_run(a, argc, argv);
	const run_record *r;
	if (counter)
		return expect_counter(a, argv[1], argv[3], argv[4], x);
	if (diag)
		return expect_diag(a, argv[1], what, negate, argv[argc - 1]);
	if (need(a, argv[1], strcmp(what, "correct") == 0 ? WANT_ANY : WANT_TIMED, &r) != 0)
		return -1;
	if (strcmp(what, "correct") == 0)
		return expect_correct(a, argv[1], r);
	if (!r->timed) {
		char buf[512];
		snprintf(buf, sizeof buf, "%s was not timed", argv[1]);
		return failed(a, buf);
	}
	if (ratio)
		return expect_ratio(a, argc, argv, r, x);
	return expect_figure(a, argv, r, x);
}
