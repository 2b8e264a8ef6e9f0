/* counters.h: the hardware counters a run asks for and keeps (for `run`
 * with `metrics on`, `metrics` and `explain`), and what `run` adds under
 * its results: with `metrics on`, the default counters of each kernel (one
 * profiled launch after the timed samples) and their table; the GPU's
 * throttling during the samples, one note a kernel. The run loop calls
 * these itself (no callback): nothing here uses the run loop. */
#ifndef CUPLAY_COUNTERS_H
#define CUPLAY_COUNTERS_H

#include "app.h"
#include "metrics.h"

/* 1 when CUPLAY_NO_COUNTERS plays a machine where counters are not
 * permitted (app.prof_why then says so and how an administrator allows
 * them). */
int counters_barred(app *a);
/* Keeps why counters cannot be had in app.prof_why ("hardware counters
 * unavailable" when why is empty). */
void counters_unavailable(app *a, const char *why);
/* Asks for the raw metrics of s in the plan. */
void counters_ask(const metric_sel *s, plan *p);
/* Stores the counters of a run in its record: the figures of s (fig[i])
 * by short name, then the raw metrics (raw[i]) not already named. */
void counters_keep(run_record *r, const metric_sel *s, const double *raw, const double *fig);
/* Theoretical occupancy of a planned launch (0..1), or -1 when unknown. */
double counters_theory(const runctx *c, const plan *p);

/* One `run`: begin after run_prepare, plan after each run_plan (it may ask
 * for counters), result after each record is added, end after the results
 * table (it prints what it has and frees the state). */
typedef struct counters_run counters_run;
counters_run *counters_run_begin(app *a, const runctx *c);
void counters_run_plan(const counters_run *m, plan *p);
void counters_run_result(app *a, counters_run *m, const runctx *c, const plan *p, const result *res);
void counters_run_end(app *a, counters_run *m);

#endif
