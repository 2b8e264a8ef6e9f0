/* chart.c: terminal and SVG bar charts. */
#include "chart.h"
#include "util.h"
#include "fileio.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void chart_init(chart *c, const char *title, const char *unit)
{
	memset(c, 0, sizeof *c);
	c->title = xstrdup(title ? title : "");
	c->unit = xstrdup(unit ? unit : "");
	c->best = c->baseline = -1;
}

void chart_add(chart *c, const char *label, double value, const char *note)
{
	c->noise = xrealloc(c->noise, (size_t)(c->n + 1) * sizeof *c->noise);
	c->noise[c->n] = 0;
	c->labels = xrealloc(c->labels, (size_t)(c->n + 1) * sizeof *c->labels);
	c->values = xrealloc(c->values, (size_t)(c->n + 1) * sizeof *c->values);
	c->notes = xrealloc(c->notes, (size_t)(c->n + 1) * sizeof *c->notes);
	c->labels[c->n] = xstrdup(label);
	c->values[c->n] = value;
	c->notes[c->n] = note ? xstrdup(note) : NULL;
	c->n++;
}

void chart_noise(chart *c, double rel)
{
	if (c->n > 0)
		c->noise[c->n - 1] = isfinite(rel) && rel > 0 ? rel : 0;
}

int chart_tie(const chart *c, int i)
{
	int b = c->best;
	if (b < 0 || i == b || i < 0 || i >= c->n || !isfinite(c->values[i]) || !(c->noise[b] > 0) ||
	    !(c->noise[i] > 0) || (c->notes[i] && strcmp(c->notes[i], "FAIL") == 0))
		return 0;
	double vb = c->values[b], vi = c->values[i];
	return fabs(vb - vi) <= fabs(vb) * c->noise[b] + fabs(vi) * c->noise[i];
}

int chart_ties(const chart *c)
{
	int n = 0;
	for (int i = 0; i < c->n; i++)
		n += chart_tie(c, i);
	return n;
}

double svg_text_px(const char *s, double font_px, int bold)
{
	double em = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned char ch = *p;
		if ((ch & 0xC0) == 0x80)
			continue; /* a UTF-8 continuation: counted with its lead */
		if (ch >= 0x80)
			em += 1.0; /* outside ASCII: as wide as the widest */
		else if (strchr("iljtfrI.,:;'|!()[] ", ch))
			em += 0.36;
		else if (strchr("mwMW%@", ch))
			em += 0.95;
		else if (ch >= 'A' && ch <= 'Z')
			em += 0.74;
		else if (ch >= '0' && ch <= '9')
			em += 0.58;
		else
			em += 0.6;
	}
	return em * font_px * (bold ? 1.08 : 1.0);
}

void chart_free(chart *c)
{
	for (int i = 0; i < c->n; i++) {
		free(c->labels[i]);
		free(c->notes[i]);
	}
	free(c->labels);
	free(c->values);
	free(c->notes);
	free(c->noise);
	free(c->title);
	free(c->unit);
	memset(c, 0, sizeof *c);
}

/* 2630, 51.1, 1.62, 0.0123: three significant digits, no exponent */
static void fmt_value(char *buf, size_t n, double v)
{
	double a = fabs(v);
	int prec = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.01 ? 3 : 6;
	snprintf(buf, n, "%.*f", prec, v);
}

