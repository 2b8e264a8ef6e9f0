/* ref_cmp.h: a kernel's output compared with what a reference wants. */
#ifndef CUPLAY_REF_CMP_H
#define CUPLAY_REF_CMP_H

#include <stdint.h>
#include "types.h"

/* Relative L2 error of got vs want; first bad index (non-finite, or off by
 * more than tol relative to the RMS of want); ok = no non-finite values and
 * rel_err <= tol. tol == 0 (integer outputs): exact, ok = every element equal.
 * A non-finite want matches only the same value (NaN matches NaN);
 * nonfinite counts the NaN or infinite got values that do not match. */
typedef struct cmp_result {
	double rel_err;
	int64_t bad_index;
	double got, want;
	uint64_t nonfinite;
	double scale;   /* the RMS of the finite wanted values the error is relative to (1 where 0) */
	int ok;
} cmp_result;
void ref_compare(const double *got, const double *want, uint64_t n, double tol, cmp_result *r);
/* The same comparison on typed arrays: got holds n elements of type gt,
 * want n of type wt (each converted to double exactly). Runs on up to
 * ref_threads() threads over chunks whose bounds depend on n only, with
 * the per-chunk sums added in chunk order: the result does not depend on
 * the thread count, and for n <= 65536 (one chunk) it is bit for bit the
 * plain serial loop's. bad_index is the first bad index overall. */
void ref_compare_typed(const void *got, dtype gt, const void *want, dtype wt, uint64_t n,
                       double tol, cmp_result *r);

/* The same comparison in pieces, as the output arrives: begin, then
 * ref_cmp_range over consecutive pieces [lo, hi) from 0 to n (got holds
 * elements lo to hi of the output, got[0] being element lo; want all n),
 * then ref_cmp_end. The result is ref_compare_typed's on the whole array,
 * bit for bit, however the pieces fall. The first bad element is found
 * again in the one chunk of par_grain(n) elements that holds it: fetch
 * gives elements [lo, hi) of the output (NULL: an error, then ref_cmp_end
 * returns -1 and bad_index may be missing). Pieces out of order or short
 * of n: -1 and no verdict (ok 0). ref_cmp_end and ref_cmp_abort free the
 * run. */
typedef struct cmp_run cmp_run;
typedef const void *(*cmp_fetch)(void *ctx, uint64_t lo, uint64_t hi);
cmp_run *ref_cmp_begin(dtype gt, dtype wt, uint64_t n, double tol);
void ref_cmp_range(cmp_run *c, const void *got, const void *want, uint64_t lo, uint64_t hi);
int ref_cmp_end(cmp_run *c, const void *want, cmp_fetch fetch, void *ctx, cmp_result *r);
void ref_cmp_abort(cmp_run *c);

#endif
