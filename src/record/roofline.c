/* roofline.c: the roofline chart, as text and as SVG. */
#include "roofline.h"
#include "chart.h"
#include "fileio.h"
#include "measure.h"
#include "tensor.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void roofline_init(roofline *r, const char *title, double mem_gbps, double fp32_gflops)
{
	memset(r, 0, sizeof *r);
	r->title = xstrdup(title ? title : "");
	r->mem_gbps = mem_gbps > 0 ? mem_gbps : 0;
	r->fp32_gflops = fp32_gflops > 0 ? fp32_gflops : 0;
}

void roofline_set_tensor(roofline *r, int p, double gflops)
{
	if (p >= 0 && p < TP_N)
		r->tensor[p] = gflops > 0 ? gflops : 0;
}

double roofline_top(const roofline *r, int pipe)
{
	return pipe >= 0 && pipe < TP_N && r->tensor[pipe] > 0 ? r->tensor[pipe] : r->fp32_gflops;
}

/* The tensor precisions drawn: those of a placed kernel, with a roof. */
static int drawn(const roofline *r, int p)
{
	if (r->tensor[p] <= 0)
		return 0;
	for (int i = 0; i < r->n; i++)
		if (r->pts[i].pipe == p)
			return 1;
	return 0;
}

void roofline_add(roofline *r, const char *label, double intensity, double gflops, int declared)
{
	roofline_add_on(r, label, intensity, gflops, declared, PIPE_FP32);
}

void roofline_add_on(roofline *r, const char *label, double intensity, double gflops, int declared, int pipe)
{
	if (!(intensity > 0) || !(gflops > 0) || !isfinite(intensity) || !isfinite(gflops))
		return;
	r->pts = xrealloc(r->pts, (size_t)(r->n + 1) * sizeof *r->pts);
	roof_point *p = &r->pts[r->n++];
	p->label = xstrdup(label ? label : "");
	p->intensity = intensity;
	p->gflops = gflops;
	p->declared = declared;
	p->pipe = pipe;
}

void roofline_free(roofline *r)
{
	for (int i = 0; i < r->n; i++)
		free(r->pts[i].label);
	free(r->pts);
	free(r->title);
	memset(r, 0, sizeof *r);
}

static double met_of(const measurement *m, const char *name)
{
	for (int i = 0; i < m->nmet; i++)
		if (strcmp(m->met_names[i], name) == 0)
			return m->met_values[i];
	return NAN;
}

int roofline_place(const measurement *m, double *intensity, int *declared)
{
	if (!m->launched || !m->timed || !(m->flops > 0) || !(m->gflops > 0))
		return -1;
	double dram = met_of(m, "dram_read") + met_of(m, "dram_write");
	*declared = !(dram > 0);
	double bytes = *declared ? m->bytes : dram;
	if (!(bytes > 0))
		return -1;
	*intensity = m->flops / bytes;
	return 0;
}

double roofline_roof_on(const roofline *r, double x, int pipe)
{
	double top = roofline_top(r, pipe);
	double m = r->mem_gbps > 0 ? r->mem_gbps * x : INFINITY;
	double f = top > 0 ? top : INFINITY;
	double v = m < f ? m : f;
	return isfinite(v) ? v : 0;
}

double roofline_roof(const roofline *r, double x)
{
	return roofline_roof_on(r, x, PIPE_FP32);
}

/* The axes' ranges: whole decades around the points and the ridge. */
static void ranges(const roofline *r, double *x0, double *x1, double *y0, double *y1)
{
	double lo = INFINITY, hi = 0, ylo = INFINITY, yhi = 0;
	for (int i = 0; i < r->n; i++) {
		lo = fmin(lo, r->pts[i].intensity);
		hi = fmax(hi, r->pts[i].intensity);
		ylo = fmin(ylo, r->pts[i].gflops);
		yhi = fmax(yhi, r->pts[i].gflops);
	}
	if (r->mem_gbps > 0 && r->fp32_gflops > 0) {
		double ridge = r->fp32_gflops / r->mem_gbps;
		lo = fmin(lo, ridge);
		hi = fmax(hi, ridge);
	}
	if (r->fp32_gflops > 0)
		yhi = fmax(yhi, r->fp32_gflops);
	for (int p = 0; p < TP_N; p++)
		if (drawn(r, p))
			yhi = fmax(yhi, r->tensor[p]);
	if (!isfinite(lo)) {
		lo = 0.1;
		hi = 100;
	}
	if (!isfinite(ylo))
		ylo = yhi > 0 ? yhi / 1000 : 1;
	if (!(yhi > 0))
		yhi = ylo * 1000;
	*x0 = pow(10, floor(log10(lo) - 0.3));
	*x1 = pow(10, ceil(log10(hi) + 0.3));
	*y0 = pow(10, floor(log10(ylo) - 0.3));
	*y1 = pow(10, ceil(log10(yhi) + 0.1));
}

