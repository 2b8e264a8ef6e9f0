/* contents.h: writing the initial contents of the run's device buffers
 * (the fill stage, the check's resets, the timed samples' resets). */
#ifndef CUPLAY_CONTENTS_H
#define CUPLAY_CONTENTS_H

#include "gpufill.h"
#include "pool.h"
#include "staging.h"

/* Where initial contents come from: the pool's host copies, the GPU fill,
 * the staging area for uploads. */
typedef struct wcontents {
	wpool *pool;
	gpufill *fill;
	wstaging *staging;
} wcontents;

/* contents_write's how: from the pristine device copy when there is one;
 * from the host copy rather than the GPU fill */
enum { CONTENTS_PRISTINE = 1, CONTENTS_FROM_HOST = 2 };
/* Buffer i's initial contents into dst. */
int contents_write(wrun *r, const wcontents *c, int i, CUdeviceptr dst, int how);
/* Every buffer whose device contents may have changed, reset. */
int contents_reset_dirty(wrun *r, const wcontents *c);
/* Whether every buffer of the run was written by this run. */
int contents_all_verified(wrun *r, const wpool *pool);
/* Every buffer not verified written again from its host copy. */
int contents_reverify(wrun *r, const wcontents *c);
/* The outputs reset before a timed launch, queued: how many, or -1. all:
 * those the kernel never reads too. */
int contents_restore_outputs(wrun *r, const wcontents *c, int all);
/* Element k (esz bytes) of buffer i's initial contents into out: 0; 1
 * past its end; -1 an error, reported. */
int contents_element(wrun *r, const wcontents *c, int i, uint64_t k, size_t esz, void *out);

#endif
