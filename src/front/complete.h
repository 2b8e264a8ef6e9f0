/* complete.h: what Tab offers, from the command table and the loaded file:
 * commands, help topics, kernel files, kernels, value names, lessons and a
 * command's fixed words. The prompt (repl.c) and the machine protocol
 * (serve.c) ask it the same question. */
#ifndef CUPLAY_COMPLETE_H
#define CUPLAY_COMPLETE_H

#include "app.h"

/* Every candidate for a word of command `cmd` (NULL: the word is the
 * command itself), NULL-terminated, *n of them; each and the array freed
 * by the caller. NULL when there are none. */
char **complete_candidates(app *a, const char *cmd, int *n);

/* The word at byte `cursor` of line (a statement ends at `;`): its start
 * in *start, the command it is an argument of (NULL: it is the command;
 * freed by the caller) in *cmd. */
void complete_word_at(const char *line, size_t cursor, size_t *start, char **cmd);

#endif
