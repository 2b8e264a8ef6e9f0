/* bpage.c: the board's page (bpage.h). */
#include "bpage.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const HEAD =
	"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	"<title>cuplay board</title>\n<style>\n"
	"body{font-family:system-ui,sans-serif;margin:1.5rem auto;max-width:1240px;font-size:22px;"
	"background:#fff;color:#111}\n"
	"h1{font-size:2rem;margin:0 0 1rem}h2{font-size:1.6rem;margin:1.6rem 0 .4rem}\n"
	"h3{font-size:1.1rem;margin:.8rem 0 .3rem;color:#444}\n"
	"table{border-collapse:collapse;width:100%}td,th{padding:.3rem .7rem;text-align:left;"
	"border-bottom:1px solid #ccc}\n"
	"th{background:#eee}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
	".title{margin:0 0 .4rem;color:#333}tr:first-child td{font-weight:bold}.closed{color:#a00;font-size:1rem}.empty{color:#666}\n"
	"#live{float:right;font-size:1rem;color:#666}\n"
	"</style></head><body>\n<h1>cuplay board <span id=\"live\">offline</span></h1>\n<main id=\"board\">\n";

/* The script: the rows from the API's JSON, as text nodes only. */
static const char *const SCRIPT =
	"</main>\n<script>\n"
	"'use strict';\n"
	"function el(tag, text, cls) { const e = document.createElement(tag);"
	" if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; }\n"
	"function fig(v, d) { return v === null || v === undefined ? '' : Number(v).toFixed(d); }\n"
	"function tables(sec, rows) {\n"
	"  for (const t of sec.querySelectorAll('.kind')) t.remove();\n"
	"  const kinds = new Map();\n"
	"  for (const r of rows) { if (!kinds.has(r.gpu)) kinds.set(r.gpu, []); kinds.get(r.gpu).push(r); }\n"
	"  if (kinds.size === 0) { const d = el('div', 'no ranked submission yet', 'kind empty'); sec.appendChild(d); }\n"
	"  for (const [gpu, list] of kinds) {\n"
	"    const d = el('div', undefined, 'kind'); d.appendChild(el('h3', gpu || 'no GPU'));\n"
	"    const t = el('table'); const h = el('tr');\n"
	"    for (const c of ['#', 'student', 'median ms', 'speedup', 'host']) h.appendChild(el('th', c));\n"
	"    t.appendChild(h);\n"
	"    for (const r of list) { const tr = el('tr'); tr.appendChild(el('td', String(r.rank), 'n'));\n"
	"      tr.appendChild(el('td', r.student)); tr.appendChild(el('td', fig(r.median_ms, 4), 'n'));\n"
	"      tr.appendChild(el('td', fig(r.speedup, 2), 'n')); tr.appendChild(el('td', r.host)); t.appendChild(tr); }\n"
	"    d.appendChild(t); sec.appendChild(d);\n"
	"  }\n"
	"}\n"
	"function section(name) {\n"
	"  for (const s of document.querySelectorAll('section')) if (s.dataset.ex === name) return s;\n"
	"  const s = el('section'); s.dataset.ex = name; s.appendChild(el('h2', name));\n"
	"  document.getElementById('board').appendChild(s); return s;\n"
	"}\n"
	"async function refresh(name) {\n"
	"  const r = await fetch('/api/ranking/' + encodeURIComponent(name));\n"
	"  if (r.ok) tables(section(name), await r.json());\n"
	"}\n"
	"const es = new EventSource('/events');\n"
	"es.onopen = () => { document.getElementById('live').textContent = 'live'; };\n"
	"es.onerror = () => { document.getElementById('live').textContent = 'reconnecting'; };\n"
	"es.addEventListener('ranking', e => { refresh(JSON.parse(e.data).exercise); });\n"
	"</script>\n</body></html>\n";

static void fig(sbuf *b, double v, int digits)
{
	if (isfinite(v))
		sb_printf(b, "%.*f", digits, v);
}

static void table(sbuf *b, const brank *r, int n)
{
	sb_puts(b, "<div class=\"kind\"><h3>");
	sb_xml(b, r[0].gpu[0] ? r[0].gpu : "no GPU");
	sb_puts(b, "</h3>\n<table><tr><th>#</th><th>student</th><th>median ms</th><th>speedup</th><th>host</th></tr>\n");
	for (int i = 0; i < n; i++) {
		sb_printf(b, "<tr><td class=\"n\">%d</td><td>", r[i].rank);
		sb_xml(b, r[i].student);
		sb_puts(b, "</td><td class=\"n\">");
		fig(b, r[i].median_ms, 4);
		sb_puts(b, "</td><td class=\"n\">");
		fig(b, r[i].speedup, 2);
		sb_puts(b, "</td><td>");
		sb_xml(b, r[i].host);
		sb_puts(b, "</td></tr>\n");
	}
	sb_puts(b, "</table></div>\n");
}

static int exercise(const board *bd, sbuf *b, const char *name, int open)
{
	brank *r;
	int n;
	if (bs_ranking(bd->db, name, &r, &n) != 0)
		return -1;
	const char *title = NULL;
	for (int i = 0; i < bd->nex; i++)
		if (strcmp(bd->ex[i].name, name) == 0)
			title = bd->ex[i].title;
	sb_puts(b, "<section data-ex=\"");
	sb_xml(b, name);
	sb_puts(b, "\"><h2>");
	sb_xml(b, name);
	if (!open)
		sb_puts(b, " <span class=\"closed\">closed</span>");
	sb_puts(b, "</h2>\n");
	if (title && *title) {
		sb_puts(b, "<p class=\"title\">");
		sb_xml(b, title);
		sb_puts(b, "</p>\n");
	}
	if (n == 0)
		sb_puts(b, "<div class=\"kind empty\">no ranked submission yet</div>\n");
	for (int i = 0; i < n;) {
		int k = i;
		while (k < n && strcmp(r[k].gpu, r[i].gpu) == 0)
			k++;
		table(b, r + i, k - i);
		i = k;
	}
	sb_puts(b, "</section>\n");
	branks_free(r, n);
	return 0;
}

int bpage_render(const board *b, sbuf *out)
{
	char **names;
	int *open, n, rc = 0;
	if (bs_exercises(b->db, &names, &open, &n) != 0)
		return -1;
	sb_puts(out, HEAD);
	if (n == 0)
		sb_puts(out, "<p class=\"empty\">no exercises: put NAME.exercise files in the exercises folder</p>\n");
	for (int i = 0; i < n; i++) {
		if (rc == 0)
			rc = exercise(b, out, names[i], open[i]);
		free(names[i]);
	}
	free(names);
	free(open);
	sb_puts(out, SCRIPT);
	return rc;
}
