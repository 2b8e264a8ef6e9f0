/* cmds.h: the one command table. It drives dispatch, `help`, the usage line
 * printed on bad arguments, and completion. */
#ifndef CUPLAY_CMDS_H
#define CUPLAY_CMDS_H

#include <stdio.h>
#include "app.h"

/* What the dispatcher (command_run) checks and prepares before the handler
 * runs, in this order, so that handlers do not. Commands that check their
 * arguments before they need a GPU (metrics, sanitize, and run and the
 * others through run_prepare) start the worker themselves, so that a bad
 * argument is reported before the compile-only notice; device manages the
 * worker itself. */
enum {
	CMD_NEEDS_FILE = 1 << 0,  /* a kernel file must be loaded */
	CMD_INTERACTIVE = 1 << 1, /* only at an interactive prompt */
	CMD_WHOLE_LINE = 1 << 2,  /* takes the rest of the line, `;` included */
	CMD_FRESH_FILE = 1 << 3,  /* re-read the loaded file first when it changed on disk */
	CMD_NEEDS_GPU = 1 << 4,   /* start or attach the worker first (or say, once, that this
	                             is compile-only mode); without a GPU say "CMD ARGS:
	                             skipped (no GPU)" instead of running the handler */
	CMD_FLAGS_ALL = (1 << 5) - 1
};

/* What completion offers for a command's arguments: nothing, kernel files
 * by name, kernels of the loaded file, its defines and params, commands
 * (and help topics), fixed words, paths of the file system, or lessons by
 * name and paths. */
typedef enum {
	COMPL_NONE, COMPL_FILE, COMPL_KERNEL, COMPL_NAME, COMPL_COMMAND, COMPL_WORDS, COMPL_PATH, COMPL_SESSION,
	COMPL__COUNT
} compl_kind;

typedef struct command {
	const char *name;
	int (*fn)(app *a, int argc, char **argv, const char *rest);
	const char *args;     /* synopsis of the arguments, "" for none */
	const char *help;     /* one line */
	int min_args, max_args; /* -1: no upper bound */
	unsigned flags;
	compl_kind compl;
	const char *words;    /* COMPL_WORDS: space-separated choices */
	const char *long_help; /* `help NAME`: paragraphs, then indented examples (help.h) */
} command;

/* Makes a fresh app (app_init) ready for the commands: installs what
 * watches each run (the counters of `metrics on`, throttling notes). */
void command_init(app *a);

const command *command_table(int *n);
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
 * (the user asked), -1 = stop: no answer can come (an error). */
extern int (*step_hook)(app *a, const char *line);

#endif
