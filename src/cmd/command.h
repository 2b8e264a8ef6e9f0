/* command.h: what a command of the REPL is: the fields of its entry in the
 * one command table, which drives dispatch, `help`, the usage line printed
 * on bad arguments, and completion. */
#ifndef CUPLAY_COMMAND_H
#define CUPLAY_COMMAND_H

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

/* A command: its entry, defined beside its handler (cmd/cmd_NAME.c, or a
 * family's front/cmds_*.c) with named fields, listed in the table
 * (front/cmds.c). */
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

#endif
