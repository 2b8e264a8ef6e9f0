/* wtmap.h: a launch's CUtensorMap arguments (`//@ tensormap`). */
#ifndef CUPLAY_WTMAP_H
#define CUPLAY_WTMAP_H

#include "launch.h"

/* The CUtensorMap arguments of l encoded into ka (after w_build_args) for
 * the buffers at ptrs, with cuTensorMapEncodeTiled: 0, or -1 (w_fail,
 * naming the //@ tensormap line). */
int w_tensormaps(wrun *r, kargs *ka, const plan_launch *l, const CUdeviceptr *ptrs);

#endif
