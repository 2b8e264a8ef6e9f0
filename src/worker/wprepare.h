/* wprepare.h: stage 1 of a request (worker.c draws them all). */
#ifndef CUPLAY_WPREPARE_H
#define CUPLAY_WPREPARE_H

#include "launch.h"
#include "roofs.h"
#include "wstart.h"

/* The plan checked, the context waited for, the roofs (once per worker)
 * and the L2 flush, the module loaded: k holds it and its kernels (an
 * info-only request: the launch's kernel alone). 0, or -1 with the run's
 * error recorded. */
int prepare_stage(wrun *r, wstart *st, wpool *pool, wroofs *rf, wtimer *tm, const void *image, wkernels *k);

#endif
