/* result.h: what the GPU worker sends back for a plan: how the run went,
 * the checks, the samples, the counters and the GPU's conditions.
 *
 * It crosses the pipe byte for byte, as the plan does (plan.h): fixed-size
 * arrays, no pointers. */
#ifndef CUPLAY_RESULT_H
#define CUPLAY_RESULT_H

#include <stdint.h>
#include "kclock.h"
#include "nvml.h"
#include "plan.h"
#include "prof.h"

_Static_assert(PLAN_MAX_METRICS == PROF_MAX_METRICS, "a plan's metrics fit one profiler request");

typedef enum res_status {
	RES_OK = 0,
	RES_ERROR = 1,        /* the run failed; error says why; worker still usable */
	RES_FATAL = 2,        /* the context is broken (sticky error): worker must go */
	RES_INTERRUPTED = 3   /* Ctrl-C: partial samples may be present */
} res_status;

enum {
	TIMED_NOT = 0,     /* not compared: nothing checked, nothing timed, or no output hashable */
	TIMED_SAME = 1,    /* the same bits as the checked launch */
	TIMED_CLOSE = 2,   /* other bits, the same values within the check's tolerance */
	TIMED_DIFFERS = 3  /* other values: the kernel keeps state from launch to launch */
};

typedef struct check_result {
	char buf[64];
	int ok;
	double rel_err, tol;
	int64_t bad_index;  /* -1: none */
	double got, want;
	uint64_t nonfinite;
} check_result;

/* What the driver says of a kernel's function (for `info`): its
 * attributes and the occupancy API's figures for the planned launch. */
typedef struct func_info {
	int32_t known;          /* 0: no module loaded (error says why) */
	int32_t regs, static_smem, local_bytes, const_bytes, max_threads;
	int32_t occ_blocks;     /* cuOccupancyMaxActiveBlocksPerMultiprocessor; -1 unknown */
	int32_t suggest_block;  /* cuOccupancyMaxPotentialBlockSize; 0 unknown */
	int32_t suggest_grid;   /* ... its minimum grid for full occupancy */
} func_info;

/* Where the timing loop's time went, from the host's clock (and, with
 * CUPLAY_TRACE set, the GPU's time for one output reset and one L2 flush,
 * timed with events after the samples). For CUPLAY_TRACE's line. */
typedef struct loop_split {
	double loop_ms;      /* the sampling loop, from its first sample to its last (no warm-ups) */
	double kernel_ms;    /* the samples, summed */
	double issue_ms;     /* queuing resets, flushes and launches */
	double wait_ms;      /* waiting for the GPU */
	double records_ms;   /* fetching CUPTI's kernel records */
	double rule_ms;      /* the stopping rule */
	int32_t takes;       /* CUPTI record fetches */
	int32_t resets;      /* outputs reset before each sample */
	double reset_gpu_ms; /* one reset of those outputs on the GPU; -1 not timed */
	double flush_gpu_ms; /* one L2 flush on the GPU; -1 not timed */
} loop_split;

/* The host link's bandwidths (GB/s, one copy of 64 MiB, the median of 3),
 * measured once per worker where a plan asks (measure_link); 0 unknown. */
enum { LINK_H2D_PAGEABLE, LINK_H2D_PINNED, LINK_D2H_PAGEABLE, LINK_D2H_PINNED, LINK_N };

#define RES_MAX_SPANS 512

/* A sequence's time split by the kernel clock: the steps and the gaps
 * between them of the median sample (so they add up to it). */
typedef struct seq_split {
	int32_t nsteps;                 /* 0: not split (timed with events) */
	double step_ms[PLAN_MAX_STEPS];
	double gap_ms[PLAN_MAX_STEPS];  /* gap_ms[i]: step i's end to step i+1's start */
	double total_ms;                /* the median sample: steps and gaps */
} seq_split;

