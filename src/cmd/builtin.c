/* builtin.c: timing cuplay's own kernel files; their cache files. */
#include "builtin.h"
#include "run.h"
#include "sha256.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int builtin_with(app *a, const char *what, const char *path, const char *source, builtin_fn fn, void *ctx)
{
	spec *s = xcalloc(1, sizeof *s);
	char *err = NULL;
	if (spec_parse(path, source, s, &err) != 0) {
		app_error(a, "%s: %s", what, err);
		free(err);
		free(s);
		return -1;
	}
	spec *saved = a->file.sp;
	char *saved_path = a->file.path;
	symtab saved_set = a->file.settings;
	a->file.sp = s;
	a->file.path = s->path;
	memset(&a->file.settings, 0, sizeof a->file.settings);
	runctx c;
	int rc = -1;
	plan *p = xcalloc(1, sizeof *p);
	result *res = xcalloc(1, sizeof *res);
	if (run_prepare(a, NULL, 0, &c) == 0) {
		rc = fn(a, &c, p, res, ctx);
		run_release(&c);
	}
	a->file.sp = saved;
	a->file.path = saved_path;
	a->file.settings = saved_set;
	spec_free(s);
	free(s);
	free(p);
	free(res);
	return rc;
}

/* run_builtin's figures, filled kernel by kernel */
typedef struct roofrun {
	double *gbps, *gflops, *copy, *link;
	devinfo *dev;
} roofrun;

static int roof_kernels(app *a, runctx *c, plan *p, result *res, void *ctx)
{
	roofrun *o = ctx;
	const spec *s = a->file.sp;
	char *err = NULL;
	timing_opts t = a->opt.topt;
	/* no flush: the buffers are several L2s, and back-to-back launches
	 * each write back the dirty lines the one before left in L2, so a
	 * writing kernel's samples count all its DRAM writes (a flush
	 * between them would take the last ones out of the timed window) */
	t.flush = 0;
	t.do_check = 0;
	*o->dev = c->dev;
	for (int k = 0; k < s->nkernels; k++) {
		int planned = run_plan(a, c, k, &t, p, &err) == 0;
		p->measure_link = o->link && k == 0;
		if (!planned || run_exec(a, c, p, res, &err) != 0) {
			app_error(a, "roof: %s: %s", s->kernels[k].name, err ? err : "failed");
			free(err);
			return -1;
		}
		stats st;
		stats_compute(res->samples_ms, res->nsamples, &st);
		if (res->status == RES_INTERRUPTED || !(st.median > 0))
			return app_error(a, "roof: %s: not timed", s->kernels[k].name);
		o->gbps[k] = p->bytes / (st.median * 1e-3) / 1e9;
		o->gflops[k] = p->flops / (st.median * 1e-3) / 1e9;
		*o->copy = res->roof_gbps;
		if (o->link && k == 0)
			memcpy(o->link, res->link_gbps, LINK_N * sizeof *o->link);
	}
	return 0;
}

int run_builtin(app *a, const char *path, const char *source, double *gbps, double *gflops,
                double *copy, double *link, devinfo *dev)
{
	roofrun o = { gbps, gflops, copy, link, dev };
	return builtin_with(a, "roof", path, source, roof_kernels, &o);
}

char *builtin_cache_path(const app *a, const devinfo *d, const char *kind, const char *const *sources, int n)
{
	if (!a->cache.dir || !d->name[0])
		return NULL;
	sha256 c;
	uint8_t h[32];
	char hex[65];
	char *id = xasprintf("cuplay-%s 1|%s|%s|%s|%" PRIu64 "|%d.%d|%d|%d|%d|%d|%d", kind, CUPLAY_VERSION, d->name,
	                     d->pci_bus_id, d->total_mem, d->cc_major, d->cc_minor, d->sm_count, d->clock_khz,
	                     d->mem_clock_khz, d->bus_width_bits, d->driver_version);
	sha256_init(&c);
	sha256_update(&c, id, strlen(id));
	for (int i = 0; i < n; i++)
		sha256_update(&c, sources[i], strlen(sources[i]) + 1);
	sha256_final(&c, h);
	sha256_hex(h, hex);
	free(id);
	hex[32] = 0;
	return xasprintf("%s/%s-%s", a->cache.dir, kind, hex);
}
