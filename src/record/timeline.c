/* timeline.c: a run's copies and kernels by stream, drawn. */
#include "timeline.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a copy's kind as an index of tl_stats' arrays; -1 for a kernel */
static int copy_index(int kind)
{
	return kind == SPAN_H2D ? 0 : kind == SPAN_D2H ? 1 : kind == SPAN_COPY ? 2 : -1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* [start, end) pairs of the spans of a kind (0: every kind), merged: their
 * union, sorted. Returns how many intervals (2 words each) are in *out. */
static int union_of(const tl_span *s, int n, int kind, uint64_t **out)
{
	uint64_t *v = xmalloc((size_t)(n > 0 ? n : 1) * 2 * sizeof *v);
	int m = 0;
	for (int i = 0; i < n; i++) {
		if (s[i].end_ns <= s[i].start_ns || (kind && s[i].kind != kind))
			continue;
		v[2 * m] = s[i].start_ns;
		v[2 * m + 1] = s[i].end_ns;
		m++;
	}
	qsort(v, (size_t)m, 2 * sizeof *v, cmp_u64); /* by start (the first word of each pair) */
	int k = 0;
	for (int i = 0; i < m; i++) {
		if (k > 0 && v[2 * i] <= v[2 * k - 1]) {
			if (v[2 * i + 1] > v[2 * k - 1])
				v[2 * k - 1] = v[2 * i + 1];
			continue;
		}
		v[2 * k] = v[2 * i];
		v[2 * k + 1] = v[2 * i + 1];
		k++;
	}
	*out = v;
	return k;
}

/* The streams' ids, sorted, distinct. */
static int streams_of(const tl_span *s, int n, uint32_t *ids)
{
	int k = 0;
	for (int i = 0; i < n; i++) {
		int seen = 0;
		for (int j = 0; j < k && !seen; j++)
			seen = ids[j] == s[i].stream;
		if (seen)
			continue;
		int j = k++;
		while (j > 0 && ids[j - 1] > s[i].stream) {
			ids[j] = ids[j - 1];
			j--;
		}
		ids[j] = s[i].stream;
	}
	return k;
}

static void span_bounds(const tl_span *s, int n, uint64_t *t0, uint64_t *t1)
{
	*t0 = UINT64_MAX;
	*t1 = 0;
	for (int i = 0; i < n; i++) {
		if (s[i].start_ns < *t0)
			*t0 = s[i].start_ns;
		if (s[i].end_ns > *t1)
			*t1 = s[i].end_ns;
	}
	if (n == 0 || *t1 < *t0)
		*t0 = *t1 = 0;
}

void tl_compute(const tl_span *s, int n, tl_stats *st)
{
	memset(st, 0, sizeof *st);
	st->overlap = -1;
	if (n <= 0)
		return;
	uint32_t *ids = xmalloc((size_t)n * sizeof *ids);
	st->nstreams = streams_of(s, n, ids);
	free(ids);
	uint64_t t0, t1;
	span_bounds(s, n, &t0, &t1);
	st->span_ms = (double)(t1 - t0) * 1e-6;
	uint64_t *ku, *all;
	int nk = union_of(s, n, SPAN_KERNEL, &ku), na = union_of(s, n, 0, &all);
	uint64_t *up, *down;
	int nu = union_of(s, n, SPAN_H2D, &up), nd = union_of(s, n, SPAN_D2H, &down);
	for (int i = 0; i < nu; i++)
		for (int j = 0; j < nd; j++) {
			uint64_t a = up[2 * i] > down[2 * j] ? up[2 * i] : down[2 * j];
			uint64_t b = up[2 * i + 1] < down[2 * j + 1] ? up[2 * i + 1] : down[2 * j + 1];
			if (b > a)
				st->duplex_ms += (double)(b - a) * 1e-6;
		}
	free(up);
	free(down);
	for (int i = 0; i < nk; i++)
		st->kernel_ms += (double)(ku[2 * i + 1] - ku[2 * i]) * 1e-6;
	for (int i = 0; i < n; i++) {
		int c = copy_index(s[i].kind);
		if (c < 0) {
			st->nkernels++;
			continue;
		}
		double d = s[i].end_ns > s[i].start_ns ? (double)(s[i].end_ns - s[i].start_ns) * 1e-6 : 0;
		st->ncopies[c]++;
		st->bytes[c] += (double)s[i].bytes;
		st->copy_kind_ms[c] += d;
		st->copy_ms += d;
		for (int j = 0; j < nk; j++) { /* the part of it under some kernel */
			uint64_t a = s[i].start_ns > ku[2 * j] ? s[i].start_ns : ku[2 * j];
			uint64_t b = s[i].end_ns < ku[2 * j + 1] ? s[i].end_ns : ku[2 * j + 1];
			if (b > a)
				st->hidden_ms += (double)(b - a) * 1e-6;
		}
	}
	if (st->copy_ms > 0)
		st->overlap = st->hidden_ms / st->copy_ms;
	for (int i = 1; i < na; i++) {
		double g = (double)(all[2 * i] - all[2 * i - 1]) * 1e-6;
		st->idle_ms += g;
		st->ngaps++;
		if (g > st->gap_max_ms)
			st->gap_max_ms = g;
	}
	free(ku);
	free(all);
}

static char glyph(int kind)
{
	switch (kind) {
	case SPAN_H2D: return '>';
	case SPAN_D2H: return '<';
	case SPAN_KERNEL: return '#';
	default: return '=';
	}
}

static void time_text(double ms, char *buf, int n)
{
	if (ms <= 0)
		snprintf(buf, (size_t)n, "0");
	else
		fmt_time_ms(ms, buf, n);
}

/* The statements under a timeline, one per line. */
static void statements(const tl_stats *st, sbuf *out, const char *indent)
{
	char a[32], b[32], c[32];
	static const char *const names[3][2] = { { "copy in (H2D)", "copies in (H2D)" },
	                                         { "copy out (D2H)", "copies out (D2H)" },
	                                         { "other copy", "other copies" } };
	for (int k = 0; k < 3; k++) {
		if (!st->ncopies[k])
			continue;
		fmt_time_ms(st->copy_kind_ms[k], a, sizeof a);
		fmt_bytes(st->bytes[k], b, sizeof b);
		double gbps = st->copy_kind_ms[k] > 0 ? st->bytes[k] / (st->copy_kind_ms[k] * 1e-3) / 1e9 : 0;
		sb_printf(out, "%s%d %s: %s, %s, %.1f GB/s while copying\n", indent, st->ncopies[k],
		          names[k][st->ncopies[k] != 1], b, a, gbps);
	}
	time_text(st->kernel_ms, a, sizeof a);
	time_text(st->span_ms, b, sizeof b);
	sb_printf(out, "%s%d kernel%s: %s of GPU time; the whole span %s on %d stream%s\n", indent, st->nkernels,
	          st->nkernels == 1 ? "" : "s", a, b, st->nstreams, st->nstreams == 1 ? "" : "s");
	if (st->overlap >= 0) {
		time_text(st->hidden_ms, a, sizeof a);
		time_text(st->copy_ms, b, sizeof b);
		sb_printf(out, "%soverlap: %.0f%% of copy time hidden under kernels (%s of %s)\n", indent,
		          100 * st->overlap, a, b);
	}
	if (st->ncopies[0] && st->ncopies[1]) {
		time_text(st->duplex_ms, a, sizeof a);
		sb_printf(out, "%scopies in and out at once: %s\n", indent, a);
	}
	if (st->ngaps == 0) {
		sb_printf(out, "%sidle: none, something ran from the first start to the last end\n", indent);
	} else {
		time_text(st->idle_ms, a, sizeof a);
		time_text(st->gap_max_ms, c, sizeof c);
		sb_printf(out, "%sidle: %d gap%s, %s in all (%.0f%% of the span), the longest %s\n",
		          indent, st->ngaps, st->ngaps == 1 ? "" : "s", a,
		          st->span_ms > 0 ? 100 * st->idle_ms / st->span_ms : 0, c);
	}
}

void tl_text(const tl_span *s, int n, const char *title, int width, sbuf *out)
{
	if (title)
		sb_printf(out, "timeline of %s\n", title);
	if (n <= 0) {
		sb_puts(out, "  nothing recorded\n");
		return;
	}
	uint32_t *ids = xmalloc((size_t)n * sizeof *ids);
	int ns = streams_of(s, n, ids);
	char label[32];
	int lw = 0;
	for (int i = 0; i < ns; i++) {
		int l = snprintf(label, sizeof label, "stream %u", ids[i]);
		lw = l > lw ? l : lw;
	}
	int w = width - lw - 5;
	if (w < 20)
		w = 20;
	uint64_t t0, t1;
	span_bounds(s, n, &t0, &t1);
	double total = t1 > t0 ? (double)(t1 - t0) : 1;
	char *row = xmalloc((size_t)w + 1);
	for (int r = 0; r < ns; r++) {
		memset(row, ' ', (size_t)w);
		row[w] = 0;
		/* spans of half a column or more where they cover half a column;
		 * shorter ones then in their middle column, over the others, so
		 * that every span shows */
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; i < n; i++) {
				if (s[i].stream != ids[r])
					continue;
				double a = (double)(s[i].start_ns - t0) / total * w, b = (double)(s[i].end_ns - t0) / total * w;
				int painted = 0;
				for (int c = (int)a; c < w && c < (int)b + 1; c++) {
					double lo = c > a ? c : a, hi = c + 1 < b ? c + 1 : b;
					if (hi - lo >= 0.5) {
						if (pass == 0)
							row[c] = glyph(s[i].kind);
						painted = 1;
					}
				}
				if (!painted && pass == 1) {
					int c = (int)((a + b) / 2);
					row[c < w ? c : w - 1] = glyph(s[i].kind);
				}
			}
		snprintf(label, sizeof label, "stream %u", ids[r]);
		sb_printf(out, "  %-*s |%s|\n", lw, label, row);
	}
	/* the axis: ticks at the quarters, times at the start, middle and end */
	memset(row, '-', (size_t)w);
	for (int q = 0; q <= 4; q++)
		row[q * (w - 1) / 4] = '+';
	sb_printf(out, "  %-*s  %s\n", lw, "", row);
	char t_mid[32], t_end[32];
	time_text(total * 1e-6 / 2, t_mid, sizeof t_mid);
	time_text(total * 1e-6, t_end, sizeof t_end);
	memset(row, ' ', (size_t)w);
	row[0] = '0';
	int lm = (int)strlen(t_mid), le = (int)strlen(t_end);
	if ((w - 1) / 2 - lm / 2 > 2)
		memcpy(row + (w - 1) / 2 - lm / 2, t_mid, (size_t)lm);
	if (w - le > (w - 1) / 2 + lm)
		memcpy(row + w - le, t_end, (size_t)le);
	sb_printf(out, "  %-*s  %s\n", lw, "", row);
	sb_puts(out, "  > copy in (H2D)   # kernel   < copy out (D2H)   = other copy\n");
	tl_stats st;
	tl_compute(s, n, &st);
	statements(&st, out, "  ");
	free(row);
	free(ids);
}

