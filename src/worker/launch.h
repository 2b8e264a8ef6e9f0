/* launch.h: the kernels of a run, their arguments and their launches. */
#ifndef CUPLAY_LAUNCH_H
#define CUPLAY_LAUNCH_H

#include "hostbufs.h"

typedef union argval {
	CUdeviceptr p;
	int32_t i32;
	uint32_t u32;
	int64_t i64;
	uint64_t u64;
	float f32;
	double f64;
	unsigned char tm[128]; /* a CUtensorMap (wtmap.c), copied in: v may not be 64-byte aligned */
} argval;

/* Kernel arguments; params[i] points into v[i], so never copy one. */
typedef struct kargs {
	argval v[PLAN_MAX_ARGS];
	void *params[PLAN_MAX_ARGS + 1];
} kargs;

/* The run's module and its kernels (the prepare stage), and the
 * launch's arguments (the fill stage). */
typedef struct wkernels {
	CUmodule mod;
	int have_mod;
	CUfunction fn;
	CUfunction other[PLAN_MAX_CHECKS]; /* the checks' other variants */
	kargs ka;
	CUfunction step_fn[PLAN_MAX_STEPS]; /* a sequence's steps, in order */
	kargs step_ka[PLAN_MAX_STEPS];
	const void *image;   /* the module's image, for the request's length */
	CUmodule first_mod;  /* the module before w_load_again, unloaded with mod */
	int have_first;
} wkernels;

/* The module loaded again from k->image, its launch's and steps' kernels
 * in place of the first load's (kept, unloaded at the reply): PC sampling
 * sees only code loaded after it was enabled. 0, or -1 with why in err. */
int w_load_again(const plan *p, wkernels *k, char *err, size_t n);

void w_build_args(kargs *ka, const plan_launch *l, const CUdeviceptr *ptrs);
/* Launches on the default stream (or st); every output of the pool counts
 * as written. */
int w_launch(wrun *r, wpool *pool, CUfunction fn, const plan_launch *l, kargs *ka);
int w_launch_on(wrun *r, wpool *pool, CUfunction fn, const plan_launch *l, kargs *ka, CUstream st);
/* A sequence's steps in order on st (NULL: the legacy stream). */
int w_run_steps(wrun *r, wpool *pool, wkernels *k, CUstream st);
/* The run: on host data, each chunk on its stream (copy in, the kernel on
 * its slice, copy out), the legacy stream's work before and after it
 * ordered with them; a sequence's steps; else the launch alone. Not
 * waited for. */
int w_run_main(wrun *r, wpool *pool, const whost *wh, wkernels *k);

#endif
