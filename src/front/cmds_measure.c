/* cmds_measure.c: the commands that measure and write what was measured: run, sweep, compare, save, plot, report (timeline, roof and device: cmd/cmd_NAME.c); each command's entry beside its handler. */
#include "cmds_measure.h"
#include "run.h"
#include "compare.h"
#include "labreport.h"
#include "ccserver.h"
#include "diagnose.h"
#include "expect.h"
#include "fileio.h"
#include "headers.h"
#include "help.h"
#include "cmd_timeline.h"
#include "metrics.h"
#include "search.h"
#include "watch.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmd_run(app *a, int argc, char **argv, const char *rest)
{
	free(a->results.last_run);
	a->results.last_run = xasprintf("run %s", rest);
	return app_run(a, argv + 1, argc - 1);
}

static int cmd_sweep(app *a, int argc, char **argv, const char *rest)
{
	return app_sweep(a, argc, argv);
}

static int cmd_compare(app *a, int argc, char **argv, const char *rest)
{
	return app_compare(a, argc, argv);
}

static int cmd_save(app *a, int argc, char **argv, const char *rest)
{
	return app_save(a, argv[1]);
}

static int cmd_plot(app *a, int argc, char **argv, const char *rest)
{
	if (a->timeline.plot)
		return app_timeline_svg(a, argv[1]);
	return app_plot(a, argv[1]);
}

static int cmd_report(app *a, int argc, char **argv, const char *rest)
{
	return app_report(a, argv[1]);
}

static const char lh_run[] =
	"Compiles the loaded file (cached), launches each kernel, checks its outputs against the "
	"reference and times it: warm-up launches, then samples on a cold L2 until the median is "
	"known to +-0.5% ('timing'); the table gives the median with its 95% interval (146 us "
	"+-0.2%), the range, GB/s and the % of the roof (csv and json also the noise, the "
	"relative standard deviation). "
	"Several kernels get a speedup chart. With no kernel, every kernel of the file but the "
	"'skip' ones. The file is read again on every run, so an edit shows at once. Without a "
	"GPU: registers, shared memory, spills, grid and block of each kernel.\n"
	"\n"
	"Examples:\n"
	"  run\n"
	"  run transpose_tiled\n"
	"  run transpose_naive transpose_tiled\n";
const command cmd_run_entry = {
	.name = "run",
	.fn = cmd_run,
	.args = "[KERNEL...|all]",
	.help = "compile, launch, check and time (default: all)",
	.min_args = 0,
	.max_args = -1,
	.flags = CMD_NEEDS_FILE | CMD_FRESH_FILE,
	.compl = COMPL_KERNEL,
	.long_help = lh_run,
};

static const char lh_sweep[] =
	"Runs every combination of the values given, for the kernels named (default: all), and "
	"prints a table and a chart with the best marked. A combination that cannot launch (too "
	"many threads, too much shared memory) is a row that says why. With 'on all' the "
	"combinations are spread over every GPU of the machine, one worker each. 'plot' writes "
	"the chart, 'save' the table.\n"
	"\n"
	"Examples:\n"
	"  sweep PAD=0,1\n"
	"  sweep TILE_SIZE=8,16,32 PAD=0,1 transpose_tiled\n"
	"  sweep BLOCK_SIZE=64,128,256,512,1024 on all\n";
const command cmd_sweep_entry = {
	.name = "sweep",
	.fn = cmd_sweep,
	.args = "NAME=v1,v2,... [NAME=...] [KERNEL...] [on all]",
	.help = "run every combination of values (on all: all GPUs)",
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_NEEDS_FILE | CMD_FRESH_FILE,
	.compl = COMPL_NAME,
	.long_help = lh_sweep,
};

static const char lh_compare[] =
	"Runs variants of kernels in turns (A B C A B C ...), so a drift of the clocks hits all "
	"alike, and gives each one's speedup over the first with its 95% interval and a "
	"verdict: faster or slower when the interval lies above or below 1, the same when it "
	"holds 1 and lies within 2% of it, ambiguous otherwise. A variant is a kernel with "
	"values in brackets.\n"
	"\n"
	"Examples:\n"
	"  compare transpose_tiled[PAD=0] transpose_tiled[PAD=1]\n"
	"  compare vadd_naive vadd_float4[BLOCK_SIZE=512]\n";
const command cmd_compare_entry = {
	.name = "compare",
	.fn = cmd_compare,
	.args = "KERNEL[NAME=V,...] KERNEL[...]...",
	.help = "interleaved runs of variants, with a verdict",
	.min_args = 2,
	.max_args = -1,
	.flags = CMD_NEEDS_FILE | CMD_FRESH_FILE,
	.compl = COMPL_KERNEL,
	.long_help = lh_compare,
};

static const char lh_save[] =
	"Writes the last results table (a run, sweep, comparison or metrics) to FILE: .csv, "
	".json and .md by the name's ending, else in the current format. CSV and JSON carry "
	"raw numbers with the unit in the column name. A file is replaced at once (its mode "
	"kept); a link is written through to its target; /dev/stdout, a pipe or a device is "
	"written in place, never replaced.\n"
	"\n"
	"Examples:\n"
	"  save results.csv\n"
	"  save padding.md\n";
const command cmd_save_entry = {
	.name = "save",
	.fn = cmd_save,
	.args = "FILE",
	.help = "write the last results: .csv, .json or .md",
	.min_args = 1,
	.max_args = 1,
	.compl = COMPL_PATH,
	.long_help = lh_save,
};

static const char lh_plot[] =
	"Writes the chart of the last comparison, sweep or multi-kernel run as an SVG file; "
	"after 'timeline', the timeline.\n"
	"\n"
	"Example:\n"
	"  plot padding.svg\n";
const command cmd_plot_entry = {
	.name = "plot",
	.fn = cmd_plot,
	.args = "FILE.svg",
	.help = "write the last chart as an SVG file",
	.min_args = 1,
	.max_args = 1,
	.compl = COMPL_PATH,
	.long_help = lh_plot,
};

static const char lh_report[] =
	"Writes what this session measured as a lab report: a self-contained HTML page (.html) "
	"or Markdown (.md). Per kernel file: the source of each kernel run, the results "
	"(check, times, GB/s, roof, GFLOP/s, registers, the GPU's clock and temperature, the "
	"command), the speedups as a chart, the hardware counters; then every command of the "
	"session. Compile-only runs are listed with their resources.\n"
	"\n"
	"Examples:\n"
	"  report lab.html\n"
	"  report lab.md\n";
const command cmd_report_entry = {
	.name = "report",
	.fn = cmd_report,
	.args = "FILE.html|FILE.md",
	.help = "write the session's results as a lab report",
	.min_args = 1,
	.max_args = 1,
	.compl = COMPL_PATH,
	.long_help = lh_report,
};

