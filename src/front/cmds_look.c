/* cmds_look.c: the commands that look into a kernel: explain and roofline (info, ptx, sass, metrics and sanitize: cmd/cmd_NAME.c); each command's entry beside its handler. */
#include "cmds_look.h"
#include "ccserver.h"
#include "diagnose.h"
#include "expect.h"
#include "fileio.h"
#include "headers.h"
#include "help.h"
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

static int cmd_explain(app *a, int argc, char **argv, const char *rest)
{
	return app_explain(a, argc, argv);
}

static int cmd_roofline(app *a, int argc, char **argv, const char *rest)
{
	return app_roofline(a, argc > 1 ? argv[1] : NULL);
}

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

