/* submit.h: `submit [KERNEL [EXERCISE]]`, `board [URL]` and `token [T]`:
 * the loaded kernel file sent to a class board (docs/formats.md's HTTP
 * API) over libcurl, its verification followed until its result, which is
 * shown at the prompt. Built without libcurl's headers, submit says so. */
#ifndef CUPLAY_SUBMIT_H
#define CUPLAY_SUBMIT_H

#include "app.h"

/* Sends the loaded file for the exercise of kernel (NULL: the one the
 * board's open exercises and the file agree on) or the exercise named
 * (NULL: found so); polls every 250 ms, showing where it stands, until
 * done or Ctrl-C. 0 when a result came back ok (or needs a GPU the board
 * lacks), -1 otherwise (said). */
int app_submit(app *a, const char *kernel, const char *exercise);
/* `board [URL]` and `token [T]`: set (http:// or https://), or shown
 * (the token never: only where it comes from). */
int app_board(app *a, const char *url);
int app_token(app *a, const char *token);
/* 1 when submit can send (built with libcurl). */
int submit_available(void);

#endif
