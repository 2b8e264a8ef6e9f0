/* gpuhash.h: the output hash of check/outhash.h computed on the GPU, so
 * that a check can tell an output it compared before without downloading
 * it. */
#ifndef CUPLAY_GPUHASH_H
#define CUPLAY_GPUHASH_H

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

#endif
