/* inspect.c: roof, device, ptx. */
#include "inspect.h"
#include "run.h"
#include "builtin.h"
#include "clockcheck.h"
#include "devcache.h"
#include "fileio.h"
#include "child.h"
#include "sass.h"
#include "troof.h"
#include "timeline.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
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

/* The memory roof: streaming kernels of cuplay's own, each thread one
 * 16-byte load and/or store, a block per 256 of them (tens of thousands of
 * blocks: every SM full), over buffers of at least 4 L2s so that DRAM, not
 * the L2, serves them. A kernel that moves data can come close to the best
 * of these but not above it; the driver's copy alone is not a ceiling (a
 * float4 copy beats it). */
static const char stream_source[] =
	"// stream_roof.cu: the memory ceiling, for `roof`\n"
	"//@ param  N = max(L2_BYTES * 4, 268435456) / 16\n"
	"//@ buffer src float[N * 4] zero\n"
	"//@ buffer dst float[N * 4] zero output\n"
	"//@ grid   cdiv(N, 256)\n"
	"//@ block  256\n"
	"//@ bytes  2 * N * 16\n"
	"//@ check  none\n"
	"//@ kernel stream_read bytes N * 16\n"
	"//@ kernel stream_write bytes N * 16\n"
	"__global__ void stream_read(const float *__restrict__ src, float *__restrict__ dst, int N)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < N) {\n"
	"\t\tfloat4 v = reinterpret_cast<const float4 *>(src)[i];\n"
	"\t\tif (v.x + v.y + v.z + v.w == 1.0f) /* never, over zeros: keeps the load */\n"
	"\t\t\tdst[i] = 1.0f;\n"
	"\t}\n"
	"}\n"
	"__global__ void stream_write(float *__restrict__ dst, int N)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < N)\n"
	"\t\treinterpret_cast<float4 *>(dst)[i] = make_float4(1.0f, 2.0f, 3.0f, (float)i);\n"
	"}\n"
	"__global__ void stream_copy(const float *__restrict__ src, float *__restrict__ dst, int N)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < N)\n"
	"\t\treinterpret_cast<float4 *>(dst)[i] = reinterpret_cast<const float4 *>(src)[i];\n"
	"}\n";

/* The datasheet's peak: memory clock x bus width x 2 (double data rate),
 * from the driver's attributes; 0 when it gives neither. */
static double datasheet_gbps(const devinfo *d)
{
	if (d->mem_clock_khz <= 0 || d->bus_width_bits <= 0)
		return 0;
	return 2.0 * d->mem_clock_khz * 1e3 * (d->bus_width_bits / 8.0) / 1e9;
}

/* The roofs; with link, the host link's bandwidths too (into a->link_gbps). */
static int roof_measure(app *a, int link)
{
	double gb[3] = { 0 }, gf[3] = { 0 }, copy = 0, fgb[1] = { 0 }, fgf[1] = { 0 }, unused = 0;
	devinfo dev;
	if (run_builtin(a, "<builtin>/stream_roof.cu", stream_source, gb, gf, &copy, NULL, &dev) != 0 ||
	    run_builtin(a, "<builtin>/fma_roof.cu", fma_source, fgb, fgf, &unused, link ? a->link_gbps : NULL, &dev) != 0)
		return -1;
	roofs *r = &a->roof;
	memset(r, 0, sizeof *r);
	r->copy = copy > 0 ? copy : unused;
	r->read = gb[0];
	r->write = gb[1];
	r->stream = gb[2];
	r->best = r->copy;
	for (int i = 0; i < 3; i++)
		if (gb[i] > r->best)
			r->best = gb[i];
	r->peak = datasheet_gbps(&dev);
	r->gflops = fgf[0];
	r->device = a->device + 1;
	return 0;
}

/* The roofs are a property of the device: measured once, kept in the
 * cache directory for later processes (each would spend ~80 ms measuring
 * them before its first run), and measured again by `roof`. */
static char *roof_cache_path(const app *a, const devinfo *d)
{
	const char *src[] = { stream_source, fma_source };
	return builtin_cache_path(a, d, "roof", src, 2);
}

static const char *const roof_keys[] = { "copy", "read", "write", "stream", "best", "peak", "gflops" };

