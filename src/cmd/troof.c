/* troof.c: the tensor roofs. */
#include "troof.h"
#include "builtin.h"
#include "devcache.h"
#include "fileio.h"
#include "roofsrc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kernel files of this device: the mma.sync one (NULL before sm_80)
 * and the wgmma one (sm_90 only). */
static void sources(const devinfo *d, char **mma, char **wg)
{
	int sm = d->cc_major * 10 + d->cc_minor;
	*mma = roofsrc_mma(sm);
	*wg = roofsrc_wgmma(sm);
}

/* Times one file's kernels into fig[precision] (0 where the file lacks it). */
static int time_file(app *a, const char *path, const char *src, int wg, double *fig)
{
	double gb[ROOF_NPREC + 1] = { 0 }, gf[ROOF_NPREC + 1] = { 0 }, copy = 0;
	devinfo dev;
	if (run_builtin(a, path, src, gb, gf, &copy, NULL, &dev) != 0)
		return -1;
	/* the kernels come in the file's order: the precisions it has */
	int k = 0;
	for (int p = 0; p < ROOF_NPREC; p++)
		if (strstr(src, roofsrc_kernel(p, wg)))
			fig[p] = gf[k++];
	return 0;
}

static const char *const magic = "cuplay tensor roof 1\n";

static int troof_load(const char *path, troofs *r)
{
	char *text = NULL;
	if (read_file(path, &text, NULL) != 0)
		return -1;
	troofs got;
	memset(&got, 0, sizeof got);
	int ok = strncmp(text, magic, strlen(magic)) == 0, seen = 0;
	for (char *line = ok ? text + strlen(magic) : NULL; ok && line && *line;) {
		char *end = strchr(line, '\n');
		if (end)
			*end = 0;
		char key[16], how[8];
		double v;
		int n = 0;
		if (sscanf(line, "%15s %7s %lf%n", key, how, &v, &n) != 3 || line[n] || !(v >= 0 && v < 1e10)) {
			ok = 0;
			break;
		}
		int p = tensor_prec_find(key);
		if (p < 0 || p >= TP_N || (strcmp(how, "mma") != 0 && strcmp(how, "wgmma") != 0)) {
			ok = 0;
			break;
		}
		if (how[0] == 'm')
			got.mma[p] = v;
		else
			got.wgmma[p] = v;
		seen++;
		line = end ? end + 1 : NULL;
	}
	free(text);
	if (!ok || seen != 2 * TP_N)
		return -1;
	for (int p = 0; p < TP_N; p++)
		got.roof[p] = got.mma[p] > got.wgmma[p] ? got.mma[p] : got.wgmma[p];
	int dev = r->device;
	*r = got;
	r->device = dev;
	return 0;
}

static void troof_save(const app *a, const char *path, const troofs *r)
{
	sbuf b = {0};
	sb_puts(&b, magic);
	for (int p = 0; p < TP_N; p++)
		sb_printf(&b, "%s mma %.17g\n%s wgmma %.17g\n", tensor_prec_key(p), r->mma[p], tensor_prec_key(p),
		          r->wgmma[p]);
	devcache_save(a, path, b.s);
	sb_free(&b);
}

int troof_measure(app *a, int fresh)
{
	const devinfo *d = &a->worker.dev;
	char *mma, *wg;
	sources(d, &mma, &wg);
	const char *src[2] = { mma ? mma : "", wg ? wg : "" };
	char *path = builtin_cache_path(a, d, "troof", src, 2);
	troofs *r = &a->troof;
	memset(r, 0, sizeof *r);
	r->device = a->device + 1;
	int rc = 0;
	if (!fresh && path && troof_load(path, r) == 0) {
		if (getenv("CUPLAY_TRACE"))
			fprintf(stderr, "trace: roof: the tensor roofs of this device from %s\n", path);
	} else {
		memset(r, 0, sizeof *r);
		r->device = a->device + 1;
		if ((mma && time_file(a, "<builtin>/tensor_roof.cu", mma, 0, r->mma) != 0) ||
		    (wg && time_file(a, "<builtin>/tensor_roof_sm90a.cu", wg, 1, r->wgmma) != 0))
			rc = -1;
		for (int p = 0; p < TP_N; p++)
			r->roof[p] = r->mma[p] > r->wgmma[p] ? r->mma[p] : r->wgmma[p];
		if (rc == 0 && path)
			troof_save(a, path, r);
	}
	free(path);
	free(mma);
	free(wg);
	return rc;
}

