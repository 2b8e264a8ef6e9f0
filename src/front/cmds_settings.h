/* cmds_settings.h: the commands that set how runs are timed and shown: reps, warmup, timing, batch, flush, check, timeout, format (their entries, for the command table). */
#ifndef CUPLAY_CMDS_SETTINGS_H
#define CUPLAY_CMDS_SETTINGS_H

#include "command.h"

extern const command cmd_reps_entry;
extern const command cmd_warmup_entry;
extern const command cmd_timing_entry;
extern const command cmd_batch_entry;
extern const command cmd_flush_entry;
extern const command cmd_check_entry;
extern const command cmd_timeout_entry;
extern const command cmd_format_entry;

#endif
