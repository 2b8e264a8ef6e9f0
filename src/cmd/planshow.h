/* planshow.h: what a plan holds, said before its first run. */
#ifndef CUPLAY_PLANSHOW_H
#define CUPLAY_PLANSHOW_H

#include "app.h"

/* The buffers (type, count, fill, flags, size; their total) and the
 * globals, a line each list, or an item a line when the list is long. */
void planshow_buffers(app *a, const plan *p);
/* A run on host data: what is copied in and out (bytes each way), and the
 * chunks when the file splits the run. */
void planshow_pipeline(app *a, const plan *p);

#endif
