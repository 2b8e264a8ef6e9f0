/* gpuhash.h: the output hash of check/outhash.h computed on the GPU, so
 * that a check can tell an output it compared before without downloading
 * it. */
#ifndef CUPLAY_GPUHASH_H
#define CUPLAY_GPUHASH_H

#include "pool.h"
#include "ref.h"
#include "wrun.h"

typedef struct gpuhash {
	CUmodule mod;          /* the hash kernel, loaded on first need */
	CUfunction fn;
	CUdeviceptr out;
	int failed;            /* it could not be loaded: compare on the host */
	int sm_count;          /* the device's, for the grid */
} gpuhash;

/* The output hash of bytes at d: 0 with h; 1 when the hash kernel cannot
 * be had here; -1 on an error, reported. */
int gpu_outhash(wrun *r, gpuhash *gh, CUdeviceptr d, uint64_t bytes, uint64_t h[2]);
void hash_free(gpuhash *gh);

/* The hashes of a run's checked outputs after one launch, for the last
 * launch of the timed ones to be compared with: the checked launch's
 * (from_check), else, in a run that times without checking (`//@ check
 * at`), its first launch's, with a device copy of each output for the
 * comparison where the hashes differ. Only outputs on the device that are
 * not managed (outsum_able) are hashed. */
typedef struct outsums {
	int have[PLAN_MAX_CHECKS];       /* check i's output hashed */
	uint64_t h[PLAN_MAX_CHECKS][2];
	CUdeviceptr copy[PLAN_MAX_CHECKS]; /* the first launch's output (or the checked one's, where
	                                    no reference is there to compare with), or 0 */
	int have_key[PLAN_MAX_CHECKS];   /* key[i]: the wanted values of a check against a reference */
	ref_key key[PLAN_MAX_CHECKS];
	int from_check;                  /* the hashes are the checked launch's */
	int last;                        /* the last launch ran: its outputs are in the buffers */
} outsums;

/* Whether check i's output can be hashed where it lies: on the device,
 * not managed, in a run not on host data. */
int outsum_able(const plan *p, int i);
/* The hashes of the checks' outputs in the pool's buffers into s (s->have
 * set where taken); copy: a device copy of each kept too. 0; 1 when the
 * hash kernel cannot be had (nothing taken); -1 on an error, reported. */
int outsums_take(wrun *r, gpuhash *gh, const wpool *pool, outsums *s, int copy);
/* The copies go; s is empty again. 0, or -1 on an error, reported (r
 * NULL: quietly). */
int outsums_clear(wrun *r, outsums *s);

#endif
