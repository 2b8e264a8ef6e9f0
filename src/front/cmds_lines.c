/* cmds_lines.c: `lines`, its entry beside its handler. */
#include "cmds_lines.h"

#include "perline.h"

static int cmd_lines(app *a, int argc, char **argv, const char *rest)
{
	(void)rest;
	return perline_run(a, argc, argv);
}

static const char lh_lines[] =
	"Shows a kernel's source lines (default: the kernel of the last run, else the file's first) with what "
	"each cost in one more launch at the "
	"current values: warp instructions and how full the warps were, global sectors and how many times the "
	"ideal (uncoalesced: above 1x), shared wavefronts and how many times the ideal (bank conflicts: above 1x), "
	"local sectors (spills, local arrays), the share of the stall samples and the top stall reasons. Only "
	"lines that cost are shown (--all: every line with code), sorted by the share of the stall samples, "
	"else by --sort stall|inst|global|shared|local|order, with a bar; --sass puts each line's instructions "
	"under it. A line of an included header (or of any other file) shows as FILE:LINE @N under the kernel's "
	"line N that calls it, where the cubin's line table records where it was inlined (a line inlined at two "
	"calls shows under each), else as FILE:LINE <N under the kernel's line N before it in the code. Its "
	"figures are its own: the calling line's are those of its own instructions. A sequence shows each "
	"step's lines; a template each "
	"instantiation's.\n"
	"\n"
	"The counts come from CUPTI: the kernel's SASS patched to count each instruction, then PC sampling "
	"(--period N: a sample every 2^N cycles, 5 to 31; by default about two million samples for the "
	"kernel's time), each its own launch after the checked one; never "
	"the timed samples. What that cost against a plain launch is said first. Without a GPU, each line's "
	"instructions from the cubin's line table.\n"
	"\n"
	"Two kernels (or two variants, KERNEL[NAME=VALUE,...]) show side by side, line by line: the figure "
	"that moved most, or --sort's. The views are kept for 'expect KERNEL line \"TEXT\" FIGURE OP X'.\n"
	"\n"
	"Examples:\n"
	"  lines transpose_tiled\n"
	"  lines transpose_tiled --sort shared --sass\n"
	"  lines transpose_tiled[PAD=0] transpose_tiled[PAD=1]\n";
const command cmd_lines_entry = {
	.name = "lines",
	.fn = cmd_lines,
	.args = "[KERNEL[SEL]] [KERNEL[SEL]] [--sort stall|inst|global|shared|local|order] [--sass] [--all] [--period N]",
	.help = "the cost of each source line (counters)",
	.min_args = 0,
	.max_args = 9,
	.flags = CMD_NEEDS_FILE | CMD_FRESH_FILE,
	.compl = COMPL_KERNEL,
	.long_help = lh_lines,
};
