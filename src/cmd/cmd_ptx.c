/* cmd_ptx.c: the `ptx` command: a kernel's PTX with its source lines; its entry beside its handler. */
#include "cmd_ptx.h"
#include "pager.h"
#include "pick.h"
#include "builtin.h"
#include "sass.h"

#include <stdlib.h>
#include <string.h>

/* The .entry of one kernel and what it calls are in the module; print the
 * module header and that entry. */
int app_ptx(app *a, const char *kernel)
{
	int *ks = NULL, nk = 0;
	char *names[] = { (char *)kernel };
	if (pick_kernels(a, kernel ? names : NULL, kernel ? 1 : 0, &ks, &nk) != 0)
		return -1;
	int k = ks[0];
	free(ks);
	runctx c;
	if (run_prepare_for(a, NULL, 0, &k, 1, &c) != 0)
		return -1;
	int ci = cunit_find(c.u, a->file.sp->kernels[k].name);
	if (!c.u->ptx || ci < 0) {
		run_release(&c);
		return app_error(a, "ptx: NVRTC kept no PTX for '%s'", a->file.sp->kernels[k].name);
	}
	const char *ptx = c.u->ptx;
	char *entry = xasprintf(".entry %s(", c.u->lowered[ci]);
	const char *e = strstr(ptx, entry);
	if (!e) {
		free(entry);
		entry = xasprintf(".entry %s", c.u->lowered[ci]);
		e = strstr(ptx, entry);
	}
	/* the entry with its source lines (from the -lineinfo .loc lines) */
	sass_src src = { a->file.sp->path, a->file.sp->src };
	char *annotated = ptx_extract(ptx, c.u->lowered[ci], &src, 1);
	FILE *f = pager_open(a);
	fprintf(f, "// %s: %s  (%s)\n", a->file.sp->kernels[k].name, c.vline, c.u->options);
	if (annotated) {
		fputs(annotated, f);
	} else if (!e) {
		fputs(ptx, f);
	} else {
		/* back up to the line start (".visible .entry ...") */
		const char *start = e;
		while (start > ptx && start[-1] != '\n')
			start--;
		const char *end = strstr(e, "\n}\n");
		end = end ? end + 3 : e + strlen(e);
		fwrite(start, 1, (size_t)(end - start), f);
	}
	pager_close(a, f, "ptx", a->file.sp->kernels[k].name);
	free(annotated);
	free(entry);
	run_release(&c);
	return 0;
}

static int cmd_ptx(app *a, int argc, char **argv, const char *rest)
{
	return app_ptx(a, argc > 1 ? argv[1] : NULL);
}

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
