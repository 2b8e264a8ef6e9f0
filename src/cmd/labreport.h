/* labreport.h: the lab report of the session (labreport.c). */
#ifndef CUPLAY_LABREPORT_H
#define CUPLAY_LABREPORT_H

#include "app.h"

int app_report(app *a, const char *path);

#endif
