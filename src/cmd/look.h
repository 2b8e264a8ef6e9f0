/* look.h: what the commands that look inside a kernel (info, sass,
 * metrics, sanitize: cmd_info.c, ...) share. */
#ifndef CUPLAY_LOOK_H
#define CUPLAY_LOOK_H

#include "app.h"

/* "metrics transpose_tiled shared" as typed, for "skipped" notes (caller
 * frees). */
char *look_words_line(int argc, char **argv);
/* The one kernel a command looks at: KERNEL, or the file's only one; its
 * index in *k. 0, or -1 (said). */
int look_one_kernel(app *a, const char *kernel, int *k);

#endif
