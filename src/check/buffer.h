/* buffer.h: buffer contents the worker and the references agree on:
 * deterministic initialisers, conversions to and from double, and the
 * signature that says what a buffer's initial contents are. */
#ifndef CUPLAY_BUFFER_H
#define CUPLAY_BUFFER_H

#include <stdint.h>
#include "types.h"

/* Host-side buffer init, the same values the worker uploads: the same seed
 * gives the same data. random: float and double uniform in [-1, 1), half
 * in [-1, 1) in steps of 2^-10 and bfloat16 in steps of 2^-7 (exact in the
 * type), int, unsigned and the 8- and 16-bit integers over the whole type,
 * long over the int32 range and uint64 over the uint32 range (a double
 * holds their sums exactly); iota: 0, 1, 2, ... (8- and 16-bit integers
 * wrap over their range, half wraps at 2048 and bfloat16 at 256, so every
 * value is exact); poison: every byte 0xFF (a NaN for the float types, all
 * bits set for integers). A vector type (float4) is filled as its scalars.
 * INIT_LIST writes nothing: the caller has the values. */
void buffer_fill(void *dst, dtype t, uint64_t count, init_kind k, double value, uint64_t seed);
/* Scalar i of an array of scalar type t as a double; v stored as element i
 * of type t (integers saturate, NaN gives 0; floats round to nearest). */
double buffer_get(const void *p, dtype t, uint64_t i);
void buffer_put(void *p, dtype t, uint64_t i, double v);
/* Converts count elements of type t to doubles (a vector type: count times
 * its lanes doubles). */
void buffer_to_double(const void *src, dtype t, uint64_t count, double *out);
/* Converts count doubles to type t (float, int or unsigned; 1: every value
 * converts to t and back unchanged (NaN stays NaN, integers keep -0.0
 * out), so dst holds src exactly; 0: not so (or another t), dst is
 * undefined. */
int buffer_from_double_exact(const double *src, uint64_t count, dtype t, void *dst);

/* The seed of buffer `name` in a plan seeded with `seed`: data depends on the
 * buffer's name, not on its position in the file. */
uint64_t buffer_seed(uint64_t seed, const char *name);

/* Elements [lo, hi) of an array of type t as doubles into out. */
void buffer_to_double_range(const void *src, dtype t, uint64_t lo, uint64_t hi, double *out);

/* What a buffer's initial contents depend on: two buffers with equal
 * signatures get the same data from buffer_fill. The value counts only for
 * INIT_VALUE (by its bits) and the seed only for INIT_RANDOM (as
 * buffer_seed of the plan's seed and the name); the name, type, count,
 * kind and managed flag always. */
typedef struct buffer_sig {
	char name[64];
	dtype type;
	uint64_t count;
	init_kind init;
	uint64_t value_bits;
	uint64_t seed;
	int managed;
} buffer_sig;

void buffer_sig_make(buffer_sig *s, const char *name, dtype t, uint64_t count, init_kind k,
                     double value, int managed, uint64_t plan_seed);
int buffer_sig_eq(const buffer_sig *a, const buffer_sig *b);
/* For each want[i], the index of an equal have[j], or -1: the first equal
 * one not given to an earlier want (each have[j] serves at most one). */
void buffer_sig_match(const buffer_sig *have, int nhave, const buffer_sig *want, int nwant,
                      int *match);

#endif