static double frac(double v, double a, double b)
{
	return (log10(v) - log10(a)) / (log10(b) - log10(a));
}

static void legend_line(const roofline *r, int i, sbuf *b, int letters)
{
	const roof_point *p = &r->pts[i];
	double roof = roofline_roof_on(r, p->intensity, p->pipe);
	double top = roofline_top(r, p->pipe);
	int tensor = p->pipe >= 0 && p->pipe < TP_N && r->tensor[p->pipe] > 0;
	if (letters)
		sb_printf(b, "  %c  ", i < 26 ? 'A' + i : '*');
	sb_printf(b, "%s: %.3g FLOP/B%s, %.0f GFLOP/s", p->label, p->intensity,
	          p->declared ? " (declared bytes)" : "", p->gflops);
	if (p->pipe >= 0 && p->pipe < TP_N)
		sb_printf(b, " on the %s tensor cores", tensor_prec_name(p->pipe));
	if (roof > 0)
		sb_printf(b, ", %.0f%% of the %s%s roof above it", 100 * p->gflops / roof,
		          r->mem_gbps > 0 && r->mem_gbps * p->intensity < top ? "memory" : tensor_prec_name(
		          tensor ? p->pipe : PIPE_FP32), tensor && !(r->mem_gbps * p->intensity < top) ? " tensor" : "");
}

/* A rate in GFLOP/s as a person reads it: "1 TFLOP/s", "61.6 TFLOP/s",
 * "500 GFLOP/s", "2 PFLOP/s" (3 significant digits). */
static void flops_text(char *buf, size_t n, double gflops)
{
	static const char *const unit[] = { "MFLOP/s", "GFLOP/s", "TFLOP/s", "PFLOP/s", "EFLOP/s" };
	double v = gflops * 1e3;
	int u = 0;
	while (u < 4 && fabs(v) >= 1000 * (1 - 1e-9)) {
		v /= 1000;
		u++;
	}
	snprintf(buf, n, "%.3g %s", v, unit[u]);
}

/* An intensity tick: 0.01, 1, 100000 (never an exponent) */
static void tick_text(char *buf, size_t n, double x)
{
	if (x >= 1)
		snprintf(buf, n, "%.0f", x);
	else
		snprintf(buf, n, "%.*f", (int)ceil(-log10(x) - 1e-9), x);
}

