/* prefetch.h: the compile the next `run` will want, started when a value
 * is typed.
 *
 * After `set` or `use` at the prompt, the kernels of the file's last run
 * (every kernel `run` runs when there was none) are compiled in the
 * background, in the compile server, for the values now set: by the time
 * `run` is typed the compile is done or under way, and `run` waits for it
 * rather than start its own (ccache_prefetch_some). Nothing is printed:
 * errors are said by the `run` that meets them, at their line. A new
 * `set` supersedes it; Ctrl-C at the prompt, `quit`, or values a run would
 * refuse stop it. Replays do none of it: their output must not depend on
 * how far a compile had got. */
#ifndef CUPLAY_PREFETCH_H
#define CUPLAY_PREFETCH_H

#include "app.h"

/* Starts the compile (or stops the one running when none is wanted now). */
void app_prefetch(app *a);
/* Stops a compile in the background (Ctrl-C at the prompt). */
void app_prefetch_cancel(app *a);
/* `run` ran kernels ks[0..nk) of the current file: the next compile ahead
 * is of those. */
void app_prefetch_note_run(app *a, const int *ks, int nk);

/* The compiles of several runs at once, before the first of them: a
 * sweep's configurations, a comparison's variants. Each is a run of kernels
 * ks[0..nk) with the values set and extra; they are compiled in parallel,
 * never more at once than the machine has cores, each into the cache on its
 * own, where each run then finds it (ccache_compile_batch). Prints nothing;
 * nothing when the device is not known yet. */
typedef struct ahead_item {
	const symtab *extra;
	const int *ks;
	int nk;
} ahead_item;
void app_compile_ahead(app *a, const ahead_item *items, int n);

#endif
