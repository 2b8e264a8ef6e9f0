/* serve.h: `cuplay --serve`, the machine protocol for front ends (a
 * notebook's kernel): JSON lines in and out, as docs/formats.md says. */
#ifndef CUPLAY_SERVE_H
#define CUPLAY_SERVE_H

#include "app.h"

/* Answers requests from stdin until its end: 0, or 2 when the channels
 * cannot be set up (said on stderr). */
int serve_loop(app *a);

#endif
