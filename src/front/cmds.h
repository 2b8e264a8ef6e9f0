/* cmds.h: the one command table. It drives dispatch, `help`, the usage line
 * printed on bad arguments, and completion. */
#ifndef CUPLAY_CMDS_H
#define CUPLAY_CMDS_H

#include <stdio.h>
#include "command.h"


/* Makes a fresh app (app_init) ready for the commands: installs the
 * session's one callback, app.roofs_measure (app.h says why). */
void command_init(app *a);

/* The table, in the order `help` lists the commands. */
const command *const *command_table(int *n);
const command *command_find(const char *name);

/* Runs one command line (no `;`): argv[0] is the command. 0 or -1. */
int command_run(app *a, int argc, char **argv, const char *rest);

/* Splits a line into commands on `;` and each into words (quotes group;
 * `#` at the start of a command begins a comment). Runs them in order.
 * Returns the number of commands that failed. */
int command_line(app *a, const char *line);

/* The source command's worker, shared with main: replays a file of lines.
 * Returns the number of failed commands, or -1 when the file cannot be read. */
int source_file(app *a, const char *path);
/* The same for an open stream named `name` in messages. */
int source_stream(app *a, FILE *f, const char *name);

/* Optional hook: wait before a command in --step mode. 1 = go on, 0 = stop
 * (the user asked), -1 = stop: no answer can come (an error). A callback:
 * the dispatcher runs the lines of a session, and the prompt that asks
 * before each (front/repl.c's repl_step, installed by main) uses the
 * dispatcher; tests/layers.sh lists it. */
extern int (*step_hook)(app *a, const char *line);

/* A replay's closing line: its expectations held, failed and skipped (none:
 * nothing), and what a skipped one means for the exit status. */
void cmds_expect_summary(app *a, const char *name, int held, int failed, int skipped);

#endif
