/* measure.h: the record of one measurement (a kernel run with the values
 * in force) and how a table draws it. Every figure (GB/s, GFLOP/s, % of the
 * roof, the check's verdict) is derived here, once; run, sweep, compare,
 * expect, save, plot and the report read the record and never recompute. */
#ifndef CUPLAY_MEASURE_H
#define CUPLAY_MEASURE_H

#include "nvrtc.h"
#include "plan.h"
#include "report.h"
#include "result.h"
#include "stats.h"

typedef enum { MCHECK_OFF, MCHECK_NONE, MCHECK_OK, MCHECK_FAIL } mcheck;

typedef struct measurement {
	char *file, *kernel;
	char *values;        /* "N=8192 TILE_SIZE=32 PAD=0", file order */
	char *device;        /* the GPU's name; NULL when not run */
	char *command;       /* the command that made it, as typed; NULL unknown */
	int launched;        /* 0: compile-only (the facts below, no result) */
	int sm;              /* the architecture compiled for */
	double compile_ms;   /* this configuration's compile; 0 from the cache */
	kres res;            /* registers, shared memory, stack, spills (res.known) */
	char grid[48], block[48];
	uint64_t dyn_smem;
	mcheck check;
	double check_err;    /* the worst relative error of the checks */
	int timed, interrupted;
	stats st;            /* of the samples (ms): the median, its 95% interval, the spread */
	int stop;            /* stop_why: what ended the samples (STOP_NOT: not said, as for rounds pooled) */
	double *samples;     /* the samples, ms */
	int nsamples;
	int clock;           /* timing_clock of the samples */
	double bytes, flops; /* declared in the file, for this configuration; on host data,
	                        bytes are those copied over the bus */
	char link[24];       /* on host data, what was measured: "H2D+D2H pinned"; "" the kernel alone */
	double bus_h2d, bus_d2h; /* the bytes copied each way */
	double overlap;      /* in the run's timeline, the share of copy time under kernels; -1 none */
	double gbps, gflops; /* bytes and flops over the median; 0: not declared */
	int pipe;            /* the pipe its flops run on: a tensor precision (tensor.h's
	                        tensor_prec) where its code holds tensor-core instructions,
	                        else PIPE_FP32; -1 unknown */
	int packed_half;     /* on PIPE_FP32, arithmetic on packed halves (f16x2, bf16x2), whose
	                        ceiling is twice the FMA roof */
	double roof_gbps;    /* the device's measured memory roof (the best of the copy and the
	                        streaming kernels, else the copy); on host data, the link's:
	                        the bus bytes over the time of the copies at the link's
	                        measured speed, both ways at once; 0 unknown */
	double roof_frac;    /* gbps / roof_gbps; 0 unknown */
	int clock_offset_known; /* timed by the kernel clock on a device whose clock was checked */
	double clock_offset_us; /* what the check found: the kernel clock less the profiler's
	                           duration for a 4 us kernel (clockcal.h); not subtracted */
	int cond_known;      /* the GPU's conditions during the samples */
	unsigned sm_mhz;
	int temp_c;
	char throttle[128];
	/* hardware counters (`metrics`): figures by short name, then the raw
	 * metrics; 0 when none were read */
	int nmet;
	char **met_names;
	double *met_values;
	struct explain_out *why; /* `explain`'s diagnosis (owned), or NULL */
	/* a sequence: its steps (names, declared bytes), and its time split by
	 * the kernel clock, streamed and as a CUDA graph (res.seq) */
	int nsteps;
	char step_names[PLAN_MAX_STEPS][PLAN_NAME];
	double step_bytes[PLAN_MAX_STEPS];
	seq_timing seq;
	/* figures above a roof: the declared bytes or flops over the median
	 * give more than the measured memory roof (or the compute roof) by
	 * more than MEASURE_OVER_ROOF; said in the row and in the data */
	char over_roof[128];
	/* the timed launches checked (res.timed_check, TIMED_*): where the
	 * last of them computed other values than the checked launch, the
	 * check fails and this says why; else "" */
	int timed_check;
	double timed_ms;     /* the host time of that last launch and its comparison */
	char timed_bad[320];
} measurement;

#define MEASURE_OVER_ROOF 1.05

/* The record of a configuration compiled, not launched: the plan's launch
 * and the compile's resources (r may be NULL). */
void measure_init(measurement *m, const char *file, const plan *p, const char *vline, int check_on,
                  const kres *r);
/* The timed launches' flag of res onto m (a later round of a `compare`
 * that found what its first did not): the check FAIL, and why, once. */
void measure_timed_flag(measurement *m, const result *res);
/* The record of res (plan p, values vline); all strings copied. */
void measure_make(measurement *m, const char *file, const plan *p, const result *res, const char *vline,
                  int check_on);
/* The samples of m replaced by these (several rounds of one variant), and
 * every figure derived from them again. */
void measure_set_samples(measurement *m, const double *ms, int n);
/* The memory roof of m replaced (a better one measured), roof_frac again. */
void measure_set_roof(measurement *m, double roof_gbps);
/* The one memory roof every "% of roof" divides by: the device's measured
 * roof, what `roof` prints (device_roof_gbps; 0 not measured: the worker's
 * copy stays), for every record but one on host data (the link's). */
void measure_use_roof(measurement *m, double device_roof_gbps);
/* The compute roof (GFLOP/s) against which flops are flagged; 0 unknown. */
void measure_set_flops_roof(measurement *m, double roof_gflops);
/* "pass1 25.3 us, gap 1.2 us, pass2 3.6 us": a split sequence's parts, or
 * ms numbers for data (raw) */
void measure_steps_text(const measurement *m, const seq_split *sp, int raw, char *buf, size_t n);
void measure_free(measurement *m);
/* The figure a chart of this measurement shows, as the file declares it:
 * GFLOP/s where flops are declared, else GB/s where bytes are, else runs
 * per ms (longer is slower); its unit. */
double measure_figure(const measurement *m, const char **unit);
const char *measure_check_word(const measurement *m); /* ok, FAIL, no check, off */

/* The columns of a measurement in a table, after the caller's first ones */
enum { M_KERNEL, M_VALUES, M_CHECK, M_ERR, M_MEDIAN, M_CI, M_RANGE, M_MIN, M_MAX, M_NOISE, M_SAMPLES, M_GBPS,
       M_ROOF, M_LINK, M_OVERLAP, M_GFLOPS, M_SM_MHZ, M_TEMP, M_THROTTLE, M_CLOCK, M_REGS, M_SMEM, M_COMPILE, M_DEVICE,
       M_CI_LO, M_CI_HI, M_STOP, M_STEPS, M_STEPS_MS, M_GRAPH, M_STREAMED, M_OVER, M_TIMED, M_CLOCK_OFFSET, M_FILE,
       M_N };

/* The table of runs: `first` columns of the caller's (e.g. a sweep's
 * axes), the record's M_N, then `last` of the caller's (a verdict); head
 * and align hold the caller's titles and alignments, first then last. The
 * caller fills its own columns of a row; measure_row the record's. mask:
 * time-derived figures shown as <t> (golden tests). */
void measure_table_init(table *t, int first, int last, const char *const *head, const char *align);
void measure_row(table *t, int row, int first, const measurement *m, int mask);

#endif
