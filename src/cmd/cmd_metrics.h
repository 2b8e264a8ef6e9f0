/* cmd_metrics.h: the `metrics` command (cmd_metrics.c). */
#ifndef CUPLAY_CMD_METRICS_H
#define CUPLAY_CMD_METRICS_H

#include "app.h"
#include "command.h"

extern const command cmd_metrics_entry;

/* `metrics [KERNEL...] [NAME|SET...]`, `metrics on|off`, `metrics list`;
 * argv[0] is "metrics". */
int look_metrics(app *a, int argc, char **argv);
/* The catalogue and the sets (`metrics list`, `help metrics`). */
void look_metrics_list(app *a);

#endif
