/* cmd_info.c: the `info` command: resources, occupancy and what changed since the last look; its entry beside its handler. */
#include "cmd_info.h"
#include "run.h"
#include "pick.h"
#include "kinfo.h"
#include "kstate.h"

#include <stdlib.h>
#include <string.h>

static struct kinfo_seen *seen_find(app *a, const char *kernel)
{
	for (int i = 0; i < a->nkseen; i++)
		if (strcmp(a->kseen[i].path, a->file.path) == 0 && strcmp(a->kseen[i].kernel, kernel) == 0)
			return &a->kseen[i];
	return NULL;
}

static void seen_keep(app *a, const char *kernel, const kres *r, const plan_launch *l)
{
	struct kinfo_seen *s = seen_find(a, kernel);
	if (!s) {
		a->kseen = xrealloc(a->kseen, (size_t)(a->nkseen + 1) * sizeof *a->kseen);
		s = &a->kseen[a->nkseen++];
		s->path = xstrdup(a->file.path);
		s->kernel = xstrdup(kernel);
	}
	s->res = *r;
	s->launch = *l;
}

static void info_row(table *t, const char *what, const char *val)
{
	int r = table_row(t);
	table_set(t, r, 0, "%s", what);
	table_set(t, r, 1, "%s", val);
}

/* The driver's rows: its function attributes, the occupancy API, the GPU now. */
static void driver_rows(table *t, const runctx *c, const plan *p, const result *res)
{
	const func_info *fi = &res->fn;
	const devinfo *d = &c->dev;
	char x[32], y[32], line[512];
	if (fi->known) {
		fmt_bytes(fi->static_smem, x, sizeof x);
		fmt_bytes(fi->local_bytes, y, sizeof y);
		snprintf(line, sizeof line, "%d registers, %s static shared, %s local per thread, "
		         "at most %d threads per block", fi->regs, x, y, fi->max_threads);
		info_row(t, "driver", line);
	}
	int threads = (int)(p->launch.block[0] * p->launch.block[1] * p->launch.block[2]);
	int ws = d->warp_size > 0 ? d->warp_size : 32;
	int max_warps = d->max_threads_sm / ws;
	if (fi->occ_blocks >= 0 && max_warps > 0) {
		int warps = fi->occ_blocks * ((threads + ws - 1) / ws);
		snprintf(line, sizeof line, "%d block%s of %d threads per SM: %.0f%% (the driver's occupancy API)",
		         fi->occ_blocks, fi->occ_blocks == 1 ? "" : "s", threads, 100.0 * warps / max_warps);
		info_row(t, "occupancy api", line);
	}
	if (fi->suggest_block > 0) {
		snprintf(line, sizeof line, "%d threads (with a grid of at least %d blocks, every SM is full)",
		         fi->suggest_block, fi->suggest_grid);
		info_row(t, "best block", line);
	}
	if (res->cond.available) {
		nvml_describe(&res->cond, line, sizeof line);
		info_row(t, "gpu now", line);
	}
}

/* The state the kernel keeps across launches (kstate.h): for people a row
 * a variable, with the header line that would reset it (t given); for the
 * data, the names ("done finished", returned; caller frees). */
static char *state_of(table *t, const spec *s, const cunit *u, int k)
{
	kstate_var *v = NULL;
	int n = 0;
	sbuf names = {0};
	if (kstate_find(s, u, k, &v, &n) != 0)
		return NULL;
	for (int i = 0; i < n; i++) {
		char line[512];
		snprintf(line, sizeof line, "'%s' (%s): written by the kernel, reset by nothing: %s", v[i].name,
		         v[i].managed ? "__managed__" : "__device__", v[i].line);
		if (t)
			info_row(t, "state", line);
		sb_printf(&names, "%s%s", i ? " " : "", v[i].name);
	}
	free(v);
	return sb_steal(&names);
}

int look_info(app *a, int argc, char **argv)
{
	int *ks = NULL, nk = 0;
	if (pick_kernels(a, argv + 1, argc - 1, &ks, &nk) != 0)
		return -1;
	runctx c;
	if (run_prepare(a, NULL, 1, &c) != 0) {
		free(ks);
		return -1;
	}
	plan *p = xcalloc(1, sizeof *p);
	result *res = xcalloc(1, sizeof *res);
	char *err = NULL;
	int rc = 0;
	for (int i = 0; i < nk; i++) {
		const char *name = a->file.sp->kernels[ks[i]].name;
		int ci = cunit_find(c.u, name);
		if (ci < 0) {
			rc = app_error(a, "info: kernel '%s' is missing from the compiled unit", name);
			continue;
		}
		if (run_plan(a, &c, ks[i], &a->opt.topt, p, &err) != 0) {
			rc = app_error_msg(a, err ? err : "cannot plan the launch");
			free(err);
			err = NULL;
			continue;
		}
		const kres *kr = &c.u->res[ci];
		table t;
		int data = format_is_data(a->format);
		if (!data) {
			kinfo_table(&t, name, c.u->lowered[ci], c.arch, kr, &p->launch, &c.dev, NULL);
			free(state_of(&t, a->file.sp, c.u, ks[i]));
		}
		int ran = 0;
		if (c.gpu) {
			p->info_only = 1;
			if (run_exec(a, &c, p, res, &err) == 0) {
				ran = 1;
				if (!data)
					driver_rows(&t, &c, p, res);
			} else {
				rc = app_error(a, "info: %s: %s", name, err ? err : "the worker failed");
				free(err);
				err = NULL;
			}
		}
		if (data) {
			char *state = state_of(NULL, a->file.sp, c.u, ks[i]);
			kinfo_record(&t, name, c.u->lowered[ci], c.arch, kr, &p->launch, &c.dev, ran ? &res->fn : NULL,
			             state);
			free(state);
		}
		app_table(a, &t, 0);
		table_free(&t);
		struct kinfo_seen *s = seen_find(a, name);
		char changes[512];
		if (s && kinfo_changes(&s->res, &s->launch, kr, &p->launch, &c.dev, changes, sizeof changes) > 0)
			app_note(a, "%s changed: %s", name, changes);
		if (kr->known)
			seen_keep(a, name, kr, &p->launch);
	}
	free(p);
	free(res);
	free(ks);
	run_release(&c);
	return rc;
}

static int cmd_info(app *a, int argc, char **argv, const char *rest)
{
	return look_info(a, argc, argv);
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
