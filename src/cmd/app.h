/* app.h: the state of one cuplay session, shared by the command handlers,
 * the REPL and main: options, the current kernel file, the values set, the
 * compile cache, the worker and the results so far. */
#ifndef CUPLAY_APP_H
#define CUPLAY_APP_H

#include <signal.h>
#include "arch.h"
#include "ccache.h"
#include "chart.h"
#include "clockcal.h"
#include "expr.h"
#include "plan.h"
#include "measure.h"
#include "report.h"
#include "spec.h"
#include "stats.h"
#include "tensor.h"
#include "util.h"
#include "client.h"

/* A finished run, addressable later by kernel and values. */
/* One run kept for `expect`, `compare` and the report: a measurement. */
typedef measurement run_record;

/* The compile of a kernel `info` showed last, for "what changed". */
typedef struct kinfo_seen {
	char *path, *kernel;
	kres res;
	plan_launch launch;
} kinfo_seen;

struct app;
/* A run's context (run.h's steps make and use it): the values, the
 * compiled unit, the device. */
typedef struct runctx {
	symtab vals;
	char *vline;       /* "N=8192 PAD=1 ..." */
	const cunit *u;
	cc_source from;
	double compile_ms;
	devinfo dev;
	int sm, gpu;       /* the compute capability compiled for (90) */
	char arch[16];     /* the target compiled for: "sm_90", "sm_90a" */
	const arch_target *target; /* the file's `arch` line chosen; NULL: none */
	int each;          /* each kernel of the run compiled on its own (run_prepare_each) */
} runctx;

/* The least kernel time sampled before a rule may stop, by rule (`timing
 * rule R` sets it unless `min` comes with it): 2 ms, a few hundred samples
 * of a short kernel, for the interval; the noise rule's 20 ms as before. */
#define TIMING_MIN_INTERVAL_S 0.002
#define TIMING_MIN_NOISE_S 0.02

/* The ceilings of one device, in GB/s and GFLOP/s: the device-to-device
 * copy (the worker's), cuplay's streaming kernels (16-byte loads and
 * stores: read only, write only, copy), the best of those four (what every
 * "% of roof" divides by), the datasheet's peak from the memory clock and
 * bus width (0: unknown), and FP32 fused multiply-adds. */
typedef struct roofs {
	int device;           /* the device measured + 1; 0: not measured */
	double copy, read, write, stream, best, peak;
	double gflops;
} roofs;

/* The tensor cores' ceilings of one device by precision (tensor.h's
 * tensor_prec), in GFLOP/s (GOP/s for INT8), measured by cuplay's own
 * register-only kernels: through mma.sync, through wgmma (sm_90 only), and
 * the roof, the better of the two; 0 where not measured (a precision the
 * device lacks). Kept apart from the memory roofs: measured only where a
 * figure needs them (`roof`, explain, roofline, a kernel on the tensor
 * cores), since their compile takes seconds. */
typedef struct troofs {
	int device;           /* the device measured + 1; 0: not measured */
	double mma[TP_N], wgmma[TP_N], roof[TP_N];
} troofs;

/* The last timed run's timeline (`timeline`): its copies and kernels. */
typedef struct timeline_kept {
	tl_span *spans;
	int n, lost;
	char *title;          /* "KERNEL VALUES" of that run; NULL before any */
	char *why;            /* why it has none, or NULL */
	int unavailable;      /* ... because CUPTI could not record it (not the kind of run) */
	int plot;             /* `plot` writes the timeline: it was shown after the last chart */
} timeline_kept;

/* Where a front end other than the terminal takes what the commands show
 * (front/serve.c's, for `cuplay --serve`): tables, figures (a chart's text
 * and its SVG), errors and progress, each as it comes; NULL members are
 * shown as at the terminal. The app has none (NULL) unless one is set. */
typedef struct app_display {
	void *ctx;
	void (*show_table)(void *ctx, const table *t, int indent);
	void (*show_figure)(void *ctx, const char *text, const char *svg);
	void (*show_error)(void *ctx, const char *line);   /* "file:line: msg", no newline */
	void (*show_progress)(void *ctx, const char *text);
	void (*show_code)(void *ctx, const char *text, const char *lang); /* ptx, sass */
} app_display;

/* `record FILE`: the commands from now on appended to a session file. */
typedef struct recording_file {
	int fd;               /* -1 when off */
	char *path;
	int depth;            /* the source depth `record` was given at */
} recording_file;

