/* inspect.c: roof, device, ptx. */
#include "inspect.h"
#include "fileio.h"
#include "sass.h"
#include "timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The FP32 roof: eight independent FMA chains per thread, enough threads to
 * fill every SM, so the FMA pipes and not latency set the pace. */
static const char fma_source[] =
	"// fma_roof.cu: FP32 FMA throughput, for `roof`\n"
	"//@ param  N = SM_COUNT * 2048 * 4\n"
	"//@ param  ITERS = 2048\n"
	"//@ buffer out float[N] zero output\n"
	"//@ grid   cdiv(N, 256)\n"
	"//@ block  256\n"
	"//@ flops  N * ITERS * 16 * 2\n"
	"//@ check  none\n"
	"__global__ void fma_roof(float *out, int N, int ITERS)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tfloat x = (float)i * 1e-7f, b = 0.999999f, c = 1e-7f;\n"
	"\tfloat v[16];\n"
	"#pragma unroll\n"
	"\tfor (int k = 0; k < 16; k++)\n"
	"\t\tv[k] = x + k;\n"
	"\tfor (int it = 0; it < ITERS; it++) {\n"
	"#pragma unroll\n"
	"\t\tfor (int k = 0; k < 16; k++)\n"
	"\t\t\tv[k] = fmaf(v[k], b, c);\n"
	"\t}\n"
	"\tfloat s = 0.0f;\n"
	"#pragma unroll\n"
	"\tfor (int k = 0; k < 16; k++)\n"
	"\t\ts += v[k];\n"
	"\tif (i < N)\n"
	"\t\tout[i] = s;\n"
	"}\n";

int app_roof(app *a)
{
	spec *s = xcalloc(1, sizeof *s);
	char *err = NULL;
	if (spec_parse("<builtin>/fma_roof.cu", fma_source, s, &err) != 0) {
		app_error(a, "roof: %s", err);
		free(err);
		free(s);
		return -1;
	}
	/* run it as if it were the loaded file, then put the user's file back */
	spec *saved = a->sp;
	char *saved_path = a->path;
	symtab saved_set = a->settings;
	a->sp = s;
	a->path = s->path;
	memset(&a->settings, 0, sizeof a->settings);
	runctx c;
	int rc = -1;
	plan *p = xcalloc(1, sizeof *p);
	result *res = xcalloc(1, sizeof *res);
	if (run_prepare(a, NULL, 0, &c) == 0) {
		timing_opts t = a->topt;
		t.flush = 0;
		t.do_check = 0;
		int planned = run_plan(a, &c, 0, &t, p, &err) == 0;
		p->measure_link = 1;
		if (planned && run_exec(a, &c, p, res, &err) == 0) {
			stats st;
			stats_compute(res->samples_ms, res->nsamples, &st);
			a->roof_gflops = p->flops / (st.median * 1e-3) / 1e9;
			a->roof_gbps = res->roof_gbps;
			memcpy(a->link_gbps, res->link_gbps, sizeof a->link_gbps);
			rc = 0;
		} else {
			app_error(a, "roof: %s", err ? err : "failed");
			free(err);
		}
		run_release(&c);
	}
	a->sp = saved;
	a->path = saved_path;
	a->settings = saved_set;
	spec_free(s);
	free(s);
	free(p);
	free(res);
	if (rc == 0 && format_is_data(a->format)) {
		const char *head[] = { "device", "memory_gbps", "fp32_gflops", "h2d_pageable_gbps", "h2d_pinned_gbps",
		                       "d2h_pageable_gbps", "d2h_pinned_gbps" };
		table t;
		table_init(&t, 7, head, NULL);
		table_kind(&t, "roof");
		table_set(&t, 0 * table_row(&t), 0, "%s", a->worker.dev.name);
		double figs[6] = { a->roof_gbps, a->roof_gflops, a->link_gbps[LINK_H2D_PAGEABLE],
		                   a->link_gbps[LINK_H2D_PINNED], a->link_gbps[LINK_D2H_PAGEABLE],
		                   a->link_gbps[LINK_D2H_PINNED] };
		for (int i = 0; i < 6; i++) {
			if (a->mask_times)
				table_set(&t, 0, 1 + i, "<t>");
			else if (figs[i] > 0)
				table_num(&t, 0, 1 + i, figs[i]);
		}
		app_table(a, &t, 0);
		table_free(&t);
	} else if (rc == 0) {
		char g[32], f[32];
		snprintf(g, sizeof g, "%.0f GB/s", a->roof_gbps);
		snprintf(f, sizeof f, "%.1f TFLOP/s", a->roof_gflops / 1000);
		app_note(a, "roof of %s:", a->worker.dev.name);
		app_note(a, "  memory  %s  device-to-device copy, bytes read + written", a->mask_times ? "<t>" : g);
		app_note(a, "  FP32    %s  fused multiply-adds, 16 chains per thread", a->mask_times ? "<t>" : f);
		static const char *const what[LINK_N] = { "host to device, pageable", "host to device, pinned",
		                                          "device to host, pageable", "device to host, pinned" };
		for (int k = 0; k < LINK_N; k++) {
			char l[32];
			snprintf(l, sizeof l, a->link_gbps[k] > 0 ? "%.1f GB/s" : "unknown", a->link_gbps[k]);
			app_note(a, "  link    %s  %s, one copy of 64 MiB", a->mask_times ? "<t>" : l, what[k]);
		}
	}
	return rc;
}

