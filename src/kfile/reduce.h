/* reduce.h: a kernel file cut down to the kernels one command runs.
 *
 * `run K` needs K, the kernels its checks name, the steps of a sequence,
 * and whatever device code those reach; the file's other __global__
 * definitions (and their prototypes and explicit instantiations) are
 * blanked, every character but the newlines made a space, so that every
 * line stays where it was: errors, warnings and per-line figures name the
 * file's own lines, and K compiles to the same SASS as in the whole file
 * (tests/unit/test_reduce.c checks it for every shipped kernel).
 *
 * Where blanking could change what K is, the file compiles whole:
 * relocatable device code (`//@ link`), a kernel launch inside device code
 * (`<<<`), a preprocessor directive inside a kernel to be blanked other
 * than #pragma and conditional groups whole inside it, a blanked kernel
 * named outside its own definition, a __device__ or __managed__ variable
 * used both by a blanked kernel and by the code kept, a template kernel
 * instantiated as two kernels of the file, a definition the parser did not
 * take for a kernel (a name defined twice under #if). */
#ifndef CUPLAY_REDUCE_H
#define CUPLAY_REDUCE_H

#include "spec.h"

/* The kernels of s that running want[0..n) needs: those, the kernels their
 * checks name, a sequence's steps, an instantiation's template; need[i]
 * set for each (need: s->nkernels ints). */
void spec_needed(const spec *s, const int *want, int n, int *need);

/* The source of s with the kernels that want[0..n) does not need blanked
 * (caller frees); NULL when the file must compile whole, with *why (caller
 * frees) saying why, or *why NULL when nothing would be blanked. */
char *spec_reduce(const spec *s, const int *want, int n, char **why);

#endif