/* The options of this invocation: set at start-up (main.c) and by `set`
 * and `timing`; read everywhere else. */
typedef struct app_opts {
	int no_gpu, mask_times, interactive, color, step, bail;
	int tty;              /* stdout is a terminal: Unicode bars, progress lines */
	int arch_sm;          /* --arch sm_XY; 0: the device's, or 90 without one */
	char arch_suffix;     /* --arch sm_XYa or sm_XYf: 'a' or 'f' (target.h); else 0 */
	timing_opts topt;
	double timeout_s;
	uint64_t seed;        /* the random inputs' seed (--verify's fresh inputs); 0: the plan's own */
	const char *exe;      /* this binary, for the worker */
} app_opts;

/* The kernel file loaded (files.c), and the values set for it and for the
 * files loaded before it. */
typedef struct app_file {
	char *path;
	spec *sp;
	char *use_failed;     /* no file loaded: the name of the `use` that failed */
	symtab settings;      /* values given with `set`, for the current file */
	struct saved_settings { char *path; symtab set; } *saved; /* other files' */
	int nsaved;
} app_file;

/* The kernels of the last `run` and their file: the next compile started
 * ahead of a run is of those (prefetch.h). */
typedef struct app_prefetch_memo {
	char *path;
	char **names;
	int n;
} app_prefetch_memo;

/* What the commands produced: every run's record, the commands as typed,
 * the last results table and chart (for `report`, `save`, `plot`, `edit`). */
typedef struct app_results {
	run_record *runs;
	int nruns, capruns;
	char **history;       /* the commands run, as typed, for the report */
	int nhistory, caphistory;
	char *last_run;       /* the last `run` line, for edit/watch */
	table last;           /* the last result table, for `save` */
	int have_last;
	chart last_chart;     /* the last comparison or sweep, for `plot` */
	int have_chart;
} app_results;

/* The session's one callback. Measuring a device's roofs runs cuplay's
 * own kernels through the run loop (cmd/cmd_roof, cmd/troof over
 * cmd/builtin and cmd/run), and the run loop needs the roofs before its
 * first measurement (app_roofs_once, app_troofs_once, here): a call from
 * the session down to the commands and back that no order of modules
 * allows. The front end installs cmd/cmd_roof.c's roof_measure_now
 * (front/cmds.c, command_init); tests/layers.sh lists it. tensor
 * ROOFS_MEMORY: the memory and FP32 roofs (app.roof) and the kernel
 * clock's check, ROOFS_TENSOR: the tensor roofs (app.troof); 0, or -1 with
 * the error said. ROOFS_CACHED: the first two from the cache alone,
 * measuring nothing: 0 when both were there, 1 when not. */
typedef int (*roofs_measure_fn)(struct app *a, int tensor);
#define ROOFS_MEMORY 0
#define ROOFS_TENSOR 1
#define ROOFS_CACHED 2

