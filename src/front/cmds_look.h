/* cmds_look.h: the commands that look into a kernel: info, ptx, sass, metrics, explain, roofline, sanitize (their entries, for the command table). */
#ifndef CUPLAY_CMDS_LOOK_H
#define CUPLAY_CMDS_LOOK_H

#include "command.h"

extern const command cmd_info_entry;
extern const command cmd_ptx_entry;
extern const command cmd_sass_entry;
extern const command cmd_metrics_entry;
extern const command cmd_explain_entry;
extern const command cmd_roofline_entry;
extern const command cmd_sanitize_entry;

#endif
