/* tmap.h: the text of a `//@ tensormap` line (spec.h has its struct). */
#ifndef CUPLAY_TMAP_H
#define CUPLAY_TMAP_H

#include "spec_types.h"

/* Parses [p, end), the text after `tensormap`, on line `line`, where p is
 * at column col_of_p, into *t (its strings owned by t: tmap_free). 0, or
 * -1 with *why and *errcol (the column of the fault); *t is then freed. */
int tmap_parse(const char *p, const char *end, int line, int col_of_p, spec_tmap *t, int *errcol, char **why);
void tmap_free(spec_tmap *t);

#endif
