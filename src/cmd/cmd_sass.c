/* cmd_sass.c: the `sass` command: a kernel's SASS with its source lines; its entry beside its handler. */
#include "cmd_sass.h"
#include "run.h"
#include "sass.h"
#include "look.h"
#include "pager.h"

#include <stdlib.h>
#include <string.h>

int look_sass(app *a, const char *kernel)
{
	int k;
	if (look_one_kernel(a, kernel, &k) != 0)
		return -1;
	/* say a missing disassembler before compiling */
	char *tool = NULL, *why = NULL;
	if (sass_find_tool(SASS_NONE, &tool, &why) == SASS_NONE) {
		int rc = app_error(a, "sass: %s", why ? why : "no disassembler");
		free(why);
		return rc;
	}
	free(tool);
	runctx c;
	if (run_prepare_for(a, NULL, 0, &k, 1, &c) != 0)
		return -1;
	const char *name = a->file.sp->kernels[k].name;
	int ci = cunit_find(c.u, name);
	int rc = 0;
	char *out = NULL, *err = NULL;
	sass_src src = { a->file.sp->path, a->file.sp->src };
	if (ci < 0) {
		rc = app_error(a, "sass: kernel '%s' is missing from the compiled unit", name);
	} else if (sass_disasm(c.u->cubin, c.u->cubin_len, c.u->lowered[ci], &src, 1, &out, &err) != 0) {
		rc = app_error(a, "sass: %s", err ? err : "the disassembler failed");
	} else {
		sass_counts cnt;
		sass_count(out, &cnt);
		char sum[512];
		sass_summary(&cnt, sum, sizeof sum);
		FILE *f = pager_open(a);
		fprintf(f, "// %s: %s  (%s)\n", name, c.vline, c.arch);
		fputs(out, f);
		if (out[0] && out[strlen(out) - 1] != '\n')
			fputc('\n', f);
		fprintf(f, "// %s\n", sum);
		pager_close(a, f, "sass", name);
	}
	free(out);
	free(err);
	run_release(&c);
	return rc;
}

static int cmd_sass(app *a, int argc, char **argv, const char *rest)
{
	return look_sass(a, argc > 1 ? argv[1] : NULL);
}

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
