/* compare.h: sweep, compare, save and plot (compare.c). */
#ifndef CUPLAY_COMPARE_H
#define CUPLAY_COMPARE_H

#include "app.h"

int app_sweep(app *a, int argc, char **argv);   /* the file re-read first (CMD_FRESH_FILE) */
int app_compare(app *a, int argc, char **argv); /* likewise */
int app_save(app *a, const char *path);
int app_plot(app *a, const char *path);

#endif
