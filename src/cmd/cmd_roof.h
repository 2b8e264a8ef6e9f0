/* cmd_roof.h: the `roof` command (cmd_roof.c), and the measure of the roofs the session calls back (app.h says why). */
#ifndef CUPLAY_CMD_ROOF_H
#define CUPLAY_CMD_ROOF_H

#include "app.h"
#include "command.h"

extern const command cmd_roof_entry;

/* `roof`: the roofs of the current device, measured again, and shown. The
 * dispatcher has started the GPU (the command's flags). */
int app_roof(app *a);
/* Measures the roofs of the current device without a word but its
 * errors: tensor 0 the memory roofs (app.roof: the copy, the streaming
 * kernels, the datasheet's peak, FP32), 1 the tensor roofs (app.troof).
 * The session's roofs_measure callback (app.h says why). */
int roof_measure_now(app *a, int tensor);

#endif
