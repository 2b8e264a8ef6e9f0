/* ref.h: CPU references in double precision, and the comparison. */
#ifndef CUPLAY_REF_H
#define CUPLAY_REF_H

#include <stdint.h>
#include "types.h"

typedef struct ref_arg {
	int is_buf;
	const double *data; /* is_buf: the buffer's elements as doubles */
	uint64_t count;
	int64_t i;          /* scalar: integer value (also set for floats, truncated) */
	double f;           /* scalar: value as double */
	const char *name;   /* as written in the check, for messages (may be NULL) */
} ref_arg;

typedef struct ref_fn {
	const char *name;
	int nargs;           /* exact count */
	const char *synopsis; /* e.g. "transpose(in, rows, cols)" */
	const char *argkinds; /* one char an argument: 'b' buffer, 's' scalar */
	/* Fills out[0..out_count). Returns 0, or -1 with *err set. */
	int (*fn)(const ref_arg *a, double *out, uint64_t out_count, char **err);
	double float_tol;    /* default relative L2 tolerance for float outputs */
	int scalar_out;      /* 1: fn defines out[0] only (sum, dot); compare 1 element */
} ref_fn;

const ref_fn *ref_find(const char *name);
const ref_fn *ref_table(int *n);

/* Default tolerance for a reference and output type: float_tol for float,
 * 1e-10 for double, 0 (exact) for integer types. */
double ref_default_tol(const ref_fn *f, dtype out);

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
	int ok;
} cmp_result;
void ref_compare(const double *got, const double *want, uint64_t n, double tol, cmp_result *r);

/* Host-side buffer init, the same values the worker uploads: the same seed
 * gives the same data. random: floats uniform in [-1, 1), int/unsigned over
 * the whole type, long over the int32 range (a double holds their sums
 * exactly); iota: 0, 1, 2, ...; poison: every byte 0xFF (a NaN
 * for float and double, all bits set for integers). */
void buffer_fill(void *dst, dtype t, uint64_t count, init_kind k, double value, uint64_t seed);
/* Converts count elements of type t to doubles. */
void buffer_to_double(const void *src, dtype t, uint64_t count, double *out);

/* The seed of buffer `name` in a plan seeded with `seed`: data depends on the
 * buffer's name, not on its position in the file. */
uint64_t buffer_seed(uint64_t seed, const char *name);

#endif
