/* watch.h: `edit` (an editor on the kernel file, then the last run again)
 * and `watch` (the last run again whenever the file or a header it includes
 * is saved). Both are for an interactive terminal. */
#ifndef CUPLAY_WATCH_H
#define CUPLAY_WATCH_H

#include "app.h"

/* What runs a line of commands (the front end's dispatcher, command_line):
 * the number of commands that failed. A callback: the dispatcher runs
 * `edit` and `watch`, which run lines again. */
typedef int (*line_runner)(app *a, const char *line);

/* Opens $VISUAL, $EDITOR or vi on the kernel file `name` names (found as
 * `use` finds it; the current file when NULL), waits, then runs it: the
 * current file's last `run` line again (or `run`), or another file loaded
 * and run whole. */
int app_edit(app *a, const char *name, line_runner run_line);

/* Re-runs the last `run` on every save until `watch off`, an empty line
 * with q, Ctrl-C, or end of input. Lines typed meanwhile run as commands.
 * Both go through run_line. */
int app_watch(app *a, line_runner run_line);

#endif
