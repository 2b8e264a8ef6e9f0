/* wbuffers.h: stage 2 of a request (worker.c draws them all). */
#ifndef CUPLAY_WBUFFERS_H
#define CUPLAY_WBUFFERS_H

#include "pool.h"

/* The run's buffers in pool->buf: reused from the pool where their
 * signatures match, else allocated (a `//@ global` taken from mod), with
 * the pristine copies timing needs in *fresh; nothing written yet. Short
 * of device memory, the pool is dropped and the stage tried once more.
 * 0, or -1 with the run's error recorded. */
int buffers_stage(wrun *r, wpool *pool, CUmodule mod, wfresh *fresh);

#endif
