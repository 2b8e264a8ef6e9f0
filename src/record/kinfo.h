/* kinfo.h: the `info KERNEL` block and the "what changed" line after a
 * recompile, from what the front end already has: ptxas resources (kres),
 * the launch (grid, block, dynamic shared memory), the device facts, and
 * optionally the SASS counts. Pure. */
#ifndef CUPLAY_KINFO_H
#define CUPLAY_KINFO_H

#include "nvrtc.h"
#include "occupancy.h"
#include "plan.h"
#include "report.h"
#include "sass.h"

/* The occupancy input of a launch: registers and static shared memory from
 * kres, dynamic shared memory and threads from the launch. */
occ_input kinfo_occ_input(const kres *r, const plan_launch *l);

/* A two-column table (what, value) for `info`:
 *   kernel      transpose_tiled (_Z15transpose_tiledPKfPfi), sm_90
 *   resources   30 registers, 4.1 KiB shared (static), 0 B stack, no spills
 *   launch      grid 256x256, block 32x8 = 256 threads, no dynamic shared memory
 *   occupancy   100% (64 of 64 warps, 8 blocks of 8 warps per SM), limited by threads, registers
 *   sass        50 instructions; global: 4 loads (32-bit), ...     (when counts is given)
 * r->known 0: "resources unknown (no ptxas report)"; l or d NULL: the rows
 * that need them are left out. arch: the target compiled for ("sm_90a"). */
void kinfo_table(table *t, const char *name, const char *lowered, const char *arch, const kres *r,
                   const plan_launch *l, const devinfo *d, const sass_counts *counts);

/* The same facts as one typed record ("info") for csv and json: the
 * resources, the launch, the occupancy, and the driver's figures when fi
 * is given (NULL: compile-only), and state: the variables the kernel
 * writes and nothing resets ("done finished"; NULL or "": none). */
struct func_info;
void kinfo_record(table *t, const char *name, const char *lowered, const char *arch, const kres *r,
                  const plan_launch *l, const devinfo *d, const struct func_info *fi, const char *state);

/* What changed between two compiles of one kernel on device d:
 * "registers 32 -> 40, spills 0 B -> 24 B, occupancy 100% -> 75% (limited
 * by registers)"; "" when nothing that matters changed. Either kres
 * unknown: "". Returns the length written. */
int kinfo_changes(const kres *a, const plan_launch *la, const kres *b, const plan_launch *lb,
                    const devinfo *d, char *buf, int n);

#endif
