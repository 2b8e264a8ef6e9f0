/* plan_types.h: one launch, fully resolved, as the worker receives it, and the
 * device facts the worker reports (the result it sends back: result.h).
 *
 * These structs cross the pipe to the worker byte for byte (the worker is
 * this same binary), so they hold fixed-size arrays and no pointers. */
#ifndef CUPLAY_PLAN_TYPES_H
#define CUPLAY_PLAN_TYPES_H

#include <stdint.h>
#include "types.h"
#include "spec_types.h"
#include "expr.h"

#define PLAN_MAX_BUFS 16
#define PLAN_MAX_ARGS 32
#define PLAN_MAX_CHECKS SPEC_MAX_CHECKS
#define PLAN_NAME 128
#define PLAN_LOWERED 512
#define RES_MAX_SAMPLES 2048
#define PLAN_MAX_METRICS 48  /* = PROF_MAX_METRICS (prof.h) */
#define PLAN_METRIC_NAME 128 /* = METRICS_NAME (metrics.h) */
#define PLAN_MAX_LIST 8192   /* the values of every `//@ global ... {...}` of a plan */
#define PLAN_MAX_CHUNKS 64   /* `//@ streams`: chunks (and streams) of one run */
#define PLAN_MAX_STEPS SPEC_MAX_STEPS /* a sequence's launches */
#define PLAN_MAX_TMAPS 8     /* `//@ tensormap` lines of a file */

/* the seed of a plan's random inputs, the same on every run (a run may be
 * given another: `cuplay --verify`'s fresh inputs) */
#define PLAN_SEED_DEFAULT (0x5eed0c0ffeeull ^ 42)

typedef struct devinfo {
	int ordinal, count;           /* this device, devices present */
	char name[128];
	int cc_major, cc_minor;
	int sm_count, warp_size;
	int64_t l2_bytes;
	int max_threads_per_block;
	int max_block[3];
	int64_t max_grid[3];
	int max_smem_block;           /* without opt-in (48 KiB) */
	int max_smem_optin;           /* with cuFuncSetAttribute */
	int max_smem_sm;
	int regs_per_block, regs_per_sm;
	int max_threads_sm, max_blocks_sm;
	uint64_t total_mem, free_mem;
	int driver_version;           /* e.g. 13000 */
	int clock_khz, mem_clock_khz, bus_width_bits;
	char pci_bus_id[16];          /* "0000:1b:00.0", for NVML; "" unknown */
} devinfo;

typedef struct plan_buf {
	char name[64];
	dtype type;
	uint64_t count;
	init_kind init;
	double value;  /* for INIT_VALUE */
	int output;
	int managed;
	int32_t prefetch;          /* managed: prefetched to the GPU before each launch (else to the host) */
	int32_t global;            /* a variable of the module (`//@ global`), not an allocation */
	int32_t is_const;          /* ... in constant memory (__constant__) */
	uint32_t list_off, list_n; /* INIT_LIST: plan.list[list_off .. +list_n) */
	char sym[PLAN_NAME];       /* global: its symbol in the cubin (mangled in a namespace) */
	int32_t unread;            /* an output the kernel never reads (its PTX says): timing does not reset it */
	int32_t host;              /* BUF_HOST_* (spec.h): the data lives on the host; a run copies it */
	uint64_t per;              /* sliced by `//@ streams`: elements per unit of the split param; 0 whole */
	int32_t copy_in, copy_out; /* a host buffer the kernel takes: copied in before it, out after it (plan_bus) */
	int32_t scratch;           /* an intermediate of a sequence's steps (an output no check names) */
	int32_t written;           /* an input a kernel of the plan may write (its PTX says): restored before the next run */
} plan_buf;

/* One chunk of a run on host data: units [start, start + len) of the split
 * param, its own launch geometry (the grid evaluated with the param = len). */
typedef struct plan_chunk {
	uint64_t start, len;
	uint32_t grid[3];
	uint32_t smem;
} plan_chunk;

typedef struct plan_arg {
	arg_kind kind;
	int buf;      /* ARG_PTR: index in plan.bufs */
	int64_t i;    /* integer kinds */
	double f;     /* float kinds */
} plan_arg;

/* A `//@ tensormap`: what cuTensorMapEncodeTiled takes, but the buffer's
 * address (the worker's). Dimensions innermost first, as the driver has
 * them; the enums are the driver's values (CUtensorMap*: cudrv.h). */
typedef struct plan_tmap {
	int32_t buf, rank;
	int32_t dtype;             /* CUtensorMapDataType */
	int32_t interleave, swizzle, l2promo, oobfill;
	uint64_t dims[5];
	uint64_t strides[4];       /* bytes, of dimensions 1 .. rank-1 */
	uint32_t box[5], estrides[5];
	char where[256];           /* "path:line:col: tensormap 'NAME'", for the worker's messages */
} plan_tmap;

typedef struct plan_launch {
	char name[PLAN_NAME];
	char lowered[PLAN_LOWERED]; /* mangled name in the cubin */
	uint32_t grid[3], block[3];
	uint32_t smem;                /* dynamic shared memory bytes */
	uint32_t cluster[3];          /* thread block cluster shape; {0}: none */
	int nargs;
	plan_arg args[PLAN_MAX_ARGS];
} plan_launch;

