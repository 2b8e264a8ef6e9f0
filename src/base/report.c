/* report.c: tables as text, CSV, JSON and Markdown. */
#include "report.h"
#include "util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void table_init(table *t, int ncols, const char *const *head, const char *align)
{
	memset(t, 0, sizeof *t);
	t->ncols = ncols;
	t->head = xcalloc((size_t)ncols, sizeof *t->head);
	t->align = xcalloc((size_t)ncols + 1, 1);
	for (int i = 0; i < ncols; i++) {
		t->head[i] = xstrdup(head[i]);
		t->align[i] = align && align[i] ? align[i] : 'l';
	}
}

int table_row(table *t)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 8;
		t->cells = xrealloc(t->cells, (size_t)t->cap * (size_t)t->ncols * sizeof *t->cells);
		t->style = xrealloc(t->style, (size_t)t->cap * (size_t)t->ncols * sizeof *t->style);
	}
	for (int i = 0; i < t->ncols; i++) {
		t->cells[t->nrows * t->ncols + i] = NULL;
		t->style[t->nrows * t->ncols + i] = NULL;
	}
	return t->nrows++;
}

void table_set(table *t, int row, int col, const char *fmt, ...)
{
	sbuf b = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	char **c = &t->cells[row * t->ncols + col];
	free(*c);
	*c = sb_steal(&b);
}

void table_style(table *t, int row, int col, const char *sgr)
{
	char **c = &t->style[row * t->ncols + col];
	free(*c);
	*c = sgr ? xstrdup(sgr) : NULL;
}

void table_free(table *t)
{
	for (int i = 0; i < t->nrows * t->ncols; i++) {
		free(t->cells[i]);
		free(t->style[i]);
	}
	for (int i = 0; i < t->ncols; i++)
		free(t->head[i]);
	free(t->cells);
	free(t->style);
	free(t->head);
	free(t->align);
	memset(t, 0, sizeof *t);
}

static const char *cell(const table *t, int r, int c)
{
	const char *s = t->cells[r * t->ncols + c];
	return s ? s : "";
}

/* Display width: counts UTF-8 code points. */
static int width(const char *s)
{
	int w = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			w++;
	return w;
}

static void pad(FILE *f, int n)
{
	for (int i = 0; i < n; i++)
		fputc(' ', f);
}

static void print_text(const table *t, FILE *f, int color, int indent)
{
	int *w = xcalloc((size_t)t->ncols, sizeof *w);
	for (int c = 0; c < t->ncols; c++) {
		w[c] = width(t->head[c]);
		for (int r = 0; r < t->nrows; r++)
			if (width(cell(t, r, c)) > w[c])
				w[c] = width(cell(t, r, c));
	}
	/* drop columns that are empty in every row */
	for (int r = -1; r < t->nrows; r++) {
		pad(f, indent);
		int first = 1;
		sbuf line = {0};
		for (int c = 0; c < t->ncols; c++) {
			int empty = 1;
			for (int rr = 0; rr < t->nrows && empty; rr++)
				empty = cell(t, rr, c)[0] == 0;
			if (empty && t->nrows > 0)
				continue;
			const char *s = r < 0 ? t->head[c] : cell(t, r, c);
			const char *st = r < 0 ? (color ? "2" : NULL) : (color ? t->style[r * t->ncols + c] : NULL);
			if (!first)
				sb_puts(&line, "  ");
			first = 0;
			int gap = w[c] - width(s);
			int last = c == t->ncols - 1;
			if (t->align[c] == 'r')
				for (int i = 0; i < gap; i++)
					sb_putc(&line, ' ');
			if (st)
				sb_printf(&line, "\033[%sm%s\033[0m", st, s);
			else
				sb_puts(&line, s);
			if (t->align[c] != 'r' && !last)
				for (int i = 0; i < gap; i++)
					sb_putc(&line, ' ');
		}
		while (line.len && line.s[line.len - 1] == ' ')
			line.s[--line.len] = 0;
		fprintf(f, "%s\n", line.s ? line.s : "");
		sb_free(&line);
	}
	free(w);
}

static void csv_cell(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void table_print(const table *t, FILE *f, out_format fmt, int color, int indent)
{
	switch (fmt) {
	case FMT_TABLE:
		print_text(t, f, color, indent);
		break;
	case FMT_CSV:
		for (int r = -1; r < t->nrows; r++) {
			for (int c = 0; c < t->ncols; c++) {
				if (c)
					fputc(',', f);
				csv_cell(f, r < 0 ? t->head[c] : cell(t, r, c));
			}
			fputc('\n', f);
		}
		break;
	case FMT_JSON:
		fputs("[", f);
		for (int r = 0; r < t->nrows; r++) {
			fputs(r ? ",\n {" : "{", f);
			for (int c = 0; c < t->ncols; c++) {
				if (c)
					fputs(", ", f);
				json_str(f, t->head[c]);
				fputs(": ", f);
				json_str(f, cell(t, r, c));
			}
			fputs("}", f);
		}
		fputs("]\n", f);
		break;
	case FMT_MARKDOWN:
		for (int r = -2; r < t->nrows; r++) {
			fputc('|', f);
			for (int c = 0; c < t->ncols; c++) {
				if (r == -2)
					fprintf(f, " %s |", t->head[c]);
				else if (r == -1)
					fputs(t->align[c] == 'r' ? " ---: |" : " --- |", f);
				else {
					fputc(' ', f);
					for (const char *s = cell(t, r, c); *s; s++) {
						if (*s == '|')
							fputc('\\', f);
						fputc(*s, f);
					}
					fputs(" |", f);
				}
			}
			fputc('\n', f);
		}
		break;
	}
}

int format_parse(const char *s, out_format *f)
{
	static const char *names[] = { "table", "csv", "json", "markdown" };
	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0) {
			*f = (out_format)i;
			return 0;
		}
	return -1;
}

const char *format_name(out_format f)
{
	static const char *names[] = { "table", "csv", "json", "markdown" };
	return names[f];
}

void fmt_time_ms(double ms, char *buf, int n)
{
	double v;
	const char *u;
	if (ms < 0.001) {
		v = ms * 1e6;
		u = "ns";
	} else if (ms < 1.0) {
		v = ms * 1e3;
		u = "us";
	} else if (ms < 1000.0) {
		v = ms;
		u = "ms";
	} else {
		v = ms / 1000.0;
		u = "s";
	}
	int prec = v >= 100 ? 0 : v >= 10 ? 1 : 2;
	snprintf(buf, (size_t)n, "%.*f %s", prec, v, u);
}

void fmt_bytes(double b, char *buf, int n)
{
	if (b >= 1024.0 * 1024 * 1024)
		snprintf(buf, (size_t)n, "%.1f GiB", b / (1024.0 * 1024 * 1024));
	else if (b >= 1024.0 * 1024)
		snprintf(buf, (size_t)n, "%.1f MiB", b / (1024.0 * 1024));
	else if (b >= 1024.0)
		snprintf(buf, (size_t)n, "%.1f KiB", b / 1024.0);
	else
		snprintf(buf, (size_t)n, "%.0f B", b);
}

void fmt_dims(char *buf, size_t n, const uint32_t d[3])
{
	if (d[2] > 1)
		snprintf(buf, n, "%ux%ux%u", d[0], d[1], d[2]);
	else if (d[1] > 1)
		snprintf(buf, n, "%ux%u", d[0], d[1]);
	else
		snprintf(buf, n, "%u", d[0]);
}
