/* cmd_sass.h: the `sass` command (cmd_sass.c). */
#ifndef CUPLAY_CMD_SASS_H
#define CUPLAY_CMD_SASS_H

#include "app.h"
#include "command.h"

extern const command cmd_sass_entry;

/* `sass [KERNEL]` */
int look_sass(app *a, const char *kernel);

#endif