int app_timeline_svg(app *a, const char *path)
{
	size_t n = strlen(path);
	if (n < 4 || strcmp(path + n - 4, ".svg") != 0)
		return app_error(a, "timeline: '%s': write an .svg file", path);
	if (!a->tl)
		return app_error(a, "timeline: %s", a->tl_why ? a->tl_why : "no run yet: 'run' a kernel first");
	sbuf b = {0};
	tl_svg(a->tl, a->ntl, a->tl_title, 1, &b);
	char *why = NULL;
	int r = write_file(path, b.s, b.len, &why);
	sb_free(&b);
	if (r != 0) {
		app_error(a, "timeline: cannot write '%s': %s", path, why);
		free(why);
		return -1;
	}
	app_note(a, "wrote %s", path);
	return 0;
}

int app_timeline(app *a, const char *svg_path)
{
	if (svg_path && (strlen(svg_path) < 4 || strcmp(svg_path + strlen(svg_path) - 4, ".svg") != 0))
		return app_error(a, "timeline: '%s': write an .svg file", svg_path);
	if (!a->tl && a->gpu != 1 && !a->tl_title) {
		app_note(a, "timeline: skipped (no GPU)");
		return 0;
	}
	if (!a->tl && a->tl_unavailable) { /* CUPTI would not: said, not an error of the session */
		app_note(a, "timeline of %s: %s", a->tl_title, a->tl_why);
		return 0;
	}
	if (!a->tl)
		return app_error(a, "timeline: %s", a->tl_why ? a->tl_why : "no run yet: 'run' a kernel first");
	sbuf b = {0};
	tl_text(a->tl, a->ntl, a->tl_title, 80, &b);
	if (a->mask_times) { /* the bars and figures are the GPU's: only the shape is kept */
		sb_free(&b);
		sb_printf(&b, "timeline of %s: %d spans\n", a->tl_title, a->ntl);
	}
	fputs(b.s, app_textf(a));
	sb_free(&b);
	if (a->tl_lost > 0)
		app_note(a, "  %d more spans were not kept (at most %d)", a->tl_lost, RES_MAX_SPANS);
	a->plot_timeline = 1;
	return svg_path ? app_timeline_svg(a, svg_path) : 0;
}

