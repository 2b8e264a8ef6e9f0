/* cmds_look.h: the commands that look into a kernel: explain and roofline (their entries, for the command table). */
#ifndef CUPLAY_CMDS_LOOK_H
#define CUPLAY_CMDS_LOOK_H

#include "command.h"

extern const command cmd_explain_entry;
extern const command cmd_roofline_entry;

#endif
