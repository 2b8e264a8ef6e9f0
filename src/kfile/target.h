/* target.h: the architecture a kernel file is compiled for (`//@ arch`).
 *
 *   //@ arch TARGET[, TARGET...]     the first one the device runs
 *   TARGET: sm_XY    code for compute capability X.Y, runs on X.Y..X.9
 *           sm_XYa   arch-specific (wgmma, setmaxnreg, tcgen05): runs on X.Y only
 *           sm_XYf   family-specific (CUDA 12.9+): runs on X.Y..X.9
 *           native   the device's own (what a file without the line gets)
 *           native+a the device's own, arch-specific (sm_90a on an H100)
 *
 * A cubin runs only on its own major version (cuplay loads SASS, no PTX to
 * JIT): sm_80 code does not run on an H100, and sm_90a code runs on compute
 * capability 9.0 alone. */
#ifndef CUPLAY_TARGET_H
#define CUPLAY_TARGET_H

#include <stddef.h>

#define TARGET_MAX 8

typedef struct arch_target {
	int sm;      /* 90 for sm_90a; 0 for native */
	char suffix; /* 0, 'a' (arch-specific) or 'f' (family-specific) */
	int line, col;
} arch_target;

/* Parses one target word of length n ("sm_90a", "native", "native+a").
 * 0, or -1 with *why (caller frees) saying what is wrong. */
int target_parse(const char *w, int n, arch_target *t, char **why);
/* The target as written: "sm_90a", "native+a". */
void target_spell(const arch_target *t, char *buf, size_t n);
/* What t compiles to on a device of compute capability cc (90 for 9.0):
 * "sm_90a" into buf, and the number (90) returned. */
int target_resolve(const arch_target *t, int cc, char *buf, size_t n);
/* 1 when t's code runs on compute capability cc; else 0 with *why (caller
 * frees): "arch-specific code runs on compute capability 10.0 only". */
int target_runs(const arch_target *t, int cc, char **why);
/* Parses the list [p, end) of an `arch` line: targets separated by commas
 * (or blanks); each gets its column from col_of_p, the column of p.
 * 0, or -1 with *why and *errcol (the column of the fault). */
int target_list(const char *p, const char *end, int line, int col_of_p, arch_target *out, int *n,
                int *errcol, char **why);
/* The first of ts[0..n) that runs on cc; -1 when none does. */
int target_pick(const arch_target *ts, int n, int cc);

#endif
