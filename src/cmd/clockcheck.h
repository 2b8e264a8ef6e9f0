/* clockcheck.h: the kernel clock checked against the profiler's duration
 * at a device's first use (record/clockcal.h says what and why), kept in
 * the cache beside the roofs and keyed the same way (devcache_path). */
#ifndef CUPLAY_CLOCKCHECK_H
#define CUPLAY_CLOCKCHECK_H

#include "app.h"

/* The current device's calibration into a->clk: from the cache, else (or
 * with again) measured and kept: a spin of 4 us on every SM, timed by the
 * kernel clock and read 5 times by the profiler (gpu__time_duration.sum).
 * Quiet; where the profiler cannot be read, a->clk stays unknown and
 * a->clk_why says why. 0, or -1 when a run failed (said). */
int clock_check(app *a, int again);

/* Its file in the cache for the current device (NULL: no cache folder). */
char *clock_check_path(const app *a);

/* The calibration from the cache only (for `device`): 1 when known. */
int clock_check_cached(app *a);

/* The line for `device` and `roof`. Caller frees. */
char *clock_check_text(const app *a);

/* The kernel clock's check as a data field (null when not checked). */
void clock_offset_field(app *a, table *t, int row, int col);
/* The kernel clock's check as a line of text (figures masked with --mask-times). */
void clock_line(app *a);

#endif
