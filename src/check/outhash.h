/* outhash.h: a 128-bit hash of an output's bytes, the same on the CPU and
 * on the GPU (src/worker/server_hash.c), and the verdicts of earlier checks
 * by the hash of what was checked.
 *
 * The hash: the bytes as little-endian 64-bit words w[i] (the last one
 * padded with zero bytes); a_i = mix_a(w[i] ^ i * 0x9e3779b97f4a7c15);
 * h[0] = sum of a_i, h[1] = sum of mix_b(a_i + i), both modulo 2^64, so
 * that any order of adding gives the same value. mix_a is splitmix64's
 * finaliser, mix_b murmur3's. */
#ifndef CUPLAY_OUTHASH_H
#define CUPLAY_OUTHASH_H

#include "ref.h"

#include <stdint.h>

void outhash(const void *data, uint64_t bytes, uint64_t h[2]);

/* The part of the hash from words [i0, i1) of words w (already loaded):
 * added into h. */
void outhash_words(const uint64_t *w, uint64_t i0, uint64_t i1, uint64_t h[2]);

/* A comparison's result is a function of the output's bits, the wanted
 * values (a reference key fixes them), the tolerance and the count
 * compared: an output whose hash was compared before under the same
 * key, tolerance and count gets the same result without comparing. */
#define VERDICT_MAX 16

typedef struct verdict {
	ref_key key;
	double tol;
	uint64_t count, bytes;
	uint64_t h[2];
	cmp_result cr;
} verdict;

typedef struct verdict_cache {
	int n, next;
	verdict v[VERDICT_MAX];
} verdict_cache;

/* The earlier result, or NULL. */
const cmp_result *verdict_get(const verdict_cache *c, const ref_key *k, double tol, uint64_t count,
                              uint64_t bytes, const uint64_t h[2]);
/* Remembers a result (the oldest goes when full). */
void verdict_put(verdict_cache *c, const ref_key *k, double tol, uint64_t count, uint64_t bytes,
                 const uint64_t h[2], const cmp_result *cr);

/* The last of the timed launches against the checked one (or the first),
 * element by element, as the GPU's comparison kernel adds it up
 * (src/worker/gpuhash.c) and recmp_host does on the CPU, by the rule of
 * ref_cmp.h with the checked output as the wanted values: over the finite
 * pairs, the squared differences and the squared checked values; a
 * non-finite value that does not match counts as bad. */
typedef struct recmp_sums {
	uint64_t ndiff;     /* elements whose bits differ */
	uint64_t first_not; /* the complement of the first such index; 0: none */
	uint64_t nfin;      /* finite pairs */
	uint64_t nbad;      /* non-finite values that do not match */
	double ss_diff, ss_want;
} recmp_sums;

/* Whether an output of type t (a scalar, or a vector of it) can be
 * compared so: float or double. */
int recmp_type(dtype t);
/* The sums of n scalars of type t (float or double): got against want. */
void recmp_host(const void *got, const void *want, dtype t, uint64_t n, recmp_sums *s);
/* The sums from their six 64-bit words as the GPU leaves them. */
void recmp_unpack(const uint64_t w[6], recmp_sums *s);

/* What the sums say against the check's tolerance: the same bits; other
 * bits within the tolerance; other values beyond it; or not sure (the
 * caller compares on the host with ref_cmp). err and scale: the checked
 * output's relative error and scale against the reference (cmp_result);
 * scale 0 where the checked output is itself the wanted values. Within
 * the tolerance means so for every reference the checked output was
 * within err of (the triangle inequality): |last - ref| <= |last -
 * checked| + err * scale, relative to scale. */
enum { RECMP_SAME, RECMP_CLOSE, RECMP_DIFFERS, RECMP_UNSURE };
int recmp_verdict(const recmp_sums *s, double tol, double err, double scale);

#endif
