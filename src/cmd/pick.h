/* pick.h: the kernels a command names (pick.c). */
#ifndef CUPLAY_PICK_H
#define CUPLAY_PICK_H

#include "app.h"

/* The kernels named (none, or "all": every launchable one): their indices
 * in *out (caller frees); -1 when a name is unknown (said: a near name, the
 * file's kernels, or the instantiation a template needs). */
int pick_kernels(app *a, char **names, int n, int **out, int *nout);

#endif