static double *roof_field(roofs *r, int i)
{
	double *f[] = { &r->copy, &r->read, &r->write, &r->stream, &r->best, &r->peak, &r->gflops };
	return f[i];
}

/* Reads the kept roofs into *r: 0, or -1 (no file, or not one this
 * version wrote in full: measured again). */
static int roof_load(const char *path, roofs *r)
{
	char *text = NULL;
	size_t len = 0;
	if (read_file(path, &text, &len) != 0)
		return -1;
	roofs got;
	memset(&got, 0, sizeof got);
	unsigned seen = 0;
	int ok = strncmp(text, "cuplay roof 1\n", 14) == 0;
	for (char *line = ok ? strchr(text, '\n') + 1 : NULL; ok && line && *line;) {
		char *end = strchr(line, '\n');
		if (end)
			*end = 0;
		char key[16];
		double v;
		int n = 0;
		if (sscanf(line, "%15s %lf%n", key, &v, &n) != 2 || line[n] || !(v >= 0 && v < 1e9)) {
			ok = 0;
			break;
		}
		for (int i = 0; i < (int)(sizeof roof_keys / sizeof *roof_keys); i++)
			if (strcmp(key, roof_keys[i]) == 0) {
				*roof_field(&got, i) = v;
				seen |= 1u << i;
			}
		line = end ? end + 1 : NULL;
	}
	free(text);
	unsigned all = (1u << (sizeof roof_keys / sizeof *roof_keys)) - 1;
	if (!ok || seen != all || !(got.best > 0) || !(got.gflops > 0))
		return -1;
	int dev = r->device;
	*r = got;
	r->device = dev;
	return 0;
}

/* Keeps the roofs for later processes; a failure only costs them the
 * measurement. */
static void roof_save(const app *a, const char *path, const roofs *r)
{
	sbuf b = { 0 };
	sb_puts(&b, "cuplay roof 1\n");
	roofs copy = *r;
	for (int i = 0; i < (int)(sizeof roof_keys / sizeof *roof_keys); i++)
		sb_printf(&b, "%s %.17g\n", roof_keys[i], *roof_field(&copy, i));
	devcache_save(a, path, b.s);
	sb_free(&b);
}

/* The kernel clock's check as a data field (null when not checked). */
static void clock_offset_field(app *a, table *t, int row, int col)
{
	if (a->clk_device != a->device + 1 || !a->clk.known)
		return;
	if (a->opt.mask_times)
		table_set(t, row, col, "<t>");
	else
		table_num(t, row, col, a->clk.offset_us);
}

/* The kernel clock's check as a line of text (figures masked with --mask-times). */
static void clock_line(app *a)
{
	if (a->opt.mask_times) {
		app_note(a, "kernel clock: %s", a->clk_device != a->device + 1 ? "not checked yet"
		                                 : a->clk.known ? "checked against the profiler's duration"
		                                                : "not checked");
		return;
	}
	char *t = clock_check_text(a);
	app_note(a, "%s", t);
	free(t);
}

/* The roofs from the cache, else measured and kept: 0, or -1 (said). */
static int roofs_of_device(app *a)
{
	char *path = roof_cache_path(a, &a->worker.dev);
	if (path) {
		a->roof.device = a->device + 1;
		if (roof_load(path, &a->roof) == 0) {
			if (getenv("CUPLAY_TRACE"))
				fprintf(stderr, "trace: roof: the roofs of this device from %s (`roof` measures them again)\n", path);
			free(path);
			return 0;
		}
		memset(&a->roof, 0, sizeof a->roof);
	}
	uint64_t t0 = now_ns();
	int rc = roof_measure(a, 0);
	if (rc == 0 && path)
		roof_save(a, path, &a->roof);
	if (getenv("CUPLAY_TRACE"))
		fprintf(stderr, "trace: roof: the roofs of this device measured in %.1f ms\n", ms_since(t0));
	free(path);
	return rc;
}

/* The roofs and the kernel clock's check from the cache alone: 0 when both
 * were there, 1 when not (the roofs found are kept). */
