/* cmds_files.c: the commands of the kernel file and its values: ls, use, show, set, unset, include; each command's entry beside its handler. */
#include "cmds_files.h"
#include "prefetch.h"
#include "files.h"
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

static int cmd_ls(app *a, int argc, char **argv, const char *rest)
{
	app_ls(a);
	return 0;
}

static int cmd_use(app *a, int argc, char **argv, const char *rest)
{
	int r = app_use(a, argv[1]);
	if (r == 0)
		app_prefetch(a); /* the compile `run` will want, started now */
	return r;
}

static int cmd_show(app *a, int argc, char **argv, const char *rest)
{
	app_show(a);
	return 0;
}

static int set_pairs(app *a, const char *rest);

static int set_pairs(app *a, const char *rest)
{
	const char *p = rest;
	int any = 0;
	while (*p) {
		if (g_interrupt) /* Ctrl-C: none of the command's values */
			return app_error(a, "set: interrupted: the values are as they were");
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		const char *n0 = p;
		while (is_ident_char((unsigned char)*p))
			p++;
		const char *n1 = p;
		while (isspace((unsigned char)*p))
			p++;
		if (n1 == n0 || !is_ident_start((unsigned char)*n0) || *p != '=')
			return app_error(a, "set: expected NAME=VALUE, got '%s'", n0);
		p++;
		const char *e0 = p;
		/* find the next NAME= that starts a new assignment */
		const char *q = p, *e1 = NULL;
		while (*q && !e1) {
			if (isspace((unsigned char)q[0])) {
				const char *r = q;
				while (isspace((unsigned char)*r))
					r++;
				const char *id = r;
				while (is_ident_char((unsigned char)*r))
					r++;
				const char *after = r;
				while (isspace((unsigned char)*r))
					r++;
				if (after > id && is_ident_start((unsigned char)*id) && *r == '=' && r[1] != '=') {
					e1 = q;
					break;
				}
			}
			q++;
		}
		if (!e1)
			e1 = p + strlen(p);
		char *name = xstrndup(n0, (size_t)(n1 - n0));
		char *expr = xstrndup(e0, (size_t)(e1 - e0));
		char *s = str_trim(expr);
		int r = *s ? app_set(a, name, s) : app_error(a, "set: no value for '%s'", name);
		free(name);
		free(expr);
		if (r != 0)
			return -1;
		any = 1;
		p = e1;
	}
	if (!any)
		return app_error(a, "usage: set NAME=VALUE [NAME=VALUE...]");
	return 0;
}

/* `set N=4096 PAD=0`, `set N = 2*TILE_SIZE`: NAME=EXPR pairs; an
 * expression runs to the next `NAME=`. All of them or none: after an
 * error the values are those before the command. */
static int cmd_set(app *a, int argc, char **argv, const char *rest)
{
	symtab before = {0};
	for (int i = 0; i < a->file.settings.n; i++)
		symtab_set(&before, a->file.settings.v[i].name, a->file.settings.v[i].v, a->file.settings.v[i].hidden);
	int r = set_pairs(a, rest);
	if (r != 0) {
		symtab_free(&a->file.settings);
		a->file.settings = before;
		app_prefetch_cancel(a);
	} else {
		symtab_free(&before);
		app_prefetch(a);
	}
	return r;
}

static int cmd_unset(app *a, int argc, char **argv, const char *rest)
{
	int rc = 0;
	for (int i = 1; i < argc; i++)
		if (app_unset(a, argv[i]) != 0)
			rc = -1;
	app_prefetch(a);
	return rc;
}

static int cmd_include(app *a, int argc, char **argv, const char *rest)
{
	return app_include(a, argc > 1 ? argv[1] : NULL);
}

static const char lh_ls[] =
	"Lists the kernel files, each with its number of kernels and the first comment line of the "
	"file. They are looked for in ./kernels_src, then in DIR/kernels_src for each DIR of "
	"CUPLAY_PATH (colon-separated), then in the kernel files that come with cuplay; when "
	"files come from more than one of these, a column says where. A file hides one of the "
	"same name further down that path. '*' marks the loaded file.\n"
	"\n"
	"Example:\n"
	"  ls\n";
