/* wlines.h: the per-line run of a `lines` plan, under the time stage: the
 * kernel once more with its SASS patched to count each instruction, and
 * once more with PC sampling, each its own launch after a prologue; never
 * a timed sample. */
#ifndef CUPLAY_WLINES_H
#define CUPLAY_WLINES_H

#include "wrun.h"
#include "wstart.h"

/* The collection into r->chan->extra (an sp_head, then its sp_pc
 * records, sent after the result). Counters that cannot be had here are
 * said in the head and stop nothing; a failing launch is the run's error. */
void lines_pass(wrun *r, const wstart *st, int (*prologue)(void *arg), int (*launch)(void *arg),
                int (*reload)(void *arg, char *err, size_t n), void *arg);

#endif