int app_device(app *a, int argc, char **argv)
{
	if (argc > 1) {
		char *end;
		long n = strtol(argv[1], &end, 10);
		if (end == argv[1] || *end || n < 0 || n > 1023)
			return app_error(a, "device: '%s' is not a device number", argv[1]);
		if (a->gpu == 1 && a->worker.dev.count > 0 && n >= a->worker.dev.count)
			return app_error(a, "device: no GPU %ld (this machine has %d)", n, a->worker.dev.count);
		if (a->worker.pid)
			wc_stop(&a->worker);
		a->device = (int)n;
		if (a->gpu == 1)
			a->gpu = -1;
		a->roof_gbps = a->roof_gflops = 0;
	}
	/* without a GPU, one line says so, why, and what is compiled for */
	int said = a->notice_said;
	a->notice_said = 1;
	int gpu = app_gpu(a);
	a->notice_said = said || gpu == 0;
	if (gpu < 0)
		return -1;
	if (!gpu) {
		int sm = a->arch_sm ? a->arch_sm : 90;
		if (a->no_gpu)
			app_note(a, "compile-only mode (--no-gpu), compiling for sm_%d", sm);
		else
			app_note(a, "%s: compile-only mode, compiling for sm_%d", a->gpu_why ? a->gpu_why : "no GPU", sm);
		return 0;
	}
	const devinfo *d = &a->worker.dev;
	if (format_is_data(a->format)) {
		const char *head[] = { "ordinal", "count", "name", "sm", "sm_count", "l2_bytes", "memory_bytes",
			               "free_bytes", "driver" };
		table t;
		table_init(&t, 9, head, NULL);
		table_kind(&t, "device");
		int r = table_row(&t);
		table_num(&t, r, 0, d->ordinal);
		table_num(&t, r, 1, d->count);
		table_set(&t, r, 2, "%s", d->name);
		table_num(&t, r, 3, d->cc_major * 10 + d->cc_minor);
		table_num(&t, r, 4, d->sm_count);
		table_num(&t, r, 5, (double)d->l2_bytes);
		table_num(&t, r, 6, (double)d->total_mem);
		table_num(&t, r, 7, (double)d->free_mem);
		table_set(&t, r, 8, "%d.%d", d->driver_version / 1000, d->driver_version % 1000 / 10);
		app_table(a, &t, 0);
		table_free(&t);
		return 0;
	}
	char mem[32], fr[32], l2[32];
	fmt_bytes((double)d->total_mem, mem, sizeof mem);
	fmt_bytes((double)d->free_mem, fr, sizeof fr);
	fmt_bytes((double)d->l2_bytes, l2, sizeof l2);
	app_note(a, "GPU %d of %d: %s, sm_%d%d, %d SMs, %s L2, %s memory (%s free), driver %d.%d",
	         d->ordinal, d->count, d->name, d->cc_major, d->cc_minor, d->sm_count, l2, mem, fr,
	         d->driver_version / 1000, d->driver_version % 1000 / 10);
	return 0;
}

/* Text that is data (ptx, sass) under csv/json: kept in memory, then one
 * record; help and other prose: on stderr. */
static char *cap_buf;
static size_t cap_len;
static FILE *cap_file;

FILE *pager_open(app *a)
{
	if (format_is_data(a->format)) {
		cap_file = open_memstream(&cap_buf, &cap_len);
		return cap_file ? cap_file : stderr;
	}
	if (!a->interactive || !isatty(STDOUT_FILENO))
		return stdout;
	const char *pg = getenv("PAGER");
	fflush(stdout);
	FILE *f = popen(pg && *pg ? pg : "less -FRX", "w");
	return f ? f : stdout;
}

void pager_close(app *a, FILE *f, const char *kind, const char *kernel)
{
	if (f && f == cap_file) {
		fclose(f);
		cap_file = NULL;
		if (kind) {
			const char *head[] = { "kernel", "text" };
			table t;
			table_init(&t, 2, head, "ll");
			table_kind(&t, kind);
			int r = table_row(&t);
			table_set(&t, r, 0, "%s", kernel ? kernel : "");
			table_set(&t, r, 1, "%s", cap_buf ? cap_buf : "");
			app_table(a, &t, 0);
			table_free(&t);
		} else {
			fputs(cap_buf ? cap_buf : "", stderr);
		}
		free(cap_buf);
		cap_buf = NULL;
		cap_len = 0;
	} else if (f && f != stdout && f != stderr) {
		pclose(f);
	} else {
		fflush(stdout);
	}
}

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
	if (run_prepare(a, NULL, 0, &c) != 0)
		return -1;
	int ci = cunit_find(c.u, a->sp->kernels[k].name);
	if (!c.u->ptx || ci < 0) {
		run_release(&c);
		return app_error(a, "ptx: NVRTC kept no PTX for '%s'", a->sp->kernels[k].name);
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
	sass_src src = { a->sp->path, a->sp->src };
	char *annotated = ptx_extract(ptx, c.u->lowered[ci], &src, 1);
	FILE *f = pager_open(a);
	fprintf(f, "// %s: %s  (%s)\n", a->sp->kernels[k].name, c.vline, c.u->options);
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
	pager_close(a, f, "ptx", a->sp->kernels[k].name);
	free(annotated);
	free(entry);
	run_release(&c);
	return 0;
}
