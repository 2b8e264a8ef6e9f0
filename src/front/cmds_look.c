/* cmds_look.c: the commands that look into a kernel: info, ptx, sass, metrics, explain, roofline, sanitize; each command's entry beside its handler. */
#include "cmds_look.h"
#include "ccserver.h"
#include "diagnose.h"
#include "expect.h"
#include "fileio.h"
#include "headers.h"
#include "help.h"
#include "inspect.h"
#include "look.h"
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

static int cmd_ptx(app *a, int argc, char **argv, const char *rest)
{
	return app_ptx(a, argc > 1 ? argv[1] : NULL);
}

static int cmd_sass(app *a, int argc, char **argv, const char *rest)
{
	return look_sass(a, argc > 1 ? argv[1] : NULL);
}

static int cmd_info(app *a, int argc, char **argv, const char *rest)
{
	return look_info(a, argc, argv);
}

static int cmd_metrics(app *a, int argc, char **argv, const char *rest)
{
	return look_metrics(a, argc, argv);
}

static int cmd_explain(app *a, int argc, char **argv, const char *rest)
{
	return app_explain(a, argc, argv);
}

static int cmd_roofline(app *a, int argc, char **argv, const char *rest)
{
	return app_roofline(a, argc > 1 ? argv[1] : NULL);
}

static int cmd_sanitize(app *a, int argc, char **argv, const char *rest)
{
	return look_sanitize(a, argc, argv);
}

static const char lh_info[] =
	"Shows what the compiler made of each kernel: registers, shared memory, stack, spills, "
	"the launch, and the occupancy with what limits it. Looked at again, it says what "
	"changed since the last look (after a 'set', say).\n"
	"\n"
	"Examples:\n"
	"  info\n"
	"  info transpose_tiled\n";
const command cmd_info_entry = {
	.name = "info",
	.fn = cmd_info,
	.args = "[KERNEL...]",
	.help = "registers, shared memory, spills, occupancy",
	.min_args = 0,
	.max_args = -1,
	.flags = CMD_NEEDS_FILE | CMD_FRESH_FILE,
	.compl = COMPL_KERNEL,
	.long_help = lh_info,
};

static const char lh_ptx[] =
	"Shows the PTX of a kernel (default: the first), with the source lines it came from.\n"
	"\n"
	"Example:\n"
	"  ptx transpose_tiled\n";
const command cmd_ptx_entry = {
	.name = "ptx",
	.fn = cmd_ptx,
	.args = "[KERNEL]",
	.help = "the PTX of a kernel, with its source lines",
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_NEEDS_FILE | CMD_FRESH_FILE,
	.compl = COMPL_KERNEL,
	.long_help = lh_ptx,
};

static const char lh_sass[] =
	"Shows the machine code (SASS) of a kernel (default: the first), disassembled with "
	"nvdisasm, with the source lines it came from.\n"
	"\n"
	"Example:\n"
	"  sass transpose_tiled\n";
const command cmd_sass_entry = {
	.name = "sass",
	.fn = cmd_sass,
	.args = "[KERNEL]",
	.help = "the machine code (SASS), with its source lines",
	.min_args = 0,
	.max_args = 1,
	.flags = CMD_NEEDS_FILE | CMD_FRESH_FILE,
	.compl = COMPL_KERNEL,
	.long_help = lh_sass,
};

static const char lh_metrics[] =
	"Reads hardware counters in one more launch of each kernel named (default: all) through "
	"CUPTI, as Nsight Compute does: the default set, a named set, or figures and raw ncu "
	"metrics by name. 'metrics on' reads the default set after every run; 'metrics list' "
	"shows every figure with its meaning and raw metrics. Where counters are not "
	"permitted it says how to enable them.\n"
	"\n"
	"Examples:\n"
	"  metrics\n"
	"  metrics transpose_tiled shared\n"
	"  metrics ld_sectors_per_req dram__bytes_read.sum\n"
	"  metrics on\n";