static int roofs_cached(app *a)
{
	char *path = roof_cache_path(a, &a->worker.dev);
	int have = path && roof_load(path, &a->roof) == 0;
	free(path);
	if (have)
		a->roof.device = a->device + 1;
	else
		memset(&a->roof, 0, sizeof a->roof);
	return have && clock_check_cached(a) ? 0 : 1;
}

int roofs_measure(app *a, int tensor)
{
	if (tensor == ROOFS_TENSOR)
		return troof_measure(a, 0);
	if (tensor == ROOFS_CACHED)
		return roofs_cached(a);
	int rc = roofs_of_device(a);
	/* the kernel clock's check goes with the roofs; its failure (said)
	 * costs only the check; at the prompt a line typed comes first */
	if (!app_gave_way(a))
		clock_check(a, 0);
	return rc;
}

/* `roof` as data: one row of every figure. */
static void roof_data(app *a, const roofs *r, const devinfo *d)
{
	const char *head[] = { "device", "memory_gbps", "copy_gbps", "read_gbps", "write_gbps",
		               "stream_copy_gbps", "datasheet_gbps", "fp32_gflops", "h2d_pageable_gbps",
		               "h2d_pinned_gbps", "d2h_pageable_gbps", "d2h_pinned_gbps" };
	double v[] = { r->best, r->copy, r->read, r->write, r->stream, r->peak, r->gflops,
		       a->link_gbps[LINK_H2D_PAGEABLE], a->link_gbps[LINK_H2D_PINNED],
		       a->link_gbps[LINK_D2H_PAGEABLE], a->link_gbps[LINK_D2H_PINNED] };
	const char *keys[14 + 4 * TP_N]; /* head, the FP32 datasheet, troof_figures', the clock's offset */
	double vals[12 + 4 * TP_N];
	memcpy(keys, head, sizeof head);
	memcpy(vals, v, sizeof v);
	keys[12] = "fp32_datasheet_gflops";
	vals[11] = tensor_datasheet(d->name, d->sm_count, PIPE_FP32, NULL);
	int nt = 12 + troof_figures(a, keys + 13, vals + 12);
	table t;
	keys[1 + nt] = "clock_offset_us";
	table_init(&t, nt + 2, keys, NULL);
	table_kind(&t, "roof");
	int row = table_row(&t);
	table_set(&t, row, 0, "%s", d->name);
	for (int i = 0; i < nt; i++) {
		if ((i == 5 || i >= 7) && !(vals[i] > 0))
			continue; /* unknown: null */
		if (a->opt.mask_times && !strstr(keys[1 + i], "datasheet"))
			table_set(&t, row, 1 + i, "<t>");
		else
			table_num(&t, row, 1 + i, vals[i]);
	}
	clock_offset_field(a, &t, row, 1 + nt);
	app_table(a, &t, 0);
	table_free(&t);
}

/* `roof`'s host link rows. */
static void roof_link_rows(app *a, table *t)
{
	char buf[64];
	int row;
	static const char *const what[LINK_N] = { "host to device, pageable", "host to device, pinned",
	                                          "device to host, pageable", "device to host, pinned" };
	for (int k = 0; k < LINK_N; k++) {
		row = table_row(t);
		table_set(t, row, 0, k == 0 ? "host link" : "");
		if (a->link_gbps[k] > 0)
			snprintf(buf, sizeof buf, "%.1f GB/s", a->link_gbps[k]);
		else
			snprintf(buf, sizeof buf, "unknown");
		table_set(t, row, 1, "%s", a->opt.mask_times ? "<t>" : buf);
		table_set(t, row, 2, "%s, one copy of 64 MiB", what[k]);
	}
}

