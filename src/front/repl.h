/* repl.h: the interactive prompt: line editing (readline when built with
 * it), history, completion from the command table and the loaded file. */
#ifndef CUPLAY_REPL_H
#define CUPLAY_REPL_H

#include "app.h"

/* Reads and runs lines until quit or end of input. Returns errors seen. */
int repl_loop(app *a);

/* Waits for Enter before a command in --step mode: 1 go on, 0 the user
 * typed q (or Ctrl-C), -1 no answer can come (end of input). */
int repl_step(app *a, const char *line);

#endif
