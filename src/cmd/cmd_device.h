/* cmd_device.h: the `device` command (cmd_device.c). */
#ifndef CUPLAY_CMD_DEVICE_H
#define CUPLAY_CMD_DEVICE_H

#include "app.h"
#include "command.h"

extern const command cmd_device_entry;

/* `device [N]`: the GPU in use (with N: GPU N from now on). */
int app_device(app *a, int argc, char **argv);

#endif
