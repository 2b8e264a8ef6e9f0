/* inspect.h: looking at the machine and at compiled code: `roof`, `device`,
 * `ptx`, `sass`, `info`. */
#ifndef CUPLAY_INSPECT_H
#define CUPLAY_INSPECT_H

#include "app.h"

/* The command handlers; the dispatcher has done what the command's flags
 * ask (cmds.h): roof runs with the GPU started, ptx on the file as it is
 * on disk now. */
int app_roof(app *a);
/* `timeline [FILE.svg]`: the last timed run's copies and kernels by stream,
 * drawn (and written as SVG); `plot FILE.svg` then writes it too. */
int app_timeline(app *a, const char *svg_path);
/* Writes the last timeline as an SVG file. */
int app_timeline_svg(app *a, const char *path);
/* Measures the roofs of the current device without a word but its
 * errors: tensor 0 the memory roofs (app.roof: the copy, the streaming
 * kernels, the datasheet's peak, FP32), 1 the tensor roofs (app.troof).
 * The session's roofs_measure callback (app.h says why). */
int roofs_measure(app *a, int tensor);
int app_device(app *a, int argc, char **argv);
int app_ptx(app *a, const char *kernel);

/* Output through $PAGER (less -FRX) on an interactive terminal, else stdout. */
FILE *pager_open(app *a);
/* kind: under csv/json, what was written becomes one record of this kind
 * ("ptx") for kernel; NULL: prose, sent to stderr. */
void pager_close(app *a, FILE *f, const char *kind, const char *kernel);

#endif
