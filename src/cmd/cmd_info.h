/* cmd_info.h: the `info` command (cmd_info.c). */
#ifndef CUPLAY_CMD_INFO_H
#define CUPLAY_CMD_INFO_H

#include "app.h"
#include "command.h"

extern const command cmd_info_entry;

/* `info [KERNEL...]`; info, sass and sanitize find the file re-read when it
 * changed on disk (CMD_FRESH_FILE, done by the dispatcher). */
int look_info(app *a, int argc, char **argv);

#endif
