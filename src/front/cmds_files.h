/* cmds_files.h: the commands of the kernel file and its values: ls, use, show, set, unset, include (their entries, for the command table). */
#ifndef CUPLAY_CMDS_FILES_H
#define CUPLAY_CMDS_FILES_H

#include "command.h"

extern const command cmd_ls_entry;
extern const command cmd_use_entry;
extern const command cmd_show_entry;
extern const command cmd_set_entry;
extern const command cmd_unset_entry;
extern const command cmd_include_entry;

#endif
