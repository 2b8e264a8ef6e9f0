/* wreply.h: stage 6 of a request, the last (worker.c draws them all). */
#ifndef CUPLAY_WREPLY_H
#define CUPLAY_WREPLY_H

#include "launch.h"
#include "roofs.h"
#include "staging.h"
#include "wprintf.h"

/* The run's end, whatever stage it reached: the early host copies no
 * buffer took and the GPU lock go, device printf is taken into the result,
 * the module is unloaded (the buffers stay in the pool for the next run),
 * the download buffer trimmed; the roofs and the run's time go into the
 * result. It cannot fail. */
void reply_stage(wrun *r, wpool *pool, wprintf *pf, wkernels *k, wstaging *sg, const wroofs *rf);
/* The result to the front end: 0, or -1 when it is gone. */
int reply_send(wchan *c, const result *res);

#endif
