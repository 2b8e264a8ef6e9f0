/* par.h: host loops over large arrays, in chunks on several threads (the
 * references, the comparison, buffer fills and conversions). A chunk's
 * bounds depend only on the array's length, never on the thread count, and
 * anything a chunk sums is combined in chunk order afterwards: the results
 * are the same on any machine. The thread count: ref_threads (ref.h). */
#ifndef CUPLAY_PAR_H
#define CUPLAY_PAR_H

#include <stdint.h>

/* Threads for the host loops of check/ (compare, fill, conversion, references):
 * n > 0 sets it (at most 64), 0 restores the default (the CPUs this
 * process may run on, at most 64). */
void ref_set_threads(int n);
int ref_threads(void);

/* fn(ctx, ci, lo, hi): chunk ci is [lo, hi) = [ci * chunk, min(n, (ci + 1) * chunk)). */
typedef void (*par_fn)(void *ctx, uint64_t ci, uint64_t lo, uint64_t hi);

/* The chunk length for n elements: 64 Ki elements, doubled while that would
 * make more than 16 Ki chunks. A function of n alone. */
uint64_t par_grain(uint64_t n);

/* Runs every chunk of [0, n) once, on up to ref_threads() threads (this one
 * included); returns when all are done. A thread that cannot start leaves
 * its share to the others. */
void par_chunks(uint64_t n, uint64_t chunk, par_fn fn, void *ctx);

#endif
