/* chart.h: bar charts of a comparison or a sweep, in the terminal (Unicode
 * blocks on a TTY, ASCII otherwise) and as a self-contained SVG file. */
#ifndef CUPLAY_CHART_H
#define CUPLAY_CHART_H

#include <stdio.h>

typedef struct chart {
	char *title;        /* "transpose.cu: speedup over transpose_naive" */
	char *unit;         /* "x", "ms", "GB/s" */
	int n;
	char **labels;
	double *values;
	char **notes;       /* per bar, may be NULL: "faster", "FAIL", "cannot launch" */
	double *noise;      /* per bar: its value's 95% interval, relative (0.003: +-0.3%); 0 unknown */
	int best;           /* index marked as best, or -1 */
	int baseline;       /* index drawn as the baseline (speedup 1), or -1 */
} chart;

void chart_init(chart *c, const char *title, const char *unit);
void chart_add(chart *c, const char *label, double value, const char *note);
/* The last bar's noise: its value's 95% interval, relative. */
void chart_noise(chart *c, double rel);
/* Bar i ties with the best: their intervals overlap (the difference is
 * within the noise of the two), so neither is the best alone. */
int chart_tie(const chart *c, int i);
/* How many bars tie with the best (the best not counted). */
int chart_ties(const chart *c);
void chart_free(chart *c);

/* The width in pixels a text of font_px takes in the charts' font
 * (Helvetica, Arial), estimated on the wide side from each character's
 * class (narrow, digit, lower case, capital, wide); bold a little wider.
 * Charts size themselves with it so that no word is cut at an edge. */
double svg_text_px(const char *s, double font_px, int bold);

/* Horizontal bars scaled to the largest value, `width` cells at most. */
void chart_print(const chart *c, FILE *f, int unicode, int color, int width);

/* The SVG text into b: with the XML declaration (a file of its own) or
 * without (inline, in an HTML page). */
struct sbuf;
void chart_svg_text(const chart *c, struct sbuf *b, int standalone);

/* Writes an SVG (temp file + rename). 0 or -1 with *err. */
int chart_svg(const chart *c, const char *path, char **err);

#endif
