/* cmd_roof.c: the `roof` command: the device's memory, FP32 and tensor roofs, measured once and kept per device; its entry beside its handler. */
#include "cmd_roof.h"
#include "builtin.h"
#include "clockcheck.h"
#include "devcache.h"
#include "troof.h"

#include <stdlib.h>
#include <string.h>

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
	if (have && getenv("CUPLAY_TRACE"))
		fprintf(stderr, "trace: roof: the roofs of this device from %s (`roof` measures them again)\n", path);
	free(path);
	if (have)
		a->roof.device = a->device + 1;
	else
		memset(&a->roof, 0, sizeof a->roof);
	return have && clock_check_cached(a) ? 0 : 1;
}

int roof_measure_now(app *a, int tensor)
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

static int cmd_roof(app *a, int argc, char **argv, const char *rest)
{
	return app_roof(a);
}

static const char lh_roof[] =
	"Measures the GPU's memory ceiling and its FP32 throughput (chains of fused "
	"multiply-adds): the roofs that 'run' gives as a %. The memory roof is the best of a "
	"device-to-device copy and cuplay's streaming kernels (16-byte loads and stores: read "
	"only, write only, copy, tens of thousands of blocks); the datasheet's peak (memory "
	"clock x bus width x 2) is shown beside it, 'unknown' when the driver gives neither. "
	"They are measured once per device, before its first run, and kept in the cache directory, "
	"so later processes start without measuring; 'roof' measures them again. It also measures the host "
	"link, each way, from pageable and from pinned memory (a copy of 64 MiB): the roof of a "
	"run on host data, whose copies could at best go both ways at once at the link's speed.\n"
	"\n"
	"On sm_80 and later it measures the tensor cores too, one roof per precision (FP16 and BF16 "
	"with FP32 accumulate, TF32, INT8, FP8 from sm_89): cuplay's own kernels keep every SM's "
	"tensor cores busy from registers, through mma.sync and, on sm_90, through wgmma (compiled for "
	"sm_90a); the roof is the better of the two, shown beside the datasheet's dense figure (a table "
	"of NVIDIA's datasheets by device name and SM count; 'unknown' for a device not in it). "
	"explain and roofline hold a kernel on the tensor cores against its precision's roof. The tensor "
	"roofs are measured when first needed and kept in the cache directory like the others.\n"
	"\n"
	"Example:\n"
	"  roof\n";
const command cmd_roof_entry = {
	.name = "roof",
	.fn = cmd_roof,
	.args = "",
	.help = "measure memory, FP32, tensor and host link ceilings",
	.min_args = 0,
	.max_args = 0,
	.flags = CMD_NEEDS_GPU,
	.compl = COMPL_NONE,
	.long_help = lh_roof,
};
