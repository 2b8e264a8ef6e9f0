/* spec_types.h: a kernel file: its //@ header and the __global__ functions in it.
 *
 * Parsing only: expressions are kept as text with their location and are
 * evaluated later (plan.c), when the values of defines and params are known.
 *
 *   //@ define NAME = EXPR          compile time, passed as -DNAME=VALUE
 *   //@ param  NAME = EXPR          run time, bound to kernel parameters NAME
 *   //@ buffer NAME TYPE[EXPR] INIT [output] [managed [prefetch]] [host [pinned]]
 *                                   host: the data lives in host memory
 *                                   (pageable, or pinned), and a run copies
 *                                   it in (an input) and out (an output)
 *   //@ global NAME TYPE[[EXPR]] INIT|{V, V, ...} [output]
 *                                   a __constant__ or __device__ variable
 *            TYPE: float double int unsigned long
 *            INIT: random zero one iota value(X) poison
 *            scratch: an intermediate of a sequence's steps: reset before
 *            each run like an output, never checked
 *   //@ grid  EXPR[, EXPR[, EXPR]]
 *   //@ block EXPR[, EXPR[, EXPR]]
 *   //@ cluster EXPR[, EXPR[, EXPR]]  thread block clusters (sm_90)
 *   //@ smem  EXPR                  dynamic shared memory, bytes
 *   //@ bytes EXPR                  minimum traffic, for GB/s
 *   //@ flops EXPR                  for GFLOP/s
 *   //@ check OUT = REF(ARG, ...) [tol X]   built-in CPU reference
 *   //@ check OUT = KERNEL [tol X]          another variant of this file
 *   //@ check none
 *   //@ check at NAME=EXPR[, NAME=EXPR]     params for the check pass only
 *                                           (check small, time large)
 *   //@ streams EXPR split NAME             a run in EXPR chunks on as many
 *                                           streams: param NAME is cut in
 *                                           chunks, the host buffers sliced
 *   //@ arch TARGET[, TARGET...]            the architecture compiled for:
 *                                           the first the device runs
 *                                           (sm_90a, sm_90, native, native+a:
 *                                           target.h)
 *   //@ tensormap NAME = BUF[D0, ...] box B0, ... [swizzle S] [interleave I]
 *                 [l2promo L] [oob zero|nan]    a CUtensorMap (TMA), below
 *   //@ link cudadevrt                      relocatable device code + devrt
 *   //@ include DIR...                      header directories (relative to
 *                                           the file's own)
 *   //@ kernel NAME LINE                    per-kernel override of grid,
 *                                           block, smem, bytes, flops, check;
 *                                           or `//@ kernel NAME skip`
 *   //@ sequence NAME = K1, K2, ...         a variant that runs kernels K1, K2,
 *                                           ... in order on the file's buffers
 *                                           (each with its own `//@ kernel`
 *                                           lines), checked after the last
 *   //@ kernel TEMPLATE<ARGS> [LINE]        an instantiation of a template
 *                                           kernel to run (ARGS may name
 *                                           defines: `//@ kernel red<BS>`)
 * A `//` inside a //@ line starts a comment.
 *
 * Kernels are named as C++ names them: `course::copy` inside namespace
 * course, `reduce<BS>` for an instantiation; an explicit instantiation in
 * the source (`template __global__ void reduce<256>(...);`) is a kernel too.
 */
#ifndef CUPLAY_SPEC_TYPES_H
#define CUPLAY_SPEC_TYPES_H

#include <stddef.h>
#include "types.h"
#include "target.h"
#include "util.h"

#define SPEC_MAX_DIMS 3
#define SPEC_MAX_CHECKS 8
#define SPEC_MAX_CHECK_ARGS 8
#define SPEC_MAX_STEPS 8

/* An expression as written, with the position of its first character.
 * text == NULL means "not given". */
typedef struct spec_expr {
	char *text;
	int line, col;
} spec_expr;

typedef struct spec_var {
	char *name;
	int is_define; /* define (-D) or param (kernel argument) */
	spec_expr value;
	int line, col; /* of the name */
} spec_var;

/* Where a buffer's data lives: on the device (the kernel's memory only), or
 * on the host, pageable or page-locked, so that a run copies it in and out. */
enum { BUF_DEVICE = 0, BUF_HOST_PAGEABLE = 1, BUF_HOST_PINNED = 2 };

typedef struct spec_buffer {
	char *name;
	dtype type;
	spec_expr count;
	init_kind init;
	double init_value; /* for INIT_VALUE */
	int output;
	int managed;
	int prefetch;      /* managed: moved to the GPU before each launch */
	int global;        /* `//@ global`: a __constant__ or __device__ variable of the file */
	int host;          /* BUF_HOST_*: where the data lives between runs */
	int scratch;       /* an intermediate (`scratch`): an output that no check may name */
	int nlist;         /* INIT_LIST: the values, as scalars */
	double *list;
	int line, col;
} spec_buffer;

