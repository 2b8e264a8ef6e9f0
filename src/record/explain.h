/* explain.h: what limits a kernel, from its counters and its timing. Pure:
 * no CUDA, no worker; `explain` (cmd/diagnose.c) gathers the figures, this
 * module reads them as Nsight Compute's Speed-of-Light section and its rules
 * do, and makes the record.
 *
 *   the speed of light   DRAM, L2, L1/shared and SM throughput, % of peak
 *   the limiter          the highest of the four
 *   the verdict          launch-bound (within 2x of an empty launch), else
 *                        memory- or compute-bound (the limiter at or above
 *                        EXPLAIN_BUSY_PCT), else latency-bound
 *   the pipe             the one its flops run on: the tensor cores of one
 *                        precision where its code holds tensor-core
 *                        instructions (wmma, mma.sync, wgmma), else the
 *                        FP32 FMA; the tensor pipe's utilisation
 *   the headroom         the median against the time the declared bytes
 *                        (flops) take at the measured memory roof (the
 *                        roof of the kernel's pipe: FMA, or the tensor
 *                        roof of its precision)
 *   the rules            uncoalesced, bank_conflicts, low_l1_hit,
 *                        occupancy, divergence, atomics; for tensor-core
 *                        kernels no_wgmma, ldmatrix_conflicts,
 *                        loads_mma_turns, accumulator_spills; local_memory
 *                        (sectors read from local memory): each with
 *                        its evidence and the change that usually fixes it
 *
 * Without counters it says what timing alone supports (the declared bytes
 * over the median against the memory roof; launch-bound or not) and which
 * part needs counters. */
#ifndef CUPLAY_EXPLAIN_H
#define CUPLAY_EXPLAIN_H

#include "report.h"

/* A unit busier than this (% of its peak) bounds the kernel: Nsight
 * Compute's SOL rule calls 60% high throughput. */
#define EXPLAIN_BUSY_PCT 60.0
#define EXPLAIN_SOL_MAX 101.0 /* a share of peak above this is not read (unknown) */
/* A kernel within this factor of an empty launch measures the launch. */
#define EXPLAIN_LAUNCH_FACTOR 2.0
/* At most this much above the roof's time is "at the roof". */
#define EXPLAIN_AT_ROOF 1.15
#define EXPLAIN_MAX_RULES 10
/* Memory stalls at least this share (%) of a tensor kernel's stall reasons,
 * with its tensor pipe under EXPLAIN_BUSY_PCT: loads and MMAs take turns. */
#define EXPLAIN_LOAD_STALL_PCT 50.0

/* The stall reasons read (warps stalled per issue, by reason); the first
 * EXPLAIN_MEM_STALLS wait on memory. */
typedef enum { STALL_LONG_SCOREBOARD, STALL_BARRIER, STALL_LG_THROTTLE, STALL_MIO_THROTTLE,
	       STALL_SHORT_SCOREBOARD, STALL_MATH_PIPE, STALL_WAIT, EXPLAIN_NSTALLS } explain_stall;
#define EXPLAIN_MEM_STALLS 5

typedef enum { EXPLAIN_DRAM, EXPLAIN_L2, EXPLAIN_L1, EXPLAIN_SM, EXPLAIN_NUNITS } explain_unit;

typedef enum {
	BOUND_UNKNOWN = 0, /* without counters, and timing does not tell */
	BOUND_MEMORY,
	BOUND_COMPUTE,
	BOUND_LATENCY,
	BOUND_LAUNCH
} explain_bound;

/* The figures a diagnosis reads; NaN where not known (a counter not read,
 * a roof not measured). */
