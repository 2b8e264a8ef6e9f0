/* ptxread.h: what a kernel's PTX says about its pointer parameters: which
 * ones it may read memory through. An output the kernel never reads need
 * not be reset before each timed launch: nothing the kernel does can
 * depend on what it held.
 *
 * The answer errs one way only: a parameter is "read" unless every use of
 * the pointer, and of every value computed from it, is seen to be an
 * address that is only stored to. Values are followed through registers,
 * flow-insensitively, by name; a pointer stored to memory, passed to a
 * call, or a parameter whose address is taken counts as read. */
#ifndef CUPLAY_PTXREAD_H
#define CUPLAY_PTXREAD_H

#include <stdint.h>

/* Bit i of *reads: the entry `entry` (its name in the PTX, mangled) may
 * read memory through parameter i, a pointer (a scalar parameter's bit
 * says nothing: its value stored is taken for a pointer escaping). 0, or -1 with *why (caller frees) when the
 * entry is not in the PTX or its body cannot be read; then *reads is all
 * ones. */
int ptx_param_reads(const char *ptx, const char *entry, uint64_t *reads, char **why);
/* The same, and bit i of *writes: the entry may write memory through
 * parameter i (a store, an atomic, a reduction, a copy into it, or the
 * pointer escaping: stored, passed to a call, its address taken); all
 * ones where the PTX cannot say. An input a kernel may write is restored
 * before the next kernel runs. */
int ptx_param_access(const char *ptx, const char *entry, uint64_t *reads, uint64_t *writes, char **why);

/* The widest load and store one thread of entry makes in a state space
 * ("global", "shared"), in bytes (ld.global.v4.f32: 16), 0 where it makes
 * none; from its PTX. A cp.async of N bytes is a global load of N. 0, or -1 with *why (caller frees) when the entry is
 * not there. */
int ptx_access_widths(const char *ptx, const char *entry, const char *space, int *ld_bytes, int *st_bytes,
                      char **why);

#endif
