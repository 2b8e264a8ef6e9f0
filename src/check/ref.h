/* ref.h: CPU references in double precision (those that only move values
 * also in the elements' own type), the comparison, and a cache of
 * reference results (buffers: buffer.h). */
#ifndef CUPLAY_REF_H
#define CUPLAY_REF_H

#include <stdint.h>
#include "buffer.h"
#include "par.h"
#include "types.h"
#include "refarg.h"
#include "ref_cmp.h"


typedef struct ref_fn {
	const char *name;
	int nargs;           /* exact count */
	const char *synopsis; /* e.g. "transpose(in, rows, cols)" */
	const char *argkinds; /* one char an argument: 'b' buffer, 's' scalar */
	/* Fills out[0..out_count). Returns 0, or -1 with *err set. */
	int (*fn)(const ref_arg *a, double *out, uint64_t out_count, char **err);
	double float_tol;    /* default relative L2 tolerance for float outputs */
	int scalar_out;      /* 1: fn defines out[0] only (sum, dot); compare 1 element */
	const char *what;    /* what it computes, for `help refs` */
	/* A reference that only moves values (copy, transpose): the same as fn
	 * on the scalars in their own type t (a[j].raw), into out, with the
	 * same argument checks and messages; a float NaN is written as the
	 * path through doubles writes it (buffer_from_double_exact), so the
	 * wanted bits are the same. NULL for the others. */
	int (*move)(const ref_arg *a, void *out, dtype t, uint64_t out_count, char **err);
	/* Words a check line may add after the arguments (matmul's `tn`,
	 * `tf32`), NULL-terminated; NULL: none. The last of the nargs
	 * arguments is then theirs: the front end passes word i as bit i of it
	 * (0 when none is written), so a line has nargs - 1 arguments and the
	 * words. */
	const char *const *opts;
} ref_fn;

/* matmul's words: B stored N x K (each row a column of B: "TN", as most
 * tensor-core kernels take it); A and B rounded to TF32 first. */
enum { MM_TN = 1, MM_TF32 = 2 };
/* The default tolerance of a check of f with these words (ref_default_tol
 * for the output type, widened where a word asks for it). */
double ref_default_tol_opts(const ref_fn *f, dtype out, int64_t opts);
int ref_nopts(const ref_fn *f); /* how many words f takes */

const ref_fn *ref_find(const char *name);

/* Whether ref_wanted moves f's values in their own type: f has a move,
 * every buffer argument's scalar type is the output's, and that type
 * converts to double and back exactly (not the 64-bit integers). */
int ref_moves(const ref_fn *f, const ref_arg *a, dtype out);
/* The wanted values of f on its arguments a (buffers by raw and type) for
 * an output of n scalars of type out: a new array (big_malloc) of n
 * elements of *wt, or NULL with *err. Values that only move stay in their
 * own type, on every core (ref_moves; doubles 0); else the inputs are
 * converted to doubles, f computes in doubles, integer outputs wrap as the
 * device's arithmetic does and the result is kept as a float, int or
 * unsigned when that holds every value exactly, else as doubles. Either
 * way the same values: the comparison gives the same verdict. */
void *ref_wanted(const ref_fn *f, const ref_arg *a, dtype out, uint64_t n, int doubles, dtype *wt,
                 char **err);
const ref_fn *ref_table(int *n);

/* Default tolerance for a reference and output type: float_tol for float,
 * 1e-10 for double, 0 (exact) for integer types. */
double ref_default_tol(const ref_fn *f, dtype out);

/* ref_set_threads and ref_threads, the threads of the host loops here:
 * par.h. */

/* ---- a cache of reference results ----
 * A reference's wanted values depend only on its name, its arguments
 * (buffers by signature, scalars by the value the function sees) and the
 * output's type and element count. */
#define REF_MAX_ARGS 8
#define REF_CACHE_MAX 8

typedef struct ref_key_arg {
	int is_buf;
	buffer_sig sig;  /* is_buf */
	int64_t i;       /* scalar, as in ref_arg */
	uint64_t f_bits; /* scalar: the bits of ref_arg.f */
} ref_key_arg;

typedef struct ref_key {
	char ref[64];
	int nargs;
	ref_key_arg args[REF_MAX_ARGS];
	dtype out_type;
	uint64_t out_count;
} ref_key;

/* A key with no arguments yet; then one call per argument, in order.
 * add_* return -1 (and add nothing) past REF_MAX_ARGS. */
void ref_key_init(ref_key *k, const char *ref, dtype out_type, uint64_t out_count);
int ref_key_add_buf(ref_key *k, const buffer_sig *s);
int ref_key_add_scalar(ref_key *k, int64_t i, double f);
int ref_key_eq(const ref_key *a, const ref_key *b);

typedef struct ref_cache_entry {
	ref_key key;
	void *data;      /* n elements of type */
	dtype type;
	uint64_t n, bytes;
	uint64_t stamp;  /* last use */
} ref_cache_entry;

/* Least recently used entries go first, to keep at most max_entries (at
 * most REF_CACHE_MAX) and max_bytes of data. Zero-initialise, then init. */
typedef struct ref_cache {
	int max_entries;
	uint64_t max_bytes;
	int n;
	ref_cache_entry e[REF_CACHE_MAX];
	uint64_t bytes, clock;
	uint64_t hits, misses;
} ref_cache;

void ref_cache_init(ref_cache *c, int max_entries, uint64_t max_bytes);
/* Frees every entry (the limits stay). */
void ref_cache_clear(ref_cache *c);
/* The data of an equal key (valid until the next put or clear), its type
 * and count; NULL when none. A hit makes the entry the most recent. */
const void *ref_cache_get(ref_cache *c, const ref_key *k, dtype *type, uint64_t *n);
/* Stores data (malloc'ed: n elements of type), replacing an equal key and
 * evicting the least recently used entries until it fits. Takes data: 1
 * when kept, 0 when freed (larger than max_bytes, or no room at all). */
int ref_cache_put(ref_cache *c, const ref_key *k, void *data, dtype type, uint64_t n);

#endif
