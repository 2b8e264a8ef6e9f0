/* gpufill.h: random inputs written on the GPU, bit for bit what
 * buffer_fill writes on the host (gpufill.c says how). */
#ifndef CUPLAY_GPUFILL_H
#define CUPLAY_GPUFILL_H

#include <pthread.h>

#include "wrun.h"

/* The random fill's kernels: one per stored width and conversion. */
#define FILL_KERNELS 11

typedef struct gpufill {
	CUmodule mod;
	CUfunction fn[FILL_KERNELS];
	int state;             /* 0 not loaded yet, 1 loaded, -1 not to be had: under mu */
	char why[160];         /* why not */
	int sm_count;          /* the device's, for the grid */
	pthread_mutex_t mu;    /* the start-up thread loads them (fill_load) */
	pthread_cond_t cv;
} gpufill;

/* The PTX of the fill kernels (one entry per kernel, fill_kernel_name). */
extern const char fill_ptx[];
/* The kernel that fills random buffers of type t (vectors as their
 * scalars), or -1 when there is none. */
int fill_kernel_of(dtype t);
const char *fill_kernel_name(int k);
void fill_init(gpufill *f, int sm_count);
/* On the start-up thread once the context is there: loads the kernels
 * (unless CUPLAY_FILL_HOST=1 or CUPLAY_PAGEABLE=1), with a trace line
 * either way, and announces it; fill_none: there is no context. */
void fill_load(gpufill *f);
void fill_none(gpufill *f);
void fill_free(gpufill *f);
/* Writes buffer i's initial contents into dst on the GPU when they are a
 * random stream the kernels make (not managed, not a global), waiting for
 * fill_load first: 0 done; 1 not to be had here (upload the host copy);
 * -1 an error, reported. */
int fill_random(wrun *r, gpufill *f, int i, CUdeviceptr dst);

#endif