const command cmd_ls_entry = {
	.name = "ls",
	.fn = cmd_ls,
	.args = "",
	.help = "list the kernel files, where they come from",
	.min_args = 0,
	.max_args = 0,
	.compl = COMPL_NONE,
	.long_help = lh_ls,
};

static const char lh_use[] =
	"Loads a kernel file: its //@ header, its kernels and its values. FILE is a name looked "
	"for as 'ls' lists them (transpose is kernels_src/transpose.cu), or a path. The values set "
	"for a file stay with it: back to a file, its settings are back too.\n"
	"\n"
	"Examples:\n"
	"  use transpose\n"
	"  use ../mine/kernels_src/stencil.cu\n";
const command cmd_use_entry = {
	.name = "use",
	.fn = cmd_use,
	.args = "FILE",
	.help = "load a kernel file (kernels_src/FILE.cu)",
	.min_args = 1,
	.max_args = 1,
	.compl = COMPL_FILE,
	.long_help = lh_use,
};

static const char lh_show[] =
	"Shows the loaded file: each define and param with its value, whether it was set, and "
	"its default; the buffers; the kernels; the timing options and the GPU.\n"
	"\n"
	"Example:\n"
	"  show\n";
const command cmd_show_entry = {
	.name = "show",
	.fn = cmd_show,
	.args = "",
	.help = "the loaded file's values, buffers and kernels",
	.min_args = 0,
	.max_args = 0,
	.compl = COMPL_NONE,
	.long_help = lh_show,
};

static const char lh_set[] =
	"Sets defines and params of the loaded file. A define is a -D macro: a change "
	"recompiles. A param is a kernel argument: no recompile. A value is an expression of "
	"the other names and SM_COUNT, WARP_SIZE, L2_BYTES ('help header'). Its type comes from "
	"the kernel parameters it binds to: for a float or double one the arithmetic is in "
	"floating point (5/2 is 2.5); an int one takes whole numbers only, in its range. "
	"Several values in one 'set' are set all together, or none of them on an error.\n"
	"\n"
	"Examples:\n"
	"  set PAD=0\n"
	"  set N=8192 TILE_SIZE=16\n"
	"  set N = 2 * SM_COUNT * 1024\n"
	"  set alpha=5/2\n";
const command cmd_set_entry = {
	.name = "set",
	.fn = cmd_set,
	.args = "NAME=VALUE...",
	.help = "set a define (recompiles) or a param (no recompile)",
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_NEEDS_FILE,
	.compl = COMPL_NAME,
	.long_help = lh_set,
};

static const char lh_unset[] =
	"Returns defines and params to the defaults the file's header gives them.\n"
	"\n"
	"Examples:\n"
	"  unset PAD\n"
	"  unset N TILE_SIZE\n";
const command cmd_unset_entry = {
	.name = "unset",
	.fn = cmd_unset,
	.args = "NAME...",
	.help = "return names to the file's default",
	.min_args = 1,
	.max_args = -1,
	.flags = CMD_NEEDS_FILE,
	.compl = COMPL_NAME,
	.long_help = lh_unset,
};

static const char lh_include[] =
	"Shows where #include looks for headers: the kernel file's own directory, the "
	"directories its //@ include lines and -I name, and the CUDA toolkit's (CCCL too). "
	"With DIR, adds a directory for every file from now on.\n"
	"\n"
	"Examples:\n"
	"  include\n"
	"  include ../common/include\n";
const command cmd_include_entry = {
	.name = "include",
	.fn = cmd_include,
	.args = "[DIR]",
	.help = "where #include looks for headers; add DIR",
	.min_args = 0,
	.max_args = 1,
	.compl = COMPL_PATH,
	.long_help = lh_include,
};