typedef enum check_kind { CHECK_REF = 1, CHECK_KERNEL = 2 } check_kind;

typedef struct plan_check {
	check_kind kind;
	int out;                     /* buffer index */
	char ref[64];                /* CHECK_REF: reference function */
	int nargs;
	plan_arg args[SPEC_MAX_CHECK_ARGS]; /* CHECK_REF: buffers or scalars */
	plan_launch other;           /* CHECK_KERNEL: the variant to compare to */
	double tol;                  /* resolved, never 0 */
	int line;                    /* the //@ check line, for messages */
} plan_check;

/* What times a sample (timing_opts.clock, result.clock). */
typedef enum timing_clock {
	CLOCK_KERNEL = 0, /* the GPU's timestamps at kernel start and end (CUPTI), where they can be had */
	CLOCK_EVENTS = 1  /* a CUDA event pair around the launch(es) */
} timing_clock;

typedef struct timing_opts {
	int warmup;          /* launches before timing */
	int min_reps;        /* at least this many timed samples (>= 1) */
	int max_reps;        /* never more (<= RES_MAX_SAMPLES) */
	int rule;            /* stop_kind (stats.h): RULE_INTERVAL or RULE_NOISE */
	double target;       /* RULE_INTERVAL: stop once the median's interval is within +-target of it */
	double noise_target; /* RULE_NOISE: stop once relative noise is below, e.g. 0.005 */
	double min_time_s;   /* ... and at least this much kernel time sampled */
	double max_time_s;   /* stop at this much total kernel time regardless */
	double max_wall_s;   /* ... or this much wall time in the loop (0: no cap;
	                        shorter for short kernels: timing_wall_cap);
	                        flushes and syncs make short kernels' loops longer */
	int flush;           /* write an L2-sized scratch buffer before each launch */
	int do_check, do_time;
	int batch;           /* > 1: each sample times this many back-to-back launches */
	int clock;           /* timing_clock asked for; batches and device launches use events */
	int graph;           /* a sequence is also timed as one CUDA graph (`timing graph on`) */
	int checked_apart;   /* timed without its check, which ran in a request of its own
	                        (`//@ check at`): the last timed launch is compared with the first */
} timing_opts;

/* The wall time a timing loop may take, for samples of median_s seconds
 * of kernel: max_wall_s for a kernel of 10 ms or more, else 100 samples'
 * worth and at least TIMING_SHORT_WALL_S (never more than max_wall_s);
 * the shorter cap counts once min_time_s of kernel time is sampled, so a
 * `timing min` asked for is honoured.
 * A short kernel's samples cost more than its own time (the flush, the
 * syncs), and 100 ms of them give its median to a fraction of a percent;
 * past that, the interval narrows slowly and the student waits. */
#define TIMING_SHORT_WALL_S 0.1

typedef struct plan {
	int nbufs;
	plan_buf bufs[PLAN_MAX_BUFS];
	plan_launch launch;
	int nchecks;
	plan_check checks[PLAN_MAX_CHECKS];
	timing_opts t;
	uint64_t seed;
	double bytes, flops;      /* per launch, 0 if not declared */
	/* hardware counters (raw ncu names) collected in one extra launch
	 * after the timed samples; 0: none */
	int32_t nmetrics;
	char metrics[PLAN_MAX_METRICS][PLAN_METRIC_NAME];
	int32_t info_only;        /* `info`: load the module, query the function, launch nothing */
	int32_t device_launches;  /* linked with cudadevrt: the kernel may launch kernels */
	uint64_t cubin_len;       /* cubin bytes follow the struct on the wire */
	/* host buffers: a run is a pipeline of nchunks chunks, each on its own
	 * stream: copy in, kernel on its slice, copy out. 0: no host buffer, a
	 * run is the launch alone */
	int32_t nchunks;
	uint32_t split_args;      /* bit i: launch argument i is the split param (a chunk's len) */
	plan_chunk chunks[PLAN_MAX_CHUNKS];
	double bus_h2d, bus_d2h;  /* bytes a run copies over the bus, each way */
	int32_t measure_link;     /* the worker measures the host link's bandwidths (once), for roofs */
	/* a sequence (`//@ sequence`): its launches in order, each with the
	 * bytes and flops its own lines declare; `launch` is the first step's,
	 * named after the sequence. 0: one kernel */
	int32_t nsteps;
	plan_launch steps[PLAN_MAX_STEPS];
	double step_bytes[PLAN_MAX_STEPS], step_flops[PLAN_MAX_STEPS];
	int32_t ntmaps;           /* `//@ tensormap`: an ARG_TMAP argument's buf is its index */
	plan_tmap tmaps[PLAN_MAX_TMAPS];
	uint32_t nlist;           /* the values of globals given as lists */
	double list[PLAN_MAX_LIST];
	/* `lines`: after the check, the per-line run (per-instruction counters,
	 * then PC samples, each its own launch) in place of timing; its records
	 * follow the result on the wire. 0: none */
	int32_t lines;
	int32_t lines_period;     /* PC sampling's period, 2^N cycles; 0: the default */
	/* `cuplay --verify`: after the timed launches, the checks once more on
	 * inputs of this seed, in the same loaded module (a kernel that keeps
	 * its answer across launches copies a stale one); 0: none */
	uint64_t fresh_seed;
} plan;

#endif