typedef struct seq_timing {
	seq_split stream;               /* the samples' steps and gaps */
	/* `timing graph on`: the sequence as one CUDA graph and its steps
	 * launched one by one, in turns, each between CUDA events */
	int32_t graph_n;                /* pairs of samples; 0 none */
	double graph_ms, graph_lo_ms, graph_hi_ms; /* the graph's median and its 95% interval */
	double streamed_ms;             /* the steps' median, launched one by one */
	char note[320];                 /* why the graph is not timed; else "" */
} seq_timing;

typedef struct result {
	res_status status;
	char error[512];      /* one line, for RES_ERROR / RES_FATAL */
	int nchecks;
	check_result checks[PLAN_MAX_CHECKS];
	/* the timed launches checked: one more launch after them, made as they
	 * were, on outputs reset to their initial contents (poison, unless
	 * declared), its outputs' hashes against the checked launch's (or, in a
	 * run timed without its check, the first launch's); where they differ,
	 * the values against the reference at the check's tolerance */
	int32_t timed_check;  /* TIMED_* */
	char timed_buf[64];   /* TIMED_DIFFERS: the output that differed */
	double timed_err;     /* its relative error */
	int64_t timed_index;  /* its first element found bad (scalars), or -1 */
	double timed_got, timed_want; /* that element's value and the value wanted */
	int32_t timed_unwritten; /* that element holds its initial contents (left unwritten) */
	double timed_ms;      /* the host time the check of the timed launches added: the copies and
	                         hashes kept for it, that launch, its comparison */
	/* plan.fresh_seed: the checks once more on inputs of that seed, after
	 * the timed launches, the module still loaded */
	int32_t fresh_done;   /* 1: they ran */
	int32_t fresh_nchecks;
	check_result fresh[PLAN_MAX_CHECKS];
	int nsamples;
	double samples_ms[RES_MAX_SAMPLES];
	double roof_gbps;     /* the device-to-device copy, measured once per worker */
	double link_gbps[LINK_N]; /* the host link, each way, pageable and pinned */
	double launch_ms;     /* host time of the whole request */
	double setup_ms;      /* module load, allocation, input init and upload */
	double check_ms;      /* the checked launch, download, reference, compare */
	double time_ms;       /* the timing loop (warm-up, flushes and samples) */
	double empty_ms;      /* an empty kernel's launch, timed the same way (batch or not) */
	int32_t clock;        /* timing_clock the samples were taken with */
	int32_t stop;         /* stop_why (stats.h): what ended the samples */
	double ci_lo_ms, ci_hi_ms; /* the median's 95% interval (stats.h); 0 below 6 samples */
	loop_split split;     /* where the timing loop's wall time went */
	char clock_note[256]; /* why events, when the kernel clock was asked for; else "" */
	prof_reply prof;      /* the counters, when the plan asked for metrics */
	/* the timeline of one more run after the samples (a run on host data,
	 * or a batch): its copies and kernels by stream */
	int32_t nspans, spans_lost;
	char tl_note[160];    /* why there is none, where one was to be had; else "" */
	tl_span spans[RES_MAX_SPANS];
	seq_timing seq;       /* a sequence's steps, gaps and graph time */
	nvml_cond cond;       /* clocks, temperature, throttling around the samples */
	func_info fn;         /* info_only plans */
	/* device printf (and assertion messages): what the first launch that
	 * printed wrote (or, after a failure, the end of what was written), and
	 * how much the other launches wrote */
	uint32_t printf_len;        /* bytes in printf_text */
	int32_t printf_cut;         /* printf_text is cut: the launch wrote more */
	int32_t printf_tail;        /* printf_text is the end of the output (a failed run) */
	int32_t printf_others;      /* launches after the one shown */
	uint64_t printf_more_bytes; /* what they wrote */
	uint64_t printf_more_lines;
	uint64_t printf_lines;      /* lines of the launch shown (of all the output, after a failure) */
	char printf_text[4096];
} result;

#endif
