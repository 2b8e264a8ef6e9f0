/* run.h: the edit -> compile -> run -> check -> time loop: `run`, and the steps of a run that sweep, compare, explain and the others share (run.c). */
#ifndef CUPLAY_RUN_H
#define CUPLAY_RUN_H

#include "app.h"

int app_run(app *a, char **kernels, int nk); /* the file re-read first (CMD_FRESH_FILE) */
/* The steps of a run, for run, sweep and compare. run_prepare resolves the
 * values (settings, then `extra`) and compiles; run_plan builds and checks
 * the launch of kernel k; run_exec sends it to the worker. Each prints or
 * returns its one-line error. */
int run_prepare(app *a, const symtab *extra, int announce, runctx *c);
/* The same for the kernels ks[0..nk) alone (and what they need: reduce.h);
 * ks NULL: every kernel of the file. */
int run_prepare_for(app *a, const symtab *extra, int announce, const int *ks, int nk, runctx *c);
/* The same for `run` of several kernels: each compiled on its own, in
 * parallel (never more at once than the machine has cores), each cached
 * on its own; c->u is the first's, run_unit_for gives each the next. The
 * compile's line says the whole of it; the units' warnings are said once
 * a line (*said keeps those said). Where one fails, the kernels compile as
 * one unit, which says the error. */
int run_prepare_each(app *a, const int *ks, int nk, runctx *c, sbuf *said);
/* c->u made kernel k's own (after run_prepare_each): 0, or -1 with *err. */
int run_unit_for(app *a, runctx *c, int k, sbuf *said, char **err);
void run_release(runctx *c);
int run_plan(app *a, runctx *c, int k, const timing_opts *t, plan *p, char **err);
int run_exec(app *a, runctx *c, const plan *p, result *res, char **err);
/* run_exec, with `//@ check at`: the check pass at those params (a plan of
 * its own), then p timed without checking; res carries both. */
int run_exec_checked(app *a, runctx *c, int k, plan *p, result *res, char **err);
/* The plan and cubin of the `check at` pass for kernel k (timing plan p):
 * 1 when made (caller frees *cubin), 0 when the file has none, -1 error. */
int run_check_plan(app *a, runctx *c, int k, const plan *p, plan *pc, void **cubin, size_t *len, char **err);
/* The values of the file's `//@ check at` lines, evaluated with c's values
 * (caller frees *extra). */
int check_at_values(app *a, const runctx *c, symtab *extra, char **err);

void progress(void *ctx, int n, double last_ms);
/* Prints what failed in a result's checks, one error line each. */
void check_failures(app *a, const plan *p, const result *res);
/* Says why a result was timed with events when the kernel clock was asked
 * for, once for each new reason. */
void clock_note(app *a, const result *res);

#endif
