/* cmds_lines.h: the command that counts a kernel's cost by source line:
 * lines (its entry, for the command table). */
#ifndef CUPLAY_CMDS_LINES_H
#define CUPLAY_CMDS_LINES_H

#include "command.h"

extern const command cmd_lines_entry;

#endif