typedef struct explain_in {
	/* timing and the file's declarations */
	double median_ms;       /* the timed median */
	double empty_ms;        /* an empty kernel's launch, timed the same way */
	double bytes, flops;    /* declared (//@ bytes, //@ flops); 0: none */
	double roof_gbps;       /* the measured memory roof (the best; see `roof`) */
	double roof_gflops;     /* the measured FP32 FMA roof */
	double threads, blocks; /* of the launch */
	/* counters: counters = 0 when none were read */
	int counters;
	double sol[EXPLAIN_NUNITS]; /* % of peak sustained, elapsed (L1: active) */
	double dram_bytes;          /* read + written */
	double ld_sectors_per_req, st_sectors_per_req;
	int ld_width, st_width;     /* the widest global load / store per thread in the
	                               kernel, bytes (its PTX); 0 unknown */
	double bank_ld, bank_st;    /* shared-memory bank conflicts: wavefronts beyond the
	                               fewest the access width needs */
	double shared_ld, shared_st;/* shared-memory warp instructions */
	int shared_ld_width, shared_st_width; /* the widest shared load / store per
	                               thread, bytes (its PTX); 0 unknown */
	double ld_sectors;          /* global load sectors (32 B) the SMs asked for */
	double l1_hit, l2_hit;      /* % */
	double occupancy;           /* achieved, % */
	double atomics;             /* global atomic and reduction warp requests */
	double threads_per_inst;    /* active threads per warp instruction (32: none idle) */
	/* the launch's theoretical occupancy (0..1, NaN unknown) and what
	 * limits it: "registers", "shared memory", "block size", "blocks per
	 * SM", or NULL */
	double occ_theory;
	const char *occ_limiter;
	/* the pipe: the kernel's code and the roofs */
	int pipe;               /* tensor.h's tensor_prec, PIPE_FP32 (no tensor instruction), -1 unknown */
	int tensor_kind;        /* tensor_kind of its tensor instructions */
	char tensor_sass[8];    /* the SASS they became ("HMMA", "HGMMA"); "" unknown */
	int sm;                 /* the architecture compiled for; 0 unknown */
	double pipe_roof;       /* the measured roof of that pipe, GFLOP/s (FP32: roof_gflops) */
	double pipe_datasheet;  /* the datasheet's figure for it */
	double mma_roof, wgmma_roof; /* its precision's roof through mma.sync and wgmma */
	int ldmatrix;           /* its PTX loads fragments with ldmatrix */
	int async_copy;         /* its PTX copies asynchronously (cp.async, cp.async.bulk: TMA) */
	double spill_bytes;     /* bytes a thread spills to local memory and back (ptxas) */
	double local_sectors;   /* counters: sectors loaded from local memory */
	double tensor_active;   /* counters: % of cycles the tensor pipe was busy */
	double tensor_inst;     /* counters: warp instructions on the tensor pipe */
	double stall[EXPLAIN_NSTALLS]; /* counters: warps stalled per issue, by reason */
} explain_in;

/* NaN in every figure, counters 0, the pipe unknown. */
void explain_in_init(explain_in *in);

typedef struct explain_rule {
	char name[24];          /* uncoalesced, bank_conflicts, ... (explain_rule_names) */
	double evidence;        /* the figure that fired it */
	char unit[24];          /* its unit for csv/json: "sectors/request", "way", "%" */
	char text[256];         /* what the figure says */
	char fix[200];          /* the change that usually fixes it */
} explain_rule;

typedef struct explain_out {
	int counters;
	double sol[EXPLAIN_NUNITS];
	int limiter;            /* explain_unit, or -1 unknown */
	explain_bound bound;
	double roof_frac;       /* the declared traffic's GB/s over the memory roof; NaN */
	double flop_frac;       /* the declared flops' GFLOP/s over the FMA roof; NaN */
	double headroom;        /* the median over the time at the roof; NaN unknown */
	const char *headroom_roof; /* "memory", "FP32", a tensor precision ("FP16"), or NULL */
	int pipe;               /* as in explain_in */
	double tensor_active;   /* % (NaN unknown) */
	char pipe_text[200];    /* the pipe in words; "" unknown */
	char verdict[200];      /* the verdict in words */
	char headroom_text[160];
	char needs[240];        /* without counters: what needs them; "" with them */
	int nrules;
	explain_rule rules[EXPLAIN_MAX_RULES];
} explain_out;

/* The diagnosis of in. */
void explain_compute(const explain_in *in, explain_out *out);

const char *explain_unit_name(int u);     /* dram, l2, l1, sm; "-" */
const char *explain_bound_name(explain_bound b); /* memory, compute, latency, launch, unknown */
/* The names `expect K bound|limiter|rule` take, NULL-terminated. */
const char *const *explain_bound_names(void);
const char *const *explain_unit_names(void);
const char *const *explain_rule_names(void);
/* 1 when the rule named fired. */
int explain_has_rule(const explain_out *o, const char *name);

/* The record of one kernel's diagnosis. human: rows for people (bars of
 * the speed of light, the verdict, the headroom, the rules and their
 * fixes), bars drawn with Unicode blocks when unicode is set, else '#'.
 * Otherwise one row per figure: kernel, part (sol, verdict, headroom,
 * rule, needs), name, value, unit, text, fix. mask: "<m>" for every
 * measured figure (golden tests). */
void explain_table(table *t, const char *kernel, const explain_out *o, int human, int unicode, int mask);

#endif