int app_roof(app *a)
{
	if (roof_measure(a, 1) != 0 || troof_measure(a, 1) != 0)
		return -1;
	char *path = roof_cache_path(a, &a->worker.dev);
	if (path)
		roof_save(a, path, &a->roof);
	free(path);
	if (clock_check(a, 1) != 0)
		return -1;
	const roofs *r = &a->roof;
	const devinfo *d = &a->worker.dev;
	if (format_is_data(a->format)) {
		roof_data(a, r, d);
		return 0;
	}
	const char *head[] = { "roof", "measured", "how" };
	table t;
	table_init(&t, 3, head, "lrl");
	const struct { const char *name; double v; const char *how; } rows[] = {
		{ "memory", r->best, "the best of the four measured below: what every '% of roof' divides by" },
		{ "  copy", r->copy, "device-to-device copy (cuMemcpyDtoDAsync), bytes read + written" },
		{ "  read", r->read, "streaming kernel: one 16-byte load per thread" },
		{ "  write", r->write, "streaming kernel: one 16-byte store per thread" },
		{ "  stream copy", r->stream, "streaming kernel: a 16-byte load and store per thread" },
	};
	char buf[64];
	for (size_t i = 0; i < ARRAY_LEN(rows); i++) {
		int row = table_row(&t);
		snprintf(buf, sizeof buf, "%.0f GB/s", rows[i].v);
		table_set(&t, row, 0, "%s", rows[i].name);
		table_set(&t, row, 1, "%s", a->opt.mask_times ? "<t>" : buf);
		table_set(&t, row, 2, "%s", rows[i].how);
	}
	int row = table_row(&t);
	table_set(&t, row, 0, "  datasheet");
	if (r->peak > 0) {
		snprintf(buf, sizeof buf, "%.0f GB/s", r->peak);
		table_set(&t, row, 1, "%s", a->opt.mask_times ? "<t>" : buf);
		table_set(&t, row, 2, "memory clock %d MHz x %d-bit bus x 2 (the driver's attributes)",
		          d->mem_clock_khz / 1000, d->bus_width_bits);
	} else {
		table_set(&t, row, 1, "unknown");
		table_set(&t, row, 2, "the driver gives no memory clock or bus width");
	}
	row = table_row(&t);
	snprintf(buf, sizeof buf, "%.1f TFLOP/s", r->gflops / 1000);
	table_set(&t, row, 0, "FP32");
	table_set(&t, row, 1, "%s", a->opt.mask_times ? "<t>" : buf);
	double fp32_sheet = tensor_datasheet(d->name, d->sm_count, PIPE_FP32, NULL);
	if (fp32_sheet > 0)
		table_set(&t, row, 2, "fused multiply-adds, 16 chains per thread (CUDA cores); datasheet %.1f TFLOP/s",
		          fp32_sheet / 1000);
	else
		table_set(&t, row, 2, "fused multiply-adds, 16 chains per thread (CUDA cores)");
	troof_rows(a, &t);
	roof_link_rows(a, &t);
	app_note(a, "roof of %s:", d->name);
	app_table(a, &t, 2);
	table_free(&t);
	clock_line(a);
	return 0;
}

int app_timeline_svg(app *a, const char *path)
{
	size_t n = strlen(path);
	if (n < 4 || strcmp(path + n - 4, ".svg") != 0)
		return app_error(a, "timeline: '%s': write an .svg file", path);
	if (!a->timeline.spans)
		return app_error(a, "timeline: %s", a->timeline.why ? a->timeline.why : "no run yet: 'run' a kernel first");
	sbuf b = {0};
	tl_svg(a->timeline.spans, a->timeline.n, a->timeline.title, 1, &b);
	char *err = NULL;
	if (write_sbuf(path, &b, &err) != 0) {
		app_error(a, "timeline: %s", err);
		free(err);
		return -1;
	}
	app_note(a, "wrote %s", path);
	return 0;
}

