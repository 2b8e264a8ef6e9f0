/* pager.h: long text (ptx, sass, help) through $PAGER at an interactive terminal, else stdout; under csv/json one record. */
#ifndef CUPLAY_PAGER_H
#define CUPLAY_PAGER_H

#include "app.h"

#include <stdio.h>

/* Output through $PAGER (less -FRX) on an interactive terminal, else stdout. */
FILE *pager_open(app *a);
/* kind: under csv/json, what was written becomes one record of this kind
 * ("ptx") for kernel; NULL: prose, sent to stderr. */
void pager_close(app *a, FILE *f, const char *kind, const char *kernel);

#endif
