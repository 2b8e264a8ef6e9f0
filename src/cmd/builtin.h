/* builtin.h: cuplay's own kernel files, timed as if they were the user's
 * (the roofs), and the cache file that keeps what they measured per
 * device. */
#ifndef CUPLAY_BUILTIN_H
#define CUPLAY_BUILTIN_H

#include "app.h"
#include "run.h"

/* What a built-in file's run does with the file loaded and the worker
 * prepared (c): 0, or -1 with the error said. */
typedef int (*builtin_fn)(app *a, runctx *c, plan *p, result *res, void *ctx);

/* Loads the built-in kernel file `source` (its name `path`) in place of
 * the user's, with no settings, prepares a run and calls fn with a plan
 * and a result to use; then puts the user's file and settings back.
 * what: the error's prefix where the file does not parse ("roof").
 * fn's return, or -1 when the file or the run could not be prepared. */
int builtin_with(app *a, const char *what, const char *path, const char *source, builtin_fn fn, void *ctx);

/* Times the kernels of a built-in file as if it were the loaded one, then
 * puts the user's file back: per kernel (in the file's order) its GB/s and
 * GFLOP/s over the median; *copy the worker's device-to-device copy; *dev
 * the device; with link (LINK_N figures), the host link's bandwidths too,
 * measured by the first kernel's run.
 * 0, or -1 with the error said. */
int run_builtin(app *a, const char *path, const char *source, double *gbps, double *gflops,
                double *copy, double *link, devinfo *dev);

/* The file (caller frees) under the cache directory that keeps what the
 * built-in kernels `sources` measured on device d: "DIR/KIND-HASH", the
 * hash over everything that could change the figures (the device's name,
 * PCI bus, memory, clocks, bus width, SMs, the driver, cuplay's version and
 * the kernels' source). NULL: no cache directory. */
char *builtin_cache_path(const app *a, const devinfo *d, const char *kind, const char *const *sources, int n);

#endif
