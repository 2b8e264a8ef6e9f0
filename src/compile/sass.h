/* sass.h: what the compiler made of a kernel. The SASS of one kernel in a
 * cubin, by the CUDA toolkit's nvdisasm (preferred: it reads the line
 * table that -lineinfo leaves, so each source line shows above its
 * instructions) or cuobjdump; the PTX of one kernel from NVRTC's PTX, with
 * its .loc lines turned into source lines; and a count of the instructions
 * a student looks for (global, shared and local loads and stores, their
 * width, barriers). The tools run as child processes (posix_spawn, no
 * shell) on a temp file. */
#ifndef CUPLAY_SASS_H
#define CUPLAY_SASS_H

#include <stddef.h>

typedef enum sass_tool {
	SASS_NONE = 0,
	SASS_NVDISASM = 1,
	SASS_CUOBJDUMP = 2
} sass_tool;

/* Source files for annotation: the name NVRTC compiled under (as the line
 * table records it) and its text. A line-table file matches by its full
 * name, else by base name. */
typedef struct sass_src {
	const char *name;
	const char *text;
} sass_src;

/* Finds a disassembler (want: SASS_NONE for either, or the one wanted):
 * nvdisasm, then cuobjdump, each looked for in $CUDA_HOME/bin, the
 * built-in toolkit's bin, then PATH. Returns the kind
 * with *path (caller frees), or SASS_NONE with *why: "no nvdisasm or
 * cuobjdump in /usr/local/cuda/bin or PATH (they come with the CUDA
 * toolkit; set CUDA_HOME)". */
sass_tool sass_find_tool(sass_tool want, char **path, char **why);

/* The SASS of kernel `lowered` (its mangled name, or the plain name of an
 * extern "C" kernel) in cubin: a tidy listing, one instruction a line,
 * source lines above their instructions when the cubin has line info and
 * srcs holds the file. 0, or -1 with *err ("nvdisasm failed: ...", "no
 * kernel '_Z3fooPf' in the cubin", the why of sass_find_tool). */
int sass_disasm(const void *cubin, size_t len, const char *lowered, const sass_src *srcs, int nsrcs,
                char **out, char **err);

/* ---- pure parts, for tests ---- */

/* The lines of kernel `lowered` in a full listing of the given kind, or
 * NULL when it is not there. Caller frees. */
char *sass_extract(const char *listing, const char *lowered, sass_tool kind);

/* Tidies an extracted function: drops encodings and the NOP padding at the
 * end, aligns predicates, and turns `//## File "x.cu", line 17` into
 * `// x.cu:17  <the source line>` (once per change of line). Caller frees. */
char *sass_tidy(const char *func, const sass_src *srcs, int nsrcs);

typedef struct sass_counts {
	int instructions;          /* without the NOP padding */
	int ld_global, st_global;  /* LDG, STG (and atomics/reductions in atomics) */
	int ld_shared, st_shared;  /* LDS, LDSM, STS */
	int ld_local, st_local;    /* LDL, STL: register spills or local arrays */
	int ld_const;              /* LDC, ULDC */
	int barriers;              /* BAR */
	int atomics;               /* ATOM, ATOMG, ATOMS, RED, REDG */
	unsigned ld_global_bits, st_global_bits;  /* widths seen: 8 | 16 | 32 | 64 | 128 */
	unsigned ld_shared_bits, st_shared_bits;
} sass_counts;

/* Counts instructions in a listing (extracted or tidy). */
void sass_count(const char *listing, sass_counts *c);
/* "44 instructions; global: 4 loads (128-bit), 4 stores (128-bit); shared:
 * 1 load (64-bit), 1 store (64-bit); local: none; 1 barrier; 1 atomic" */
void sass_summary(const sass_counts *c, char *buf, int n);

/* The PTX of kernel `lowered` (from `.entry NAME(` to its closing brace),
 * with `.loc` lines turned into `// x.cu:17  <source line>` comments like
 * sass_tidy; NULL when the kernel is not there. Caller frees. */
char *ptx_extract(const char *ptx, const char *lowered, const sass_src *srcs, int nsrcs);

/* Runs argv[0] (a path; no shell, no PATH search) with argv, capturing
 * stdout and stderr; kills it after timeout_s seconds. 0 with *status (the
 * exit code, or 128 + signal), or -1 with *err when it could not run.
 * *out and *errout (caller frees; either may be NULL to discard). */
int proc_capture(const char *const *argv, double timeout_s, char **out, char **errout, int *status,
                 char **err);

#endif