static int utf8_width(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

static double max_value(const chart *c)
{
	double m = 0;
	for (int i = 0; i < c->n; i++)
		if (isfinite(c->values[i]) && c->values[i] > m)
			m = c->values[i];
	return m;
}

void chart_print(const chart *c, FILE *f, int unicode, int color, int width)
{
	static const char *eighths[] = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉" };
	double m = max_value(c);
	int lw = 0;
	for (int i = 0; i < c->n; i++)
		if (utf8_width(c->labels[i]) > lw)
			lw = utf8_width(c->labels[i]);
	if (c->title[0])
		fprintf(f, "%s\n", c->title);
	for (int i = 0; i < c->n; i++) {
		fprintf(f, "  %s%*s  ", c->labels[i], lw - utf8_width(c->labels[i]), "");
		double v = c->values[i];
		int cells8 = m > 0 && isfinite(v) && v > 0 ? (int)lround(v / m * width * 8) : 0;
		if (color && i == c->best)
			fputs("\033[1;32m", f);
		for (int k = 0; k < cells8 / 8; k++)
			fputs(unicode ? "█" : "#", f);
		if (unicode)
			fputs(eighths[cells8 % 8], f);
		else if (cells8 % 8 >= 4)
			fputc('#', f);
		if (color && i == c->best)
			fputs("\033[0m", f);
		int used = cells8 / 8 + (cells8 % 8 ? 1 : 0);
		fprintf(f, "%*s ", width - used + 1, "");
		if (isfinite(v)) {
			char num[64];
			fmt_value(num, sizeof num, v);
			fprintf(f, "%s %s", num, c->unit);
		}
		if (c->notes[i])
			fprintf(f, "  %s", c->notes[i]);
		if (i == c->best)
			fputs(chart_ties(c) ? (unicode ? "  ◀ best, a tie" : "  <- best, a tie")
			                    : (unicode ? "  ◀ best" : "  <- best"), f);
		else if (chart_tie(c, i))
			fputs(unicode ? "  ◀ tie for best (within the noise)" : "  <- tie for best (within the noise)", f);
		fputc('\n', f);
	}
}

/* The text after bar i: its value, its note, best or tie. */
static void value_text(const chart *c, int i, sbuf *b)
{
	double v = c->values[i];
	if (isfinite(v)) {
		char num[64];
		fmt_value(num, sizeof num, v);
		sb_printf(b, "%s %s", num, c->unit);
	}
	if (c->notes[i])
		sb_printf(b, "  %s", c->notes[i]);
	if (i == c->best)
		sb_puts(b, chart_ties(c) ? "  (best, a tie)" : "  (best)");
	else if (chart_tie(c, i))
		sb_puts(b, "  (tie for best: within the noise)");
}

void chart_svg_text(const chart *c, sbuf *out, int standalone)
{
	const int bar_h = 28, gap = 10, top = 56, plot_w = 520;
	/* margins as wide as the longest label and value text need */
	double lw = 0, vw = 0;
	for (int i = 0; i < c->n; i++) {
		double x = svg_text_px(c->labels[i], 15, 0);
		lw = x > lw ? x : lw;
		sbuf t = {0};
		value_text(c, i, &t);
		x = svg_text_px(t.s ? t.s : "", 15, 0);
		vw = x > vw ? x : vw;
		sb_free(&t);
	}
	int left = 260, right = 170;
	if (20 + lw + 10 > left)
		left = (int)ceil(20 + lw + 10);
	if (8 + vw + 20 > right)
		right = (int)ceil(8 + vw + 20);
	int h = top + c->n * (bar_h + gap) + 40;
	int w = left + plot_w + right;
	double tw = 20 + svg_text_px(c->title, 20, 1) + 20;
	if (tw > w)
		w = (int)ceil(tw);
	double m = max_value(c);
	sbuf b = {0};
	if (standalone)
		sb_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	sb_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	              "font-family=\"Helvetica, Arial, sans-serif\">\n", w, h, w, h);
	sb_printf(&b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n", w, h);
	sb_puts(&b, "<text x=\"20\" y=\"32\" font-size=\"20\" font-weight=\"bold\">");
	sb_xml(&b, c->title);
	sb_puts(&b, "</text>\n");
	for (int i = 0; i < c->n; i++) {
		int y = top + i * (bar_h + gap);
		double v = c->values[i];
		int bw = m > 0 && isfinite(v) && v > 0 ? (int)lround(v / m * plot_w) : 0;
		const char *fill = i == c->best || chart_tie(c, i) ? "#2e8b57" : i == c->baseline ? "#9e9e9e" : "#4472c4";
		sb_printf(&b, "<text x=\"%d\" y=\"%d\" font-size=\"15\" text-anchor=\"end\">", left - 10, y + bar_h - 9);
		sb_xml(&b, c->labels[i]);
		sb_puts(&b, "</text>\n");
		sb_printf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", left, y, bw, bar_h, fill);
		sb_printf(&b, "<text x=\"%d\" y=\"%d\" font-size=\"15\">", left + bw + 8, y + bar_h - 9);
		sbuf t = {0};
		value_text(c, i, &t);
		if (t.s)
			sb_xml(&b, t.s);
		sb_free(&t);
		sb_puts(&b, "</text>\n");
	}
	if (c->baseline >= 0 && m > 0 && isfinite(c->values[c->baseline])) {
		int x = left + (int)lround(c->values[c->baseline] / m * plot_w);
		sb_printf(&b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>\n",
		          x, top - 6, x, top + c->n * (bar_h + gap));
	}
	sb_puts(&b, "</svg>\n");
	sb_add(out, b.s, b.len);
	sb_free(&b);
}

int chart_svg(const chart *c, const char *path, char **err)
{
	sbuf b = {0};
	chart_svg_text(c, &b, 1);
	return write_sbuf(path, &b, err);
}
