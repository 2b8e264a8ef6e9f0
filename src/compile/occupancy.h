/* occupancy.h: theoretical occupancy of a launch, from the device facts,
 * the kernel's registers and shared memory, and the block size.
 *
 * The rules are those of CUDA's occupancy calculator (cuda_occupancy.h,
 * cudaOccMaxActiveBlocksPerMultiprocessor) for compute capability 7.0 and
 * later, with the default shared memory carveout and no cache preference:
 *   - warps: a block takes ceil(threads / warp size) warp slots;
 *   - registers: regs x 32 per warp, rounded up to 256, allocated in each of
 *     4 SM sub-partitions; more than 256 per thread (or a block over the
 *     per-block register file) cannot launch;
 *   - shared memory: static + dynamic + the 1 KiB the driver reserves per
 *     block on sm_80 and later, rounded up to 256 B (sm_7x) or 128 B
 *     (sm_80+), against the SM's shared memory;
 *   - blocks: at most max_blocks_sm (32 on sm_70/80/90, 16 on sm_75 and
 *     sm_86, 24 on sm_89 and sm_120).
 * Pure: no CUDA. */
#ifndef CUPLAY_OCCUPANCY_H
#define CUPLAY_OCCUPANCY_H

#include "plan.h"

typedef struct occ_input {
	int regs;          /* registers per thread (ptxas or cuFuncGetAttribute) */
	int static_smem;   /* bytes of __shared__ arrays */
	int dyn_smem;      /* bytes of dynamic shared memory at launch */
	int threads;       /* threads per block: block.x * block.y * block.z */
} occ_input;

/* What stops another block from fitting; several may tie. */
enum {
	OCC_LIMIT_WARPS = 1,  /* threads per SM */
	OCC_LIMIT_REGS = 2,
	OCC_LIMIT_SMEM = 4,
	OCC_LIMIT_BLOCKS = 8  /* blocks per SM */
};

typedef struct occ_result {
	int ok;                /* 0: the block cannot run at all (why says) */
	char why[160];
	int blocks_per_sm;     /* active blocks per SM */
	int warps_per_block;
	int active_warps;      /* blocks_per_sm * warps_per_block */
	int max_warps;         /* warp slots per SM */
	double occupancy;      /* active_warps / max_warps, 0..1 */
	unsigned limits;       /* OCC_LIMIT_* bits reaching blocks_per_sm */
	/* blocks per SM each resource alone allows (INT_MAX: no limit) */
	int by_warps, by_regs, by_smem, by_blocks;
	int regs_per_warp;     /* allocated, after rounding */
	int smem_per_block;    /* allocated: with the reserved part, rounded */
	int smem_per_sm;       /* the SM's shared memory the calculation used */
} occ_result;

/* Computes occupancy for a block of in->threads on device d. Returns 0, or
 * -1 for bad input (threads <= 0, a devinfo without limits); a launch that
 * does not fit (too many registers or too much shared memory) is not an
 * error: out->ok is 0 and out->why says which limit. */
int occ_compute(const devinfo *d, const occ_input *in, occ_result *out);

/* "threads", "registers", "shared memory", "blocks per SM", joined by ", "
 * for ties, in that order; "" when out->ok is 0. */
const char *occ_limit_text(unsigned limits, char *buf, int n);

/* One line for `info`:
 * "occupancy 75% (48 of 64 warps, 6 blocks of 256 threads per SM), limited by registers" */
void occ_format(const occ_result *r, char *buf, int n);

/* What changed between two compiles of one kernel, for a line after a run:
 * "registers 32 -> 40, occupancy 100% -> 75% (limited by registers)".
 * Only the figures that differ; "" when nothing that matters changed.
 * Returns the length written. */
int occ_diff(const occ_input *a_in, const occ_result *a, const occ_input *b_in, const occ_result *b,
             char *buf, int n);

#endif