const command cmd_metrics_entry = {
	.name = "metrics",
	.fn = cmd_metrics,
	.args = "[KERNEL...] [METRIC|SET...] | on|off | list",
	.help = "hardware counters: traffic, sectors, bank conflicts",
	.min_args = 0,
	.max_args = -1,
	.compl = COMPL_KERNEL,
	.long_help = lh_metrics,
};

static const char lh_explain[] =
	"Answers the lab's three questions for each kernel named (default: all): what limits "
	"it, memory or compute, and how much is left. One timed run, then one profiled launch "
	"reads the speed of light as Nsight Compute's SOL section does: DRAM, L2, L1/shared "
	"and SM throughput as % of peak, drawn as bars; the busiest is the limiter. The "
	"verdict: launch-bound (within 2x of an empty launch), memory- or compute-bound (the "
	"limiter at 60% or more), else latency-bound. A kernel whose code holds tensor-core "
	"instructions (wmma, mma.sync, wgmma; HMMA, HGMMA, IMMA, QGMMA) gets a pipe row: its "
	"precision and the tensor pipe's busy cycles. The headroom: the median against the "
	"declared bytes at the measured memory roof (flops at the roof of their pipe when "
	"compute-bound: the FMA roof, or the tensor roof of the kernel's precision). Then the "
	"rules that fire, each with its evidence and the usual fix: uncoalesced, "
	"bank_conflicts, low_l1_hit, occupancy, divergence, atomics, and for tensor-core "
	"kernels no_wgmma, ldmatrix_conflicts, loads_mma_turns, accumulator_spills. Where "
	"counters are not permitted it says what timing alone supports and how to enable "
	"them. 'expect K bound|limiter|rule' asserts on the diagnosis.\n"
	"\n"
	"Examples:\n"
	"  explain\n"
	"  explain transpose_tiled\n"
	"  expect transpose_tiled rule bank_conflicts\n";
const command cmd_explain_entry = {
	.name = "explain",
	.fn = cmd_explain,
	.args = "[KERNEL...]",
	.help = "what limits a kernel, and how much is left",
	.min_args = 0,
	.max_args = -1,
	.flags = CMD_NEEDS_FILE | CMD_FRESH_FILE,
	.compl = COMPL_KERNEL,
	.long_help = lh_explain,
};

static const char lh_roofline[] =
	"Places the kernels timed so far (by run or explain) that declare their flops: "
	"arithmetic intensity (flops over the DRAM bytes the counters read, else the declared "
	"bytes, marked) against GFLOP/s, under the measured memory roof's slope and the flat "
	"top of each kernel's own pipe: the FP32 roof, or the tensor roof of its precision "
	"(drawn '=' for each precision a kernel runs on). A chart in the terminal; with "
	"FILE.svg, an SVG file as well.\n"
	"\n"
	"Examples:\n"
	"  roofline\n"
	"  roofline tiling.svg\n";
const command cmd_roofline_entry = {
	.name = "roofline",
	.fn = cmd_roofline,
	.args = "[FILE.svg]",
	.help = "kernels timed so far under the roofs",
	.min_args = 0,
	.max_args = 1,
	.compl = COMPL_PATH,
	.long_help = lh_roofline,
};

static const char lh_sanitize[] =
	"Runs one launch of a kernel under compute-sanitizer: memcheck (the default) finds "
	"out-of-bounds and misaligned accesses, racecheck shared-memory races, synccheck bad "
	"__syncthreads, initcheck reads of memory never written. Each finding names the source "
	"line.\n"
	"\n"
	"Examples:\n"
	"  sanitize transpose_tiled\n"
	"  sanitize racecheck reduce_shared\n";
const command cmd_sanitize_entry = {
	.name = "sanitize",
	.fn = cmd_sanitize,
	.args = "[memcheck|racecheck|synccheck|initcheck] [KERNEL]",
	.help = "one launch under compute-sanitizer (memcheck, ...)",
	.min_args = 0,
	.max_args = 2,
	.flags = CMD_NEEDS_FILE | CMD_FRESH_FILE,
	.compl = COMPL_KERNEL,
	.long_help = lh_sanitize,
};
