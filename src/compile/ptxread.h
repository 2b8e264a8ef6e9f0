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

/* A variable of the module's global state space (`__device__` or
 * `__managed__`, `.global` in the PTX) that a kernel writes. */
typedef struct ptx_var {
	char name[128];     /* as the PTX names it (C++ names mangled) */
	char type[8];       /* the PTX type: "u32", "f32", "b8", ... */
	uint64_t count;     /* elements of type; 1 for a scalar */
	int managed;        /* `.attribute(.managed)`: __managed__ */
	int has_init;       /* declared with a value (`= ...`) */
	double init;        /* a scalar's value */
} ptx_var;

/* The module-scope `.global` variables the entry `entry` writes (a store,
 * an atomic, a reduction whose address comes from the variable's, through
 * registers, flow-insensitively), in the order the PTX declares them,
 * into *vars (caller frees; *n of them). String constants ($str) are left
 * out. 0, or -1 with *why (caller frees) when the entry is not there. */
int ptx_global_writes(const char *ptx, const char *entry, ptx_var **vars, int *n, char **why);

/* The bytes the module-scope `.global` variables of the PTX declare (each
 * its elements times its type's size; saturated at UINT64_MAX): 0, or -1
 * when there is no PTX. */
int ptx_global_bytes(const char *ptx, uint64_t *bytes);

#endif