typedef struct app {
	app_opts opt;
	int device;           /* --device N, or `device N`, else the GPU the first worker claimed */
	int device_set;       /* device is the user's or claimed: a worker started again takes it; 0:
	                         the first worker claims the least claimed GPU of device 0's kind */
	out_format format;    /* set with app_format */
	doc out;              /* what this invocation prints: one document */

	app_file file;        /* the current kernel file */

	/* machinery */
	ccache cache;
	app_prefetch_memo last_run;
	wclient worker;
	wclient *more;        /* `sweep ... on all`: a worker for each other GPU */
	int nmore;
	int gpu;              /* -1: not tried yet, 0: compile-only, 1: worker up */
	roofs roof;           /* the device's ceilings, measured once per device */
	roofs_measure_fn roofs_measure; /* measures them quietly (the callback above) */
	int roof_busy;        /* measuring them now */
	int roof_later;       /* they wait for the prompt (app_roofs_later): the first record they
	                         concern + 1; 0: none waits */
	int roof_yield;       /* measuring them at the prompt: a line typed stops them */
	int roof_gave_way;    /* they stopped for it: the next prompt goes on with them */
	troofs troof;         /* the tensor roofs, measured once per device when needed */
	clock_cal clk;        /* the kernel clock against the profiler's duration (clockcheck.c) */
	int clk_device;       /* the device clk is for + 1; 0: not looked for yet */
	char *clk_why;        /* why it could not be checked; NULL */
	double link_gbps[LINK_N]; /* the host link, each way, pageable and pinned (`roof`); 0 unknown */
	int claim_unsaid;     /* the GPU the worker claimed, not said yet (app_gpu_ready took its HELLO) */
	int quiet_claim;      /* claimed_note keeps it for later */
	int notice_said;
	char *gpu_why;        /* why there is no GPU ("no CUDA driver found"), once known */

	/* where input comes from, for messages */
	const char *in_file;
	int in_line;
	int nerrors;
	int source_depth;

	app_results results;
	timeline_kept timeline; /* the last timed run's (`timeline`) */
	recording_file recording; /* `record FILE` */
	const app_display *display; /* a front end's displays (app_display), or NULL */
	/* the looking commands (cmd_info.c, cmd_metrics.c, ...) */
	int metrics_on;       /* `metrics on`: counters after every run */
	char *prof_why;       /* why counters were unavailable the last time, or NULL */
	int expect_held, expect_failed, expect_skipped; /* in this invocation */
	char *clock_why;      /* why the last run was timed with events, as said, or NULL */
	kinfo_seen *kseen;    /* `info`: the last compile of each kernel looked at */
	sbuf state_said;      /* "\nFILE\tKERNEL\n"...: kernels whose state kept across launches was said */
	int nkseen;
	const char *cmd_text; /* the command being run, as typed */
	char *board_url;      /* `board URL`: the class board `submit` sends to; NULL: CUPLAY_BOARD */
	char *board_token;    /* `token T`: the student's token; NULL: CUPLAY_TOKEN */
	int quit;
} app;

extern volatile sig_atomic_t g_interrupt;

void app_init(app *a, const char *exe);
/* Lets a worker's notes during a run reach the user (app_note). */
void app_worker_notes(app *a, wclient *w);
void app_free(app *a);

/* Prints "file:line: msg" (in a session), or "error: msg" / a message that
 * already names its location; counts the error; returns -1. */
int app_error(app *a, const char *fmt, ...) PRINTF_LIKE(2, 3);
int app_error_msg(app *a, const char *msg); /* same, for a ready message */
/* Prints a notice (no error): on stdout under the table format, on stderr
 * when stdout carries data (csv, json, jsonl, markdown). */
