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

#endif
