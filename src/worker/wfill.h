/* wfill.h: stage 3 of a request (worker.c draws them all). */
#ifndef CUPLAY_WFILL_H
#define CUPLAY_WFILL_H

#include "contents.h"
#include "launch.h"

/* The buffers the buffers stage left unwritten, filled with their initial
 * contents (fresh's pristine copies join their buffers or go), the host
 * buffers of a run on host data made, k->ka built; res->setup_ms. 0, or
 * -1 with the run's error recorded. */
int fill_stage(wrun *r, const wcontents *c, whost *wh, wfresh *fresh, wkernels *k);

#endif