void roofline_text(const roofline *r, sbuf *b, int width, int height)
{
	if (width < 20)
		width = 20;
	if (height < 6)
		height = 6;
	double x0, x1, y0, y1;
	ranges(r, &x0, &x1, &y0, &y1);
	char *grid = xcalloc((size_t)width * (size_t)height, 1);
	memset(grid, ' ', (size_t)width * (size_t)height);
	for (int c = 0; c < width; c++) {
		double x = pow(10, log10(x0) + (c + 0.5) / width * (log10(x1) - log10(x0)));
		double roof = roofline_roof(r, x);
		if (!(roof > 0) || roof < y0 || roof > y1)
			continue;
		int row = height - 1 - (int)floor(frac(roof, y0, y1) * (height - 1) + 0.5);
		int flat = r->fp32_gflops > 0 && roof >= r->fp32_gflops;
		grid[row * width + c] = flat ? '-' : '/';
		for (int p = 0; p < TP_N; p++) {
			double t = drawn(r, p) ? roofline_roof_on(r, x, p) : 0;
			if (!(t > roof) || t < y0 || t > y1)
				continue;
			int tr = height - 1 - (int)floor(frac(t, y0, y1) * (height - 1) + 0.5);
			grid[tr * width + c] = t >= r->tensor[p] ? '=' : '/';
		}
	}
	for (int i = 0; i < r->n; i++) {
		const roof_point *p = &r->pts[i];
		int c = (int)floor(frac(p->intensity, x0, x1) * width);
		int row = height - 1 - (int)floor(frac(p->gflops, y0, y1) * (height - 1) + 0.5);
		if (c >= 0 && c < width && row >= 0 && row < height)
			grid[row * width + c] = (char)(i < 26 ? 'A' + i : '*');
	}
	sb_printf(b, "%s\n", r->title);
	if (r->mem_gbps > 0 || r->fp32_gflops > 0) {
		sb_puts(b, "roofs:");
		if (r->mem_gbps > 0)
			sb_printf(b, " memory %.0f GB/s (/)", r->mem_gbps);
		if (r->fp32_gflops > 0)
			sb_printf(b, "%s FP32 %.0f GFLOP/s (-)", r->mem_gbps > 0 ? "," : "", r->fp32_gflops);
		if (r->mem_gbps > 0 && r->fp32_gflops > 0)
			sb_printf(b, "; ridge at %.3g FLOP/B", r->fp32_gflops / r->mem_gbps);
		for (int p = 0; p < TP_N; p++)
			if (drawn(r, p))
				sb_printf(b, "; %s tensor %.0f GFLOP/s (=)", tensor_prec_name(p), r->tensor[p]);
		sb_puts(b, "\n");
	}
	sb_puts(b, "FLOP/s\n");
	char yt[32];
	for (int row = 0; row < height; row++) {
		if (row == 0 || row == height - 1) {
			flops_text(yt, sizeof yt, row == 0 ? y1 : y0);
			sb_printf(b, "%11s |", yt);
		} else {
			sb_puts(b, "            |");
		}
		/* no trailing blanks */
		int end = width;
		while (end > 0 && grid[row * width + end - 1] == ' ')
			end--;
		sb_printf(b, "%.*s\n", end, grid + row * width);
	}
	sb_puts(b, "            +");
	for (int c = 0; c < width; c++)
		sb_putc(b, '-');
	char lo[32], hi[32];
	tick_text(lo, sizeof lo, x0);
	tick_text(hi, sizeof hi, x1);
	int mid = width - (int)strlen(lo) - (int)strlen(hi) - (int)strlen("FLOP/byte");
	sb_printf(b, "\n             %s%*s%s%*s%s\n", lo, mid / 2, "", "FLOP/byte", mid - mid / 2, "", hi);
	for (int i = 0; i < r->n; i++) {
		legend_line(r, i, b, 1);
		sb_puts(b, "\n");
	}
	if (r->n == 0)
		sb_puts(b, "  (no kernel to place: it needs a '//@ flops' line and a timed run)\n");
	free(grid);
}

/* The plot's box in pixels and its axes' ranges. */
typedef struct plotbox {
	int left, top, pw, ph;
	double x0, x1, y0, y1;
} plotbox;

/* The roof of pipe p (PIPE_FP32: the FP32 one) as one polyline, sampled
 * along x and clipped to the plot. */
static void roof_polyline(sbuf *b, const roofline *r, int p, const plotbox *q, const char *stroke, const char *width)
{
	sb_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" points=\"", stroke, width);
	for (int i = 0; i <= 200; i++) {
		double x = pow(10, log10(q->x0) + i / 200.0 * (log10(q->x1) - log10(q->x0)));
		double y = roofline_roof_on(r, x, p);
		if (!(y > 0))
			continue;
		double fy = frac(y, q->y0, q->y1);
		fy = fy < 0 ? 0 : fy > 1 ? 1 : fy;
		sb_printf(b, "%.1f,%.1f ", q->left + i / 200.0 * q->pw, q->top + q->ph - fy * q->ph);
	}
	sb_puts(b, "\"/>\n");
}

/* The width the SVG needs: the plot, and every line of text at its size. */
static int svg_width(const roofline *r, int left, int pw, const char *roofs)
{
	double w = left + pw + 40;
	double t = 20 + svg_text_px(r->title, 18, 1) + 20;
	w = t > w ? t : w;
	t = left + 8 + svg_text_px(roofs, 12, 0) + 20;
	w = t > w ? t : w;
	for (int i = 0; i < r->n; i++) {
		sbuf l = {0};
		sb_printf(&l, "%c  ", i < 26 ? 'A' + i : '*');
		legend_line(r, i, &l, 0);
		t = 20 + svg_text_px(l.s, 13, 0) + 20;
		w = t > w ? t : w;
		sb_free(&l);
	}
	return (int)ceil(w);
}

