/* prefetch.c: the compile the next `run` will want, started when a value
 * is typed (prefetch.h). */
#include "prefetch.h"
#include "ccache.h"
#include "ccserver.h"
#include "plan.h"
#include "spec_find.h"
#include "target.h"

#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

void app_prefetch_note_run(app *a, const int *ks, int nk)
{
	app_prefetch_memo *m = &a->last_run;
	app_free_list(m->names, m->n);
	free(m->path);
	m->names = xcalloc((size_t)nk + 1, sizeof *m->names);
	m->n = 0;
	for (int i = 0; i < nk; i++)
		m->names[m->n++] = xstrdup(a->file.sp->kernels[ks[i]].name);
	m->path = a->file.path ? xstrdup(a->file.path) : NULL;
}

/* The kernels of the file's last run, else every one `run` runs: their
 * indices (caller frees), or NULL when none. */
static int *kernels_next(const app *a, int *nk)
{
	const spec *s = a->file.sp;
	const app_prefetch_memo *m = &a->last_run;
	int *ks = xcalloc((size_t)s->nkernels + 1, sizeof *ks);
	*nk = 0;
	if (m->path && a->file.path && strcmp(m->path, a->file.path) == 0)
		for (int i = 0; i < m->n; i++) {
			int k = spec_kernel_find(s, m->names[i]);
			if (k >= 0 && spec_kernel_launchable(s, k))
				ks[(*nk)++] = k;
		}
	if (*nk == 0)
		for (int i = 0; i < s->nkernels; i++)
			if (spec_kernel_in_all(s, i))
				ks[(*nk)++] = i;
	if (*nk == 0) {
		free(ks);
		return NULL;
	}
	return ks;
}

/* The device a run would compile for, as run_prepare finds it, without a
 * word: 0, or -1 when it is not known yet (the worker still starting) or
 * the file's targets do not run on it. */
static int quiet_target(app *a, const spec *s, devinfo *dev, char *arch, size_t n)
{
	int gpu;
	app_gpu_ready(a); /* the worker's device, where it has said it */
	if (a->opt.no_gpu || a->gpu == 0) {
		gpu = 0;
		devinfo_for_arch(a->opt.arch_sm ? a->opt.arch_sm : 90, dev);
	} else if (a->gpu == 1) {
		gpu = 1;
		*dev = a->worker.dev;
	} else {
		return -1;
	}
	int cc = dev->cc_major * 10 + dev->cc_minor;
	if (s->narch == 0) {
		snprintf(arch, n, "sm_%d", a->opt.arch_sm ? a->opt.arch_sm : gpu ? cc : 90);
		return 0;
	}
	int i = target_pick(s->arch, s->narch, cc);
	if (i < 0 && gpu)
		return -1;
	target_resolve(&s->arch[i < 0 ? 0 : i], cc, arch, n);
	return 0;
}

void app_prefetch(app *a)
{
	const spec *s = a->file.sp;
	/* at the prompt alone: a replay's lines come at once, and what it
	 * prints must not depend on how far a compile had got */
	if (!s || !a->opt.interactive || !ccs_enabled()) {
		ccache_cancel(&a->cache);
		return;
	}
	devinfo dev;
	char arch[24];
	int nk = 0;
	int *ks = NULL;
	symtab vals = {0};
	char *err = NULL;
	if (quiet_target(a, s, &dev, arch, sizeof arch) != 0 || (ks = kernels_next(a, &nk)) == NULL ||
	    plan_values(s, &a->file.settings, &dev, &vals, &err) != 0) {
		/* values a run would refuse: nothing worth compiling */
		free(err);
		free(ks);
		symtab_free(&vals);
		ccache_cancel(&a->cache);
		return;
	}
	int ndefs;
	char **defs = plan_defines(s, &vals, &ndefs);
	ccache_prefetch_some(&a->cache, s, ks, nk, (const char *const *)defs, ndefs, arch);
	app_free_list(defs, ndefs);
	symtab_free(&vals);
	free(ks);
}

void app_prefetch_cancel(app *a)
{
	ccache_cancel(&a->cache);
}

/* The defines of the current file with the settings and extra (caller
 * frees), or NULL when a run would refuse the values. */
static char **defines_with(const app *a, const devinfo *dev, const symtab *extra, int *ndefs)
{
	symtab merged = {0}, vals = {0};
	for (int i = 0; i < a->file.settings.n; i++)
		symtab_set(&merged, a->file.settings.v[i].name, a->file.settings.v[i].v, 0);
	for (int i = 0; extra && i < extra->n; i++)
		symtab_set(&merged, extra->v[i].name, extra->v[i].v, 0);
	char *err = NULL;
	char **defs = NULL;
	if (plan_values(a->file.sp, &merged, dev, &vals, &err) == 0)
		defs = plan_defines(a->file.sp, &vals, ndefs);
	free(err);
	symtab_free(&merged);
	symtab_free(&vals);
	return defs;
}

void app_compile_ahead(app *a, const ahead_item *items, int n)
{
	const spec *s = a->file.sp;
	devinfo dev;
	char arch[24];
	if (!s || n < 2 || quiet_target(a, s, &dev, arch, sizeof arch) != 0)
		return;
	cc_item *it = xcalloc((size_t)n, sizeof *it);
	char ***defs = xcalloc((size_t)n, sizeof *defs);
	int *nd = xcalloc((size_t)n, sizeof *nd);
	int m = 0;
	for (int i = 0; i < n; i++) {
		defs[i] = defines_with(a, &dev, items[i].extra, &nd[i]);
		if (defs[i])
			it[m++] = (cc_item){ (const char *const *)defs[i], nd[i], items[i].ks, items[i].nk };
	}
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	ccache_compile_batch(&a->cache, s, it, m, arch, cores > 0 ? (int)cores : 1);
	for (int i = 0; i < n; i++)
		app_free_list(defs[i], nd[i]);
	free(defs);
	free(nd);
	free(it);
}
