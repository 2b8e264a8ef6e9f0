/* plan.h: building one launch's plan from a parsed kernel file, the
 * values of its defines and params, and the device (the types: plan_types.h). */
#ifndef CUPLAY_PLAN_H
#define CUPLAY_PLAN_H

#include "plan_types.h"
#include "plan_tmap.h"

/* The wall time a timing loop may take (see TIMING_SHORT_WALL_S). */
double timing_wall_cap(const timing_opts *t, double median_s);

/* The chunks of n units over k streams: sizes n / k, the first n % k one
 * more, in order, each start the end of the one before. 0, or -1 when k is
 * not in 1..PLAN_MAX_CHUNKS or over n (a chunk would be empty). */
int plan_chunks(uint64_t n, int k, plan_chunk *out);
/* What a run copies over the bus: of the host buffers the kernel takes, an
 * input is copied in, an output out, and in too unless the kernel never
 * reads it (unread); copy_in, copy_out and their bytes, bus_h2d and
 * bus_d2h. Again after unread is known. */
void plan_bus(plan *p);

/* Front end: from a parsed file, values of defines and params, and the device,
 * to a plan for kernel k. Errors carry "path:line:col: ". */
int plan_build(const spec *s, int k, const symtab *values, const devinfo *dev,
               const timing_opts *t, plan *out, char **err);

/* Why the launch of kernel k of s (and of the kernels its checks run)
 * cannot run on dev: threads per block, block and grid dimensions, shared
 * memory (static + dynamic), clusters; errors name the //@ line. */
int plan_validate(const spec *s, int k, const plan *p, const devinfo *dev, int static_smem, char **err);
/* The same for one launch l of kernel k (a sequence's step). */
int plan_validate_launch(const spec *s, int k, const plan_launch *l, const devinfo *d, int static_smem,
                         char **err);

#endif

#ifndef CUPLAY_PLAN_VALUES
#define CUPLAY_PLAN_VALUES
/* The values of every define and param of s, in file order: the user's
 * setting where there is one (overrides), else the default expression,
 * evaluated with the device facts (SM_COUNT, WARP_SIZE, L2_BYTES) and the
 * names before it. Errors carry "path:line:col: ". */
int plan_values(const spec *s, const symtab *overrides, const devinfo *dev, symtab *out, char **err);

/* The type of a param comes from the kernels that take it. 1 when every
 * kernel with a scalar parameter `name` takes it as float or double (its
 * value is then computed in floating point: 5/2 is 2.5), else 0. */
int plan_param_is_float(const spec *s, const char *name);
/* Whether every kernel with a scalar parameter `name` can take v: not a
 * float where one takes an integer, not a value outside its integer type.
 * 0, or -1 with *err ("2.5 is not a whole number: kernel 'saxpy' takes
 * 'n' as int"). */
int plan_param_check(const spec *s, const char *name, value v, char **err);
/* A value given for define or param `name` of s (`set`, `sweep`,
 * `compare`), evaluated with the names in t (may be NULL): in floating
 * point for a float param, a whole float (1e6) made an integer for an
 * integer one, then checked with plan_param_check. 0, or -1 with *err and
 * *col (the 1-based column in text, 0 when the value as a whole is wrong). */
int plan_eval_value(const spec *s, const char *name, const char *text, const symtab *t, value *out,
                    int *col, char **err);
/* The default tolerance of `check OUT = KERNEL` for an output of type t:
 * relative L2 error; 0 (exact) for the integer types. */
double plan_kernel_check_tol(dtype t);

/* "NAME=VALUE" for every define of s (caller frees each and the array). */
char **plan_defines(const spec *s, const symtab *values, int *n);
#endif