void app_note(app *a, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* Where text that is not data goes: stdout for tables, else stderr. */
FILE *app_textf(app *a);
/* Prints t as part of this invocation's document. */
void app_table(app *a, const table *t, int indent);
/* A figure: its text (as the terminal shows it) and its SVG (NULL:
 * none), to the display where one is set, else the text on stdout. */
void app_figure(app *a, const char *text, const char *svg);
/* The chart c as a figure: its bars as text and its SVG. */
void app_chart_show(app *a, const chart *c);
/* A progress line of long work ("sweep 3/9: N=1024"): on stderr over the
 * last one at an interactive prompt, to the display where one is set,
 * else nowhere. */
void app_progress(app *a, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* Changes the format: the document so far is ended first. */
void app_format(app *a, out_format f);

/* The commands' work, each module with its header: files.h (use, set,
 * show, ls), run.h (the run and its steps), compare.h (sweep, compare,
 * save, plot), labreport.h (report), say.h (say's placeholders). */

/* A command as typed, kept for the report (the most recent, 4,096 at most). */
void app_results_add_history(app_results *r, const char *line);
/* Keeps t (moved) as the last results table, for `save`. */
void app_results_keep_table(app_results *r, table *t);
/* Every record, the history, the last table and chart freed; r emptied. */
void app_results_free(app_results *r);

/* Loading another file: the values set for the current one put aside
 * under its path, and those put aside for `path` taken back (none: no
 * values). Nothing changes when path is the current file's. */
void app_file_switch(app_file *f, const char *path);
/* The file, its values and those put aside, freed; f emptied. */
void app_file_free(app_file *f);

/* app.c, for files.c and run.c: NVRTC's warm-up thread started (the
 * worker too, when a GPU may be there) and joined; the device a file is
 * planned for (the GPU's, else the --arch one's); a list freed. */
void app_prestart(app *a);
void app_warm_join(void);
void app_current_dev(app *a, devinfo *dev);
void app_free_list(char **v, int n);

/* Keeps c (moved) as the last chart, for `plot` (the timeline is no longer
 * what `plot` draws). */
void app_keep_chart(app *a, chart *c);

/* The roofs of the current device measured once, before its first
 * measurement (through roofs_measure): 0 done or nothing to do (no GPU), -1
 * when the GPU worker cannot start (said). */
int app_roofs_once(app *a);
/* At the prompt, the worker started in the background: where its HELLO has come, taken
 * now, without waiting and without a word (the GPU claimed is said by the
 * first command that uses it): 1 when the GPU is known (a->gpu 1), else 0.
 * A worker that failed to start is started again, and its error said, by
 * the first run. */
int app_gpu_ready(app *a);
/* At the prompt, on a device whose roofs and kernel clock's check are in
 * no cache: 1 when they wait until after the result (the first result
 * first): the run goes on without them, and app_roofs_after measures them
 * before the next prompt; 0 when they are known now or app_roofs_once is
 * to measure them. Replays never wait: their output keeps its order. */
int app_roofs_later(app *a);
/* Before the prompt: the roofs and the clock's check that waited, measured
 * while the user reads (not while a compile runs in the background for the
 * next run: at a later prompt); a line typed meanwhile stops them between two
 * measurements (app_gave_way) and the next prompt goes on with them. Once
 * known, the waiting records get their roof fraction, a note each. */
void app_roofs_after(app *a);
/* While they are measured at the prompt: 1 when a line has been typed (the
 * measurement gives way to it: a->roof_gave_way set), else 0. */
int app_gave_way(app *a);
/* The tensor roofs of the current device, as app_roofs_once (through
 * roofs_measure): 0 done or nothing to do, -1 no GPU. */
int app_troofs_once(app *a);
/* The roof of pipe p (tensor_prec, or PIPE_FP32 for the FMA roof) of the
 * current device in GFLOP/s, measured first where it is not; 0 unknown. */
double app_pipe_roof(app *a, int p);

/* m's "% of roof" against the device's measured memory roof (what `roof`
 * prints), where it is measured: every record that says a roof fraction
 * (run, sweep, compare, explain) is given it here. */
void app_roof_record(app *a, measurement *m);
/* Shared by run.c and compare.c: the record of res, kept in a->results.runs (the
 * pointer holds until the next one is added). */
const measurement *add_record(app *a, const char *values, const result *res, const plan *p);
/* Keeps m (moved) in a->results.runs, as add_record. */
const measurement *keep_record(app *a, measurement *m);
/* 1 when a kernel file's text may hold tensor-core code (wmma, mma.sync,
 * wgmma, <mma.h>): its runs want the tensor roofs measured first. */
int app_src_tensor(const char *src);
/* The pipe a kernel runs its flops on (measure.h's pipe: -1 unknown), and
 * whether its CUDA-core arithmetic is on packed halves. */
typedef struct kpipe {
	int pipe, packed_half;
} kpipe;
/* The pipe of kernel `name` of unit u, from its PTX. */
kpipe app_kernel_pipe(const cunit *u, const char *name);
/* m's pipe set to kp, and m's over_roof flag where its declared flops give
 * more than that pipe's roof (app_flag_flops). */
void app_set_pipe(const app *a, measurement *m, kpipe kp);
/* m's over_roof flag where its declared flops give more than the roof of
 * its pipe: the tensor roof of its precision, or the FMA roof (twice it
 * for packed halves). Roofs already measured only: nothing is measured for
 * it. Again after m's samples changed. */
void app_flag_flops(const app *a, measurement *m);

/* A result that the kernel clock's check concerns (timed by the kernel
 * clock, under 50 us, on a device whose clock disagreed with the
 * profiler's duration; clockcheck.h): "name +0.92 us of 9.21 us (+11%)"
 * appended to *note (", " between). */
void app_clock_add(const app *a, const measurement *m, sbuf *note);
/* The note under a results table, when *note has anything; frees it. */
void app_clock_say(app *a, sbuf *note);

/* 1 when a GPU worker is running or can be started; says why not once. */
int app_gpu(app *a);
/* As the prompt first shows: starts the GPU worker in the background (the
 * driver, the context, CUPTI) and NVRTC's warm-up, and returns at once; the
 * first run finds them ready. Prints nothing, but where there is no GPU to
 * start (--no-gpu; no GPU device on this machine: then nothing starts) it
 * says so with the banner. CUPLAY_NO_WARMUP=1 starts nothing ahead. */
void app_gpu_background(app *a);

#endif
