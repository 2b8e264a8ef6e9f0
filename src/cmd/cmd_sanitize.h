/* cmd_sanitize.h: the `sanitize` command (cmd_sanitize.c). */
#ifndef CUPLAY_CMD_SANITIZE_H
#define CUPLAY_CMD_SANITIZE_H

#include "app.h"
#include "command.h"

extern const command cmd_sanitize_entry;

/* `sanitize [memcheck|racecheck|synccheck|initcheck] [KERNEL]` */
int look_sanitize(app *a, int argc, char **argv);

#endif