int app_timeline(app *a, const char *svg_path)
{
	if (svg_path && (strlen(svg_path) < 4 || strcmp(svg_path + strlen(svg_path) - 4, ".svg") != 0))
		return app_error(a, "timeline: '%s': write an .svg file", svg_path);
	if (!a->timeline.spans && a->gpu != 1 && !a->timeline.title) {
		app_note(a, "timeline: skipped (no GPU)");
		return 0;
	}
	if (!a->timeline.spans && a->timeline.unavailable) { /* CUPTI would not: said, not an error of the session */
		app_note(a, "timeline of %s: %s", a->timeline.title, a->timeline.why);
		return 0;
	}
	if (!a->timeline.spans)
		return app_error(a, "timeline: %s", a->timeline.why ? a->timeline.why : "no run yet: 'run' a kernel first");
	sbuf b = {0};
	tl_text(a->timeline.spans, a->timeline.n, a->timeline.title, 80, &b);
	if (a->opt.mask_times) { /* the bars and figures are the GPU's: only the shape is kept */
		sb_free(&b);
		sb_printf(&b, "timeline of %s: %d spans\n", a->timeline.title, a->timeline.n);
	}
	if (a->display && a->format == FMT_TABLE && !a->opt.mask_times) {
		sbuf svg = {0};
		tl_svg(a->timeline.spans, a->timeline.n, a->timeline.title, 0, &svg);
		app_figure(a, b.s, svg.s);
		sb_free(&svg);
	} else {
		fputs(b.s, app_textf(a));
	}
	sb_free(&b);
	if (a->timeline.lost > 0)
		app_note(a, "  %d more spans were not kept (at most %d)", a->timeline.lost, RES_MAX_SPANS);
	a->timeline.plot = 1;
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
		a->device_set = 1;
		if (a->gpu == 1)
			a->gpu = -1;
		memset(&a->roof, 0, sizeof a->roof);
	}
	/* without a GPU, one line says so, why, and what is compiled for */
	int said = a->notice_said;
	a->notice_said = 1;
	int gpu = app_gpu(a);
	a->notice_said = said || gpu == 0;
	if (gpu < 0)
		return -1;
	if (!gpu) {
		int sm = a->opt.arch_sm ? a->opt.arch_sm : 90;
		if (a->opt.no_gpu)
			app_note(a, "compile-only mode (--no-gpu), compiling for sm_%d", sm);
		else
			app_note(a, "%s: compile-only mode, compiling for sm_%d", a->gpu_why ? a->gpu_why : "no GPU", sm);
		return 0;
	}
	char *err = NULL;
	if (wc_device(&a->worker, &err) != 0) { /* the free memory, once the worker's context exists */
		app_error(a, "device: %s", err ? err : "the GPU worker did not answer");
		free(err);
		return -1;
	}
	const devinfo *d = &a->worker.dev;
	if (format_is_data(a->format)) {
		const char *head[] = { "ordinal", "count", "name", "sm", "sm_count", "l2_bytes", "memory_bytes",
			               "free_bytes", "driver", "clock_offset_us" };
		table t;
		table_init(&t, 10, head, NULL);
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
		clock_check_cached(a);
		clock_offset_field(a, &t, r, 9);
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
	clock_check_cached(a);
	clock_line(a);
	return 0;
}

/* Text that is data (ptx, sass) under csv/json: kept in memory, then one
 * record; help and other prose: on stderr. */
static char *cap_buf;
static size_t cap_len;
static FILE *cap_file;
static pid_t pager_pid = -1;

/* 1 when typed input waits on stdin: lines typed ahead, which a pager
 * would read as its own commands (less's `s` saves to a file). */
static int input_waiting(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	return poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP));
}

/* The pager: $PAGER, else less; less in its secure mode either way
 * (LESSSECURE: no shell commands, no files saved or opened from it). Not
 * while lines typed ahead wait: they are the prompt's. */
FILE *pager_open(app *a)
{
	/* a front end's display takes code as a display of its own */
	if (format_is_data(a->format) || (a->display && a->display->show_code)) {
		cap_file = open_memstream(&cap_buf, &cap_len);
		return cap_file ? cap_file : stderr;
	}
	if (!a->opt.interactive || !isatty(STDOUT_FILENO) || input_waiting())
		return stdout;
	const char *pg = getenv("PAGER");
	fflush(stdout);
	char *cmd = xasprintf("LESSSECURE=1; export LESSSECURE; %s", pg && *pg ? pg : "less -FRX");
	FILE *f = child_popen(cmd, &pager_pid);
	free(cmd);
	return f ? f : stdout;
}

void pager_close(app *a, FILE *f, const char *kind, const char *kernel)
{
	if (f && f == cap_file) {
		fclose(f);
		cap_file = NULL;
		if (!format_is_data(a->format)) { /* a display's: code as code, prose as text */
			fflush(stdout);
			if (kind)
				a->display->show_code(a->display->ctx, cap_buf ? cap_buf : "", kind);
			else
				fputs(cap_buf ? cap_buf : "", stdout);
		} else if (kind) {
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
		child_pclose(f, pager_pid);
		pager_pid = -1;
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
