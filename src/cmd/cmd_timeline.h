/* cmd_timeline.h: the `timeline` command (cmd_timeline.c). */
#ifndef CUPLAY_CMD_TIMELINE_H
#define CUPLAY_CMD_TIMELINE_H

#include "app.h"
#include "command.h"

extern const command cmd_timeline_entry;

/* `timeline [FILE.svg]`: the last timed run's copies and kernels by stream,
 * drawn (and written as SVG); `plot FILE.svg` then writes it too. */
int app_timeline(app *a, const char *svg_path);
/* Writes the last timeline as an SVG file. */
int app_timeline_svg(app *a, const char *path);

#endif
