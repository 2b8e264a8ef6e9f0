/* app.h: the state of one cuplay session, shared by the command handlers,
 * the REPL and main: options, the current kernel file, the values set, the
 * compile cache, the worker and the results so far. */
#ifndef CUPLAY_APP_H
#define CUPLAY_APP_H

#include <signal.h>
#include "ccache.h"
#include "expr.h"
#include "plan.h"
#include "report.h"
#include "spec.h"
#include "stats.h"
#include "util.h"
#include "worker.h"

/* A finished run, addressable later by kernel and values. */
typedef struct run_record {
	char *kernel;
	char *file;
	char *values;      /* "N=8192 TILE_SIZE=32 PAD=0", file order */
	int checked, check_ok;
	double check_err;
	int timed;
	stats st;
	double gbps, gflops, roof_frac;
	double *samples;
	int nsamples;
} run_record;

typedef struct app {
	/* options */
	int no_gpu, mask_times, interactive, color, step, bail;
	int device;           /* --device N */
	int arch_sm;          /* --arch sm_XY; 0: the device's, or 90 without one */
	out_format format;
	timing_opts topt;
	double timeout_s;
	const char *exe;      /* this binary, for the worker */

	/* the current kernel file */
	char *path;
	spec *sp;
	symtab settings;      /* values given with `set` */

	/* machinery */
	ccache cache;
	wclient worker;
	int gpu;              /* -1: not tried yet, 0: compile-only, 1: worker up */
	int notice_said;

	/* where input comes from, for messages */
	const char *in_file;
	int in_line;
	int nerrors;
	int source_depth;

	/* results */
	run_record *runs;
	int nruns, capruns;
	char *last_run;       /* the last `run` line, for edit/watch */
	int quit;
} app;

extern volatile sig_atomic_t g_interrupt;

void app_init(app *a, const char *exe);
void app_free(app *a);

/* Prints "file:line: msg" (in a session), or "error: msg" / a message that
 * already names its location; counts the error; returns -1. */
int app_error(app *a, const char *fmt, ...) PRINTF_LIKE(2, 3);
int app_error_msg(app *a, const char *msg); /* same, for a ready message */
/* Prints a notice on stdout (no error). */
void app_note(app *a, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* run.c: the edit -> compile -> run -> check -> time loop. */
int app_use(app *a, const char *name);
int app_reload(app *a);                 /* re-reads the file when it changed */
int app_run(app *a, char **kernels, int nk);
int app_set(app *a, const char *name, const char *expr);
int app_unset(app *a, const char *name);
void app_show(app *a);
void app_ls(app *a);
/* The list of kernel files in kernels_src (caller frees). */
char **app_kernel_files(int *n);
/* 1 when a GPU worker is running or can be started; says why not once. */
int app_gpu(app *a);

#endif