/* The axes: decades with their ticks in readable units, and the titles. */
static void svg_axes(sbuf *b, const plotbox *q)
{
	char tk[64];
	for (double x = q->x0; x <= q->x1 * 1.001; x *= 10) {
		double px = q->left + frac(x, q->x0, q->x1) * q->pw;
		tick_text(tk, sizeof tk, x);
		sb_printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>\n", px, q->top, px,
		          q->top + q->ph);
		sb_printf(b, "<text x=\"%.1f\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">%s</text>\n", px,
		          q->top + q->ph + 18, tk);
	}
	for (double y = q->y0; y <= q->y1 * 1.001; y *= 10) {
		double py = q->top + q->ph - frac(y, q->y0, q->y1) * q->ph;
		flops_text(tk, sizeof tk, y);
		sb_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", q->left, py,
		          q->left + q->pw, py);
		sb_printf(b, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\">%s</text>\n", q->left - 6,
		          py + 4, tk);
	}
	sb_printf(b, "<text x=\"%d\" y=\"%d\" font-size=\"13\" text-anchor=\"middle\">arithmetic intensity "
	              "(FLOP/byte of device memory)</text>\n", q->left + q->pw / 2, q->top + q->ph + 38);
	sb_printf(b, "<text x=\"20\" y=\"%d\" font-size=\"13\">FLOP/s</text>\n", q->top - 10);
}

void roofline_svg_text(const roofline *r, sbuf *out, int standalone)
{
	const int top = 60, pw = 560, ph = 360, legend = 24;
	double x0, x1, y0, y1;
	ranges(r, &x0, &x1, &y0, &y1);
	/* the left margin as wide as the longest tick */
	int left = 90;
	char tk[64], fp[64];
	for (double y = y0; y <= y1 * 1.001; y *= 10) {
		flops_text(tk, sizeof tk, y);
		double t = 6 + svg_text_px(tk, 12, 0) + 10;
		left = t > left ? (int)ceil(t) : left;
	}
	char roofs[160];
	flops_text(fp, sizeof fp, r->fp32_gflops);
	snprintf(roofs, sizeof roofs, "memory %.0f GB/s, FP32 %s", r->mem_gbps, fp);
	int w = svg_width(r, left, pw, roofs), h = top + ph + 60 + legend * (r->n + 1);
	const plotbox q = { left, top, pw, ph, x0, x1, y0, y1 };
	sbuf b = {0};
	if (standalone)
		sb_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	sb_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	              "font-family=\"Helvetica, Arial, sans-serif\">\n", w, h, w, h);
	sb_printf(&b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n", w, h);
	sb_puts(&b, "<text x=\"20\" y=\"32\" font-size=\"18\" font-weight=\"bold\">");
	sb_xml(&b, r->title);
	sb_puts(&b, "</text>\n");
	sb_printf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n", left, top,
	          pw, ph);
	svg_axes(&b, &q);
	/* the roof: sampled along x, clipped to the plot */
	if (r->mem_gbps > 0 || r->fp32_gflops > 0) {
		roof_polyline(&b, r, PIPE_FP32, &q, "#c0392b", "2.5");
		for (int p = 0; p < TP_N; p++) {
			if (!drawn(r, p))
				continue;
			roof_polyline(&b, r, p, &q, "#8e44ad", "2");
			double fy = frac(r->tensor[p], y0, y1);
			flops_text(tk, sizeof tk, r->tensor[p]);
			sb_printf(&b, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" fill=\"#8e44ad\" text-anchor=\"end\">"
			              "%s tensor %s</text>\n", left + pw - 6, top + ph - fy * ph - 4, tensor_prec_name(p), tk);
		}
		sb_printf(&b, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"#c0392b\">", left + 8, top + 16);
		sb_xml(&b, roofs);
		sb_puts(&b, "</text>\n");
	}
	for (int i = 0; i < r->n; i++) {
		const roof_point *p = &r->pts[i];
		double px = left + frac(p->intensity, x0, x1) * pw;
		double py = top + ph - frac(p->gflops, y0, y1) * ph;
		sb_printf(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"%s\"/>\n", px, py,
		          p->declared ? "#9e9e9e" : "#4472c4");
		sb_printf(&b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\" font-weight=\"bold\">%c</text>\n", px + 8,
		          py - 6, i < 26 ? 'A' + i : '*');
		sbuf l = {0};
		sb_printf(&l, "%c  ", i < 26 ? 'A' + i : '*');
		legend_line(r, i, &l, 0);
		sb_printf(&b, "<text x=\"20\" y=\"%d\" font-size=\"13\">", top + ph + 60 + legend * i);
		sb_xml(&b, l.s);
		sb_puts(&b, "</text>\n");
		sb_free(&l);
	}
	sb_puts(&b, "</svg>\n");
	sb_add(out, b.s, b.len);
	sb_free(&b);
}

int roofline_svg(const roofline *r, const char *path, char **err)
{
	sbuf b = {0};
	roofline_svg_text(r, &b, 1);
	return write_sbuf(path, &b, err);
}
