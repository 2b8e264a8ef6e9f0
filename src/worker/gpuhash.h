/* gpuhash.h: the output hash of check/outhash.h computed on the GPU, so
 * that a check can tell an output it compared before without downloading
 * it. */
#ifndef CUPLAY_GPUHASH_H
#define CUPLAY_GPUHASH_H

#include "pool.h"
#include "ref.h"
#include "wrun.h"

/* The bytes of a slot: a comparison's six sums (outhash.h's recmp_sums),
 * then a hash's two words. */
#define GPU_SLOT_BYTES 64
/* A slot a check, then one a buffer of the plan (a sequence's steps'
 * outputs that no check names: slot PLAN_MAX_CHECKS + the buffer's index). */
#define GPU_SLOTS (PLAN_MAX_CHECKS + PLAN_MAX_BUFS)

typedef struct gpuhash {
	CUmodule mod;          /* the hash kernel, loaded on first need */
	CUfunction fn;
	CUdeviceptr out;       /* 16 bytes for gpu_outhash, then a slot a check */
	int failed;            /* it could not be loaded: compare on the host */
	int sm_count;          /* the device's, for the grid */
	CUmodule cmp_mod;      /* the comparison's kernels (float, double), loaded on first need */
	CUfunction cmp_fn[2];
	int cmp_failed;
	CUdeviceptr spare[GPU_SLOTS]; /* copies of checked outputs (by slot), kept from run to run */
	size_t spare_bytes[GPU_SLOTS];
} gpuhash;

/* The output hash of bytes at d: 0 with h; 1 when the hash kernel cannot
 * be had here; -1 on an error, reported. */
int gpu_outhash(wrun *r, gpuhash *gh, CUdeviceptr d, uint64_t bytes, uint64_t h[2]);
void hash_free(gpuhash *gh);

/* The last launch's outputs against the checked ones, every output at
 * once and one wait for all: the slots cleared, a hash or a comparison
 * queued into slot i for check i, then every slot taken. The queues: 0;
 * 1 when that one cannot be had here (odd bytes for a hash, a type the
 * comparison does not take, the kernels not loaded); -1 an error,
 * reported. */
int gpu_slots_clear(wrun *r, gpuhash *gh);
int gpu_outhash_queue(wrun *r, gpuhash *gh, CUdeviceptr d, uint64_t bytes, int slot);
/* n scalars of type t (float or double, or vectors of them) at got
 * against those at want: recmp_sums in the slot's first six words. */
int gpu_recmp_queue(wrun *r, gpuhash *gh, CUdeviceptr got, CUdeviceptr want, uint64_t n, dtype t, int slot);
int gpu_slots_take(wrun *r, gpuhash *gh, uint64_t slots[GPU_SLOTS][GPU_SLOT_BYTES / 8]);
/* A device copy of bytes for slot i's output into *d, kept from run to
 * run while the size holds: 0; 1 when memory is short (*d 0); -1 an error. */
int gpu_spare(wrun *r, gpuhash *gh, int i, size_t bytes, CUdeviceptr *d);
/* Before a plan's buffers are taken: the copies its checks cannot use go,
 * so that device memory holds no copy beyond one of its outputs. */
void hash_spares_fit(gpuhash *gh, const plan *p);

/* The hashes of a run's checked outputs after one launch, for the last
 * launch of the timed ones to be compared with: the checked launch's
 * (from_check), else, in a run that times without checking (`//@ check
 * at`), its first launch's, with a device copy of each output for the
 * comparison where the hashes differ. Only outputs on the device
 * (outsum_able) are hashed. */
typedef struct outsums {
	int have[PLAN_MAX_CHECKS];       /* check i's output hashed */
	uint64_t h[PLAN_MAX_CHECKS][2];
	CUdeviceptr copy[PLAN_MAX_CHECKS]; /* the first launch's output, or the checked one's (float
	                                    and double outputs, and those with no reference to compare
	                                    with), or 0; gpu_spare's */
	double err[PLAN_MAX_CHECKS];     /* have_key: the checked output's relative error and scale */
	double scale[PLAN_MAX_CHECKS];
	int have_key[PLAN_MAX_CHECKS];   /* key[i]: the wanted values of a check against a reference */
	ref_key key[PLAN_MAX_CHECKS];
	int from_check;                  /* the hashes are the checked launch's */
	double keep_ms;                  /* the host time of the hashes and copies taken for the comparison */
	double launch_ms;                /* the host time of the last launch */
	double resets_ms;                /* the GPU time the samples' resets of every output added, where
	                                    the last sample stood for the last launch (estimated) */
	/* a sequence: the outputs of its steps that no check names (scratch
	 * ones too), by buffer, compared as a check's are, at the loosest of
	 * the checks' tolerances */
	int step_have[PLAN_MAX_BUFS];
	uint64_t step_h[PLAN_MAX_BUFS][2];
	CUdeviceptr step_copy[PLAN_MAX_BUFS];
	int last;                        /* the last launch ran: its outputs are in the buffers */
} outsums;

/* Whether check i's output can be hashed where it lies: on the device
 * (managed too), in a run not on host data. */
int outsum_able(const plan *p, int i);
/* The hashes of the checks' outputs in the pool's buffers into s (s->have
 * set where taken); copy: a device copy of each kept too. 0; 1 when the
 * hash kernel cannot be had (nothing taken); -1 on an error, reported. */
int outsums_take(wrun *r, gpuhash *gh, const wpool *pool, outsums *s, int copy);
/* Whether buffer b is an output of a sequence's steps that no check
 * names (outsums' step_*). */
int outsum_step(const plan *p, int b);
/* Those outputs' hashes and (float, double) copies into s. 0, 1, -1 as
 * outsums_take. */
int outsums_take_steps(wrun *r, gpuhash *gh, const wpool *pool, outsums *s);
/* s is empty again (its copies are gpu_spare's, kept). */
void outsums_clear(outsums *s);

#endif
