/* say.h: narration (say.c). */
#ifndef CUPLAY_SAY_H
#define CUPLAY_SAY_H

#include "app.h"

/* say.c: narration with {placeholders} filled in ({gpu}, {l2}, {median K},
 * {speedup A B}, ...); *bad names the first that is not one (left as
 * written). */
char *say_expand(app *a, const char *text, char **bad);

#endif
