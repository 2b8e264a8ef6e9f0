/* cmd_ptx.h: the `ptx` command (cmd_ptx.c). */
#ifndef CUPLAY_CMD_PTX_H
#define CUPLAY_CMD_PTX_H

#include "app.h"
#include "command.h"

extern const command cmd_ptx_entry;

/* `ptx [KERNEL]`, on the file as it is on disk now (the dispatcher re-reads
 * it). */
int app_ptx(app *a, const char *kernel);

#endif
