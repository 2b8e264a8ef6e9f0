/* diagnose.h: `explain` (what limits a kernel: one timed and profiled run
 * read as Nsight Compute's Speed of Light and rules read it, record/explain)
 * and `roofline` (the kernels explained or run, placed by arithmetic
 * intensity under the measured roofs). */
#ifndef CUPLAY_DIAGNOSE_H
#define CUPLAY_DIAGNOSE_H

#include "app.h"

/* `explain [KERNEL...]`; argv[0] is "explain". Without a GPU it says that
 * it needs one; without counters, what timing alone supports. */
int app_explain(app *a, int argc, char **argv);
/* `roofline [FILE.svg]` */
int app_roofline(app *a, const char *svg_path);

#endif
