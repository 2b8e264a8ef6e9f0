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

/* Without a GPU: the table of what the compile says of each kernel
 * (registers, memory, spills) and its launch, and a plan's row in it (a
 * sequence's steps a row each, "SEQUENCE/STEP"). */
void planshow_resource_table(table *t);
void planshow_resource_row(table *t, const runctx *c, const plan *p, const char *file);

#endif
