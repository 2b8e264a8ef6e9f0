/* winfo.h: the stage of an info-only request (worker.c draws them all). */
#ifndef CUPLAY_WINFO_H
#define CUPLAY_WINFO_H

#include "launch.h"
#include "nvml.h"

/* `info`: the function's attributes and the occupancy API's answers for the
 * planned launch, into r->res->fn; the GPU's conditions now. 0, or -1
 * with the run's error recorded. */
int info_stage(wrun *r, const wkernels *k, nvml_dev *nvml);

#endif
