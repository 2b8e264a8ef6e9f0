/* files.h: use, set, unset, show and ls: the kernel file and its values (files.c). */
#ifndef CUPLAY_FILES_H
#define CUPLAY_FILES_H

#include "app.h"

int app_use(app *a, const char *name);
int app_reload(app *a);                 /* re-reads the file when it changed */
int app_set(app *a, const char *name, const char *expr);
int app_unset(app *a, const char *name);
void app_show(app *a);
void app_ls(app *a);
/* The list of kernel files in kernels_src (caller frees). */
char **app_kernel_files(int *n);

#endif
