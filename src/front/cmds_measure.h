/* cmds_measure.h: the commands that measure and write what was measured: run, sweep, compare, save, plot, report (their entries, for the command table). */
#ifndef CUPLAY_CMDS_MEASURE_H
#define CUPLAY_CMDS_MEASURE_H

#include "command.h"

extern const command cmd_run_entry;
extern const command cmd_sweep_entry;
extern const command cmd_compare_entry;
extern const command cmd_save_entry;
extern const command cmd_plot_entry;
extern const command cmd_report_entry;

#endif
