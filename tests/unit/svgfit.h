/* svgfit.h: for the chart tests: every <text> of an SVG lies within its
 * viewBox, its extent estimated from its x, text-anchor, font-size and
 * weight with the charts' own estimate (svg_text_px, on the wide side). */
#ifndef CUPLAY_SVGFIT_H
#define CUPLAY_SVGFIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"

/* the value of attribute name="..." in the tag [s, e), or NULL */
static const char *svgfit_attr(const char *s, const char *e, const char *name, char *buf, size_t n)
{
	char key[64];
	snprintf(key, sizeof key, " %s=\"", name);
	const char *a = strstr(s, key);
	if (!a || a >= e)
		return NULL;
	a += strlen(key);
	const char *q = strchr(a, '"');
	size_t len = q && q < e ? (size_t)(q - a) : 0;
	if (len >= n)
		len = n - 1;
	memcpy(buf, a, len);
	buf[len] = 0;
	return buf;
}

/* 1 when every text fits; else 0 with the first that does not in why */
static int svg_texts_fit(const char *svg, char *why, size_t nwhy)
{
	char v[256];
	const char *svgtag = strstr(svg, "<svg");
	if (!svgtag || !svgfit_attr(svgtag, strchr(svgtag, '>'), "viewBox", v, sizeof v)) {
		snprintf(why, nwhy, "no viewBox");
		return 0;
	}
	double vx, vy, vw, vh;
	if (sscanf(v, "%lf %lf %lf %lf", &vx, &vy, &vw, &vh) != 4) {
		snprintf(why, nwhy, "viewBox '%s'", v);
		return 0;
	}
	for (const char *t = strstr(svg, "<text"); t; t = strstr(t + 1, "<text")) {
		const char *gt = strchr(t, '>');
		const char *end = gt ? strstr(gt, "</text>") : NULL;
		if (!end)
			break;
		double x = atof(svgfit_attr(t, gt, "x", v, sizeof v) ? v : "0");
		double size = atof(svgfit_attr(t, gt, "font-size", v, sizeof v) ? v : "16");
		int bold = svgfit_attr(t, gt, "font-weight", v, sizeof v) && strcmp(v, "bold") == 0;
		char anchor[32] = "start";
		svgfit_attr(t, gt, "text-anchor", anchor, sizeof anchor);
		/* the text, its entities one character each */
		char *txt = calloc(1, (size_t)(end - gt) + 1);
		size_t k = 0;
		for (const char *c = gt + 1; c < end; c++) {
			if (*c == '&') {
				const char *semi = strchr(c, ';');
				if (semi && semi < end)
					c = semi;
				txt[k++] = 'W'; /* as wide as any */
			} else {
				txt[k++] = *c;
			}
		}
		double w = svg_text_px(txt, size, bold);
		double x0 = strcmp(anchor, "end") == 0 ? x - w : strcmp(anchor, "middle") == 0 ? x - w / 2 : x;
		if (x0 < vx - 0.5 || x0 + w > vx + vw + 0.5) {
			snprintf(why, nwhy, "'%s' spans %.0f .. %.0f, outside 0 .. %.0f", txt, x0, x0 + w, vw);
			free(txt);
			return 0;
		}
		free(txt);
	}
	return 1;
}

#endif