typedef struct spec_check {
	int none;          /* `check none` */
	char *out;         /* output buffer name */
	char *ref;         /* reference function, or a kernel of this file */
	int is_kernel;     /* resolved by spec_parse once kernels are known */
	int nargs;
	spec_expr args[SPEC_MAX_CHECK_ARGS]; /* buffer names or expressions */
	double tol;        /* 0: the default for the type and reference */
	int line, col;
} spec_check;

/* What a launch needs; the file's lines and each kernel's overrides. */
typedef struct spec_launch {
	int ngrid, nblock, ncluster; /* 0: not given */
	spec_expr grid[SPEC_MAX_DIMS], block[SPEC_MAX_DIMS], cluster[SPEC_MAX_DIMS];
	spec_expr smem, bytes, flops;
	int nchecks; /* -1: not given (inherit); 0 after `check none` */
	spec_check checks[SPEC_MAX_CHECKS];
} spec_launch;

typedef struct kparam {
	char *type;  /* as written, normalised spaces, without the name */
	char *name;
	arg_kind kind; /* ARG_PTR for pointers, ARG_NONE when unsupported */
	dtype elem;    /* for pointers to a known element type */
	int elem_known;
	int line, col;
} kparam;

/* A template parameter of a template kernel. */
typedef struct tparam {
	char *name;
	int is_type; /* typename/class T, as opposed to int N */
} tparam;

typedef struct spec_kernel {
	char *name;      /* as shown and typed: "saxpy", "course::copy", "reduce<BS>" */
	char *expr;      /* the C++ name NVRTC is asked for (&expr); = name */
	char *base;      /* the identifier alone: "copy", "reduce" */
	int line, col;   /* of the name in the definition */
	int nparams;
	kparam *params;
	int is_template; /* a template: launched through its instantiations only */
	int ntparams;
	tparam *tparams; /* of a template */
	int tmpl;        /* an instantiation: the index of its template; else -1 */
	int decl_line, decl_col; /* where an instantiation is named (a //@ kernel
	                            line or an explicit instantiation) */
	int skip;        /* `//@ kernel NAME skip` */
	spec_launch over;
	int nsteps;      /* a sequence (`//@ sequence`): its steps, kernel indices in
	                    order; 0 for a kernel */
	int steps[SPEC_MAX_STEPS];
	int is_step;     /* a step of a sequence: not in `run all` unless named */
} spec_kernel;

/* `//@ tensormap NAME = BUF[D0, D1, ...] box B0, B1, ... [swizzle S]
 * [interleave I] [l2promo L] [oob zero|nan]`: a CUtensorMap of buffer BUF
 * seen as an array of these dimensions, outermost first (BUF[M, K]: M rows
 * of K elements), built by the worker with cuTensorMapEncodeTiled and
 * passed to the kernel parameter NAME (tmap.c parses it, plan_tmap.c
 * checks it against the driver's rules). */
#define TMAP_MAX_RANK 5
typedef struct spec_tmap {
	char *name, *buf;
	int rank, nbox;
	spec_expr dims[TMAP_MAX_RANK]; /* as written: outermost first */
	spec_expr box[TMAP_MAX_RANK];
	int swizzle;    /* bytes: 0 (none), 32, 64, 128 */
	int interleave; /* bytes: 0 (none), 16, 32 */
	int l2promo;    /* bytes: 0 (none), 64, 128, 256 */
	int oob_nan;    /* out-of-bounds elements read as NaN (else zero) */
	int line, col;  /* of the name */
	int buf_col, box_col, swizzle_col, interleave_col;
} spec_tmap;

typedef struct spec_incdir {
	char *dir;       /* as written */
	int line, col;
} spec_incdir;

typedef struct spec {
	char *path;    /* as given, e.g. kernels_src/transpose.cu */
	char *src;     /* whole file */
	char *summary; /* text of the first comment line, for `ls` */
	int nvars, nbufs, nkernels, nincludes, nlinks, nincdirs;
	spec_var *vars;
	spec_buffer *bufs;
	spec_kernel *kernels;
	char **includes; /* "..." includes as written */
	char **links;    /* `//@ link` names */
	spec_incdir *incdirs; /* `//@ include` directories */
	int ntmaps;
	spec_tmap *tmaps;     /* `//@ tensormap` lines */
	int narch;            /* `//@ arch`: 0 when not given (native) */
	arch_target arch[TARGET_MAX];
	int arch_line;
	int ncheck_at;
	spec_var *check_at; /* `//@ check at`: params of the check pass */
	spec_launch base;
	/* `//@ streams EXPR split NAME`: streams.text NULL when not given */
	spec_expr streams;
	char *split;         /* the param cut in chunks */
	int split_line, split_col;
	/* the defines', params' and buffers' names, by hash (spec_name_find),
	 * while it holds them all */
	name_ix names;
} spec;

#endif
