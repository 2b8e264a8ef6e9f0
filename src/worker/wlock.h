/* wlock.h: one measurer at a time per GPU, across processes (wlock.c says
 * why and how). */
#ifndef CUPLAY_WLOCK_H
#define CUPLAY_WLOCK_H

#include "wrun.h"

/* Takes the lock of GPU dev (waiting, with one note, while another process
 * holds it): 0 held, or no lock to be had; 1 stopped while waiting
 * (res->status is RES_INTERRUPTED). Held until w_gpu_unlock. */
int w_gpu_lock(wrun *r, const devinfo *dev);
void w_gpu_unlock(void);

#endif