/* "989 TFLOP/s" ("TOP/s" for INT8); mask: measured figures as <t>. */
static void fmt_tflops(char *buf, size_t n, double gflops, int p, int mask)
{
	if (mask && gflops > 0)
		snprintf(buf, n, "<t>");
	else if (gflops > 0)
		snprintf(buf, n, "%.0f T%s/s", gflops / 1000, p == TP_INT8 ? "OP" : "FLOP");
	else
		snprintf(buf, n, "-");
}

void troof_rows(app *a, table *t)
{
	const devinfo *d = &a->worker.dev;
	if (a->troof.device != a->device + 1)
		return;
	int any = 0;
	for (int p = 0; p < TP_N; p++)
		any |= a->troof.roof[p] > 0;
	int row = table_row(t);
	table_set(t, row, 0, "tensor");
	if (!any) {
		table_set(t, row, 1, "none");
		table_set(t, row, 2, "sm_%d%d: no mma.sync of the shapes cuplay measures (sm_80 and later)", d->cc_major,
		          d->cc_minor);
		return;
	}
	table_set(t, row, 2, "dense matrix multiplies, cuplay's own kernels, no memory traffic: the best of "
	          "mma.sync and wgmma; datasheet beside");
	const char *src = NULL;
	for (int p = 0; p < TP_N; p++) {
		const troofs *r = &a->troof;
		char m[32], w[32], ds[32], buf[32];
		fmt_tflops(buf, sizeof buf, r->roof[p], p, a->opt.mask_times);
		fmt_tflops(m, sizeof m, r->mma[p], p, a->opt.mask_times);
		fmt_tflops(w, sizeof w, r->wgmma[p], p, a->opt.mask_times);
		const char *s1 = NULL;
		double sheet = tensor_datasheet(d->name, d->sm_count, p, &s1);
		if (s1)
			src = s1;
		if (sheet > 0)
			fmt_tflops(ds, sizeof ds, sheet, p, 0);
		else
			snprintf(ds, sizeof ds, "unknown");
		row = table_row(t);
		table_set(t, row, 0, "  %s", tensor_prec_name(p));
		table_set(t, row, 1, "%s", r->roof[p] > 0 ? buf : "-");
		if (!(r->roof[p] > 0))
			table_set(t, row, 2, "the device has no %s tensor instruction", tensor_prec_name(p));
		else
			table_set(t, row, 2, "mma.sync %s, wgmma %s; datasheet %s", m, w, ds);
	}
	if (src) {
		row = table_row(t);
		table_set(t, row, 0, "  datasheet");
		table_set(t, row, 2, "%s (%s, %d SMs)", src, d->name, d->sm_count);
	} else {
		row = table_row(t);
		table_set(t, row, 0, "  datasheet");
		table_set(t, row, 2, "unknown: cuplay has no datasheet row for '%s' with %d SMs", d->name, d->sm_count);
	}
}

int troof_figures(app *a, const char **keys, double *v)
{
	static char names[4 * TP_N][40];
	const devinfo *d = &a->worker.dev;
	int n = 0;
	for (int p = 0; p < TP_N; p++) {
		const char *k = tensor_prec_key(p);
		double f[4] = { a->troof.roof[p], a->troof.mma[p], a->troof.wgmma[p],
			        tensor_datasheet(d->name, d->sm_count, p, NULL) };
		const char *what[4] = { "", "_mma", "_wgmma", "_datasheet" };
		for (int i = 0; i < 4; i++) {
			snprintf(names[n], sizeof names[n], "%s%s_gflops", k, what[i]);
			keys[n] = names[n];
			v[n++] = f[i];
		}
	}
	return n;
}