static const char *color_of(int kind)
{
	switch (kind) {
	case SPAN_H2D: return "#4e79a7";
	case SPAN_D2H: return "#e15759";
	case SPAN_KERNEL: return "#59a14f";
	default: return "#9c9c9c";
	}
}

void tl_svg(const tl_span *s, int n, const char *title, int standalone, sbuf *out)
{
	const int left = 110, plot_w = 720, right = 30, top = 50, row_h = 26, bar_h = 18;
	uint32_t *ids = xmalloc((size_t)(n > 0 ? n : 1) * sizeof *ids);
	int ns = n > 0 ? streams_of(s, n, ids) : 0;
	tl_stats st;
	tl_compute(s, n, &st);
	int nlines = 2 + (st.overlap >= 0) + (st.ncopies[0] > 0) + (st.ncopies[1] > 0) + (st.ncopies[2] > 0) +
	             (st.ncopies[0] && st.ncopies[1]);
	int axis_y = top + ns * row_h + 6;
	int height = axis_y + 60 + nlines * 18;
	int width = left + plot_w + right;
	if (standalone)
		sb_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	sb_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	          "font-family=\"sans-serif\" font-size=\"12\">\n", width, height, width, height);
	sb_printf(out, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
	sb_puts(out, "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">timeline");
	if (title) {
		sb_puts(out, " of ");
		sb_xml(out, title);
	}
	sb_puts(out, "</text>\n");
	uint64_t t0, t1;
	span_bounds(s, n, &t0, &t1);
	double total = t1 > t0 ? (double)(t1 - t0) : 1;
	for (int r = 0; r < ns; r++) {
		int y = top + r * row_h;
		sb_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">stream %u</text>\n", left - 8,
		          y + bar_h / 2 + 4, ids[r]);
		for (int i = 0; i < n; i++) {
			if (s[i].stream != ids[r])
				continue;
			double x = left + (double)(s[i].start_ns - t0) / total * plot_w;
			double w = (double)(s[i].end_ns - s[i].start_ns) / total * plot_w;
			char d[32];
			fmt_time_ms((double)(s[i].end_ns - s[i].start_ns) * 1e-6, d, sizeof d);
			sb_printf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\">"
			          "<title>%s %s</title></rect>\n", x, y, w < 0.5 ? 0.5 : w, bar_h, color_of(s[i].kind),
			          s[i].kind == SPAN_KERNEL ? "kernel" : s[i].kind == SPAN_H2D ? "copy in"
			          : s[i].kind == SPAN_D2H ? "copy out" : "copy", d);
		}
	}
	sb_printf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", left, axis_y,
	          left + plot_w, axis_y);
	for (int q = 0; q <= 4; q++) {
		char tt[32];
		time_text(total * 1e-6 * q / 4, tt, sizeof tt);
		int x = left + q * plot_w / 4;
		sb_printf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>"
		          "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x, axis_y, x, axis_y + 5, x,
		          axis_y + 18, tt);
	}
	static const int kinds[] = { SPAN_H2D, SPAN_KERNEL, SPAN_D2H, SPAN_COPY };
	static const char *const names[] = { "copy in (H2D)", "kernel", "copy out (D2H)", "other copy" };
	for (int k = 0; k < 4; k++) {
		int x = left + k * 150;
		sb_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
		          "<text x=\"%d\" y=\"%d\">%s</text>\n", x, axis_y + 30, color_of(kinds[k]), x + 16,
		          axis_y + 40, names[k]);
	}
	sbuf lines = {0};
	statements(&st, &lines, "");
	int y = axis_y + 64;
	for (char *l = lines.s; l && *l;) {
		char *e = strchr(l, '\n');
		if (e)
			*e = 0;
		sb_printf(out, "<text x=\"10\" y=\"%d\">", y);
		sb_xml(out, l);
		sb_puts(out, "</text>\n");
		y += 18;
		l = e ? e + 1 : l + strlen(l);
	}
	sb_free(&lines);
	sb_puts(out, "</svg>\n");
	free(ids);
}
