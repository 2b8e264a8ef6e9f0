/* look.h: looking inside a kernel: `info` (resources, occupancy, what
 * changed), `sass`, `metrics` (hardware counters), `sanitize`
 * (compute-sanitizer), and what a run shows of them (`metrics on`, the
 * GPU's conditions). The command handlers in cmds.c call these. */
#ifndef CUPLAY_LOOK_H
#define CUPLAY_LOOK_H

#include "app.h"
#include "metrics.h"

/* `metrics [KERNEL...] [NAME|SET...]`, `metrics on|off`, `metrics list`;
 * argv[0] is "metrics". */
int look_metrics(app *a, int argc, char **argv);
/* The catalogue and the sets (`metrics list`, `help metrics`). */
void look_metrics_list(app *a);
/* `info [KERNEL...]`; info, sass and sanitize find the file re-read when it
 * changed on disk (CMD_FRESH_FILE, done by the dispatcher). */
int look_info(app *a, int argc, char **argv);
/* `sass [KERNEL]` */
int look_sass(app *a, const char *kernel);
/* `sanitize [memcheck|racecheck|synccheck|initcheck] [KERNEL]` */
int look_sanitize(app *a, int argc, char **argv);

/* 1 when CUPLAY_NO_COUNTERS plays a machine where counters are not
 * permitted (app.prof_why then says so and how an administrator allows
 * them). */
int look_counters_barred(app *a);

/* Stores the counters of a run in its record: the figures of s (fig[i])
 * by short name, then the raw metrics (raw[i]) not already named. */
void look_record_metrics(run_record *r, const metric_sel *s, const double *raw, const double *fig);

/* What `run` adds to its results: with `metrics on`, the default counters
 * of each kernel (one profiled launch after the timed samples) and their
 * table under the results; the GPU's throttling during the samples, one
 * note a kernel. The front end puts it in app.observer. */
extern const run_observer look_observer;

#endif
