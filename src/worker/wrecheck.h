/* wrecheck.h: stage 6 of a request, after the timing (worker.c draws them
 * all): the timed launches' last compared with the checked launch. */
#ifndef CUPLAY_WRECHECK_H
#define CUPLAY_WRECHECK_H

#include "wcheck.h"

/* The outputs the time stage's last launch left, hashed on the GPU and
 * compared with ck->sums; where the bits differ, the values compared with
 * the reference (or the copy kept) at the check's tolerance. The verdict
 * in res->timed_check (TIMED_*), with the output and its error where it
 * differs. 0, or -1 with the run's error recorded. */
int recheck_stage(wrun *r, const wcontents *c, wchecks *ck);

#endif
