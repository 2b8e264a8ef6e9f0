/* counters.c: the hardware counters a run asks for and keeps, and what
 * `run` adds under its results (`metrics on`, the GPU's throttling). */
#include "counters.h"
#include "kinfo.h"
#include "nvml.h"
#include "occupancy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Theoretical occupancy of a planned launch (0..1), or -1 when unknown. */
double counters_theory(const runctx *c, const plan *p)
{
	int ci = cunit_find(c->u, p->launch.name);
	if (ci < 0 || !c->u->res[ci].known)
		return -1;
	occ_input in = kinfo_occ_input(&c->u->res[ci], &p->launch);
	occ_result o;
	if (occ_compute(&c->dev, &in, &o) != 0)
		return -1;
	return o.ok ? o.occupancy : 0;
}

void counters_ask(const metric_sel *s, plan *p)
{
	p->nmetrics = s->nraw;
	for (int i = 0; i < s->nraw; i++)
		snprintf(p->metrics[i], sizeof p->metrics[i], "%s", s->raw[i]);
}

void counters_keep(run_record *r, const metric_sel *s, const double *raw, const double *fig)
{
	for (int i = 0; i < r->nmet; i++)
		free(r->met_names[i]);
	free(r->met_names);
	free(r->met_values);
	int cap = s->nfig + s->nraw;
	r->met_names = xcalloc((size_t)cap + 1, sizeof *r->met_names);
	r->met_values = xcalloc((size_t)cap + 1, sizeof *r->met_values);
	r->nmet = 0;
	for (int i = 0; i < s->nfig; i++) {
		r->met_names[r->nmet] = xstrdup(s->fig[i].name);
		r->met_values[r->nmet++] = fig[i];
	}
	for (int i = 0; i < s->nraw; i++) {
		int dup = 0;
		for (int j = 0; j < s->nfig && !dup; j++)
			dup = strcmp(s->fig[j].name, s->raw[i]) == 0;
		if (dup)
			continue;
		r->met_names[r->nmet] = xstrdup(s->raw[i]);
		r->met_values[r->nmet++] = raw[i];
	}
}

void counters_unavailable(app *a, const char *why)
{
	free(a->prof_why);
	a->prof_why = xstrdup(why && *why ? why : "hardware counters unavailable");
}

/* CUPLAY_NO_COUNTERS=1 plays a machine where counters are not permitted
 * (NVreg_RestrictProfilingToAdminUsers=1, or ncu holding them): what a
 * lesson does there is tested on any machine. */
int counters_barred(app *a)
{
	const char *e = getenv("CUPLAY_NO_COUNTERS");
	if (!e || !*e || strcmp(e, "0") == 0)
		return 0;
	counters_unavailable(a, "counters not permitted (CUPLAY_NO_COUNTERS is set; on a shared machine an administrator "
	               "allows them with the nvidia module option NVreg_RestrictProfilingToAdminUsers=0)");
	return 1;
}

/* The state of one run. */
struct counters_run {
	int on;             /* collecting counters */
	metric_sel sel;
	int n;              /* kernels with counters */
	char **kernels;
	double **figs;
	double *theory;
	sbuf notes;         /* throttling, printed under the table */
	int stopped;        /* counters unavailable or failing: said once, no more asked */
};

counters_run *counters_run_begin(app *a, const runctx *c)
{
	counters_run *m = xcalloc(1, sizeof *m);
	if (!a->metrics_on || !c->gpu)
		return m;
	char *err = NULL;
	if (metrics_parse(NULL, &m->sel, &err) != 0) {
		app_note(a, "metrics: %s", err ? err : "no default set");
		free(err);
		return m;
	}
	if (counters_barred(a)) {
		app_note(a, "metrics: %s", a->prof_why);
		return m;
	}
	m->on = 1;
	return m;
}

void counters_run_plan(const counters_run *m, plan *p)
{
	if (m->on && !m->stopped)
		counters_ask(&m->sel, p);
}

void counters_run_result(app *a, counters_run *m, const runctx *c, const plan *p, const result *res)
{
	/* a slowed GPU explains a slow result; csv and json carry it in
	 * columns, and masked output (golden tests) cannot hold it */
	char w[256];
	if (res->nsamples > 0 && !a->opt.mask_times && (a->format == FMT_TABLE || a->format == FMT_MARKDOWN) &&
	    nvml_warning(&res->cond, w, sizeof w))
		sb_printf(&m->notes, "%s: %s\n", p->launch.name, w);
	if (!m->on || m->stopped || p->nmetrics <= 0 || res->prof.n != p->nmetrics)
		return; /* off, or the run stopped before the profiled launch */
	if (res->prof.status != PROF_OK) {
		/* a note, not an error: the run itself went well */
		m->stopped = 1;
		if (res->prof.status == PROF_UNAVAILABLE) {
			counters_unavailable(a, res->prof.error);
			sb_printf(&m->notes, "metrics: %s\n", a->prof_why);
		} else {
			sb_printf(&m->notes, "metrics: %s: %s\n", p->launch.name,
			          res->prof.error[0] ? res->prof.error : "counters failed");
		}
		return;
	}
	double *fig = xcalloc((size_t)(m->sel.nfig ? m->sel.nfig : 1), sizeof *fig);
	metrics_compute(&m->sel, res->prof.values, fig);
	if (a->results.nruns > 0 && strcmp(a->results.runs[a->results.nruns - 1].kernel, p->launch.name) == 0)
		counters_keep(&a->results.runs[a->results.nruns - 1], &m->sel, res->prof.values, fig);
	m->kernels = xrealloc(m->kernels, (size_t)(m->n + 1) * sizeof *m->kernels);
	m->figs = xrealloc(m->figs, (size_t)(m->n + 1) * sizeof *m->figs);
	m->theory = xrealloc(m->theory, (size_t)(m->n + 1) * sizeof *m->theory);
	m->kernels[m->n] = xstrdup(p->launch.name);
	m->figs[m->n] = fig;
	m->theory[m->n] = counters_theory(c, p);
	m->n++;
}

void counters_run_end(app *a, counters_run *m)
{
	if (m->notes.len)
		fputs(m->notes.s, stdout);
	fflush(stdout);
	if (m->n > 0) {
		/* under the results; the results table stays the one `save` writes */
		table t;
		metrics_table(&t, &m->sel, m->n, (const char *const *)m->kernels, (const double *const *)m->figs,
		              m->theory, a->format == FMT_TABLE, a->opt.mask_times);
		app_table(a, &t, 0);
		table_free(&t);
		fflush(stdout);
	}
	for (int i = 0; i < m->n; i++) {
		free(m->kernels[i]);
		free(m->figs[i]);
	}
	free(m->kernels);
	free(m->figs);
	free(m->theory);
	sb_free(&m->notes);
	free(m);
}
