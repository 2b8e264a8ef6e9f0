/* report.c: tables as text, CSV, JSON and Markdown. */
#include "report.h"
#include "util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static char *key_of(const char *title)
{
	char *k = xstrdup(title), *o = k;
	int gap = 0;
	for (const char *q = title; *q; q++) {
		unsigned char c = (unsigned char)*q;
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || c >= 0x80) {
			if (gap && o > k)
				*o++ = '_';
			gap = 0;
			*o++ = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
		} else {
			gap = 1;
		}
	}
	*o = 0;
	return k;
}

void table_init(table *t, int ncols, const char *const *head, const char *align)
{
	memset(t, 0, sizeof *t);
	t->ncols = ncols;
	t->head = xcalloc((size_t)ncols, sizeof *t->head);
	t->key = xcalloc((size_t)ncols, sizeof *t->key);
	t->align = xcalloc((size_t)ncols + 1, 1);
	t->unit = xcalloc((size_t)ncols, 1);
	t->only = xcalloc((size_t)ncols, 1);
	for (int i = 0; i < ncols; i++) {
		t->head[i] = xstrdup(head[i]);
		t->key[i] = key_of(head[i]);
		t->align[i] = align && align[i] ? align[i] : 'l';
	}
}

void table_kind(table *t, const char *kind)
{
	free(t->kind);
	t->kind = kind ? xstrdup(kind) : NULL;
}

void table_col(table *t, int col, const char *key, col_unit u, int only)
{
	if (key) {
		free(t->key[col]);
		t->key[col] = xstrdup(key);
	}
	t->unit[col] = (unsigned char)u;
	t->only[col] = (unsigned char)only;
}

int table_row(table *t)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 8;
		size_t n = (size_t)t->cap * (size_t)t->ncols;
		t->cells = xrealloc(t->cells, n * sizeof *t->cells);
		t->style = xrealloc(t->style, n * sizeof *t->style);
		t->num = xrealloc(t->num, n * sizeof *t->num);
		t->isnum = xrealloc(t->isnum, n);
	}
	for (int i = 0; i < t->ncols; i++) {
		int k = t->nrows * t->ncols + i;
		t->cells[k] = NULL;
		t->style[k] = NULL;
		t->num[k] = 0;
		t->isnum[k] = 0;
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
	int k = row * t->ncols + col;
	free(t->cells[k]);
	t->cells[k] = b.s ? sb_steal(&b) : xstrdup("");
	t->isnum[k] = 0;
}

void table_num(table *t, int row, int col, double v)
{
	int k = row * t->ncols + col;
	free(t->cells[k]);
	t->cells[k] = NULL;
	t->num[k] = v;
	t->isnum[k] = 1;
}

void table_bool(table *t, int row, int col, int v)
{
	table_num(t, row, col, v ? 1 : 0);
	t->isnum[row * t->ncols + col] = 2;
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
	for (int i = 0; i < t->ncols; i++) {
		free(t->head[i]);
		free(t->key[i]);
	}
	free(t->cells);
	free(t->style);
	free(t->num);
	free(t->isnum);
	free(t->head);
	free(t->key);
	free(t->align);
	free(t->unit);
	free(t->only);
	free(t->kind);
	memset(t, 0, sizeof *t);
}

void table_copy(table *dst, const table *src)
{
	table_init(dst, src->ncols, (const char *const *)src->head, src->align);
	table_kind(dst, src->kind);
	for (int c = 0; c < src->ncols; c++)
		table_col(dst, c, src->key[c], (col_unit)src->unit[c], src->only[c]);
	for (int r = 0; r < src->nrows; r++) {
		table_row(dst);
		for (int c = 0; c < src->ncols; c++) {
			int k = r * src->ncols + c;
			if (src->isnum[k] == 2)
				table_bool(dst, r, c, src->num[k] != 0);
			else if (src->isnum[k])
				table_num(dst, r, c, src->num[k]);
			else if (src->cells[k])
				table_set(dst, r, c, "%s", src->cells[k]);
			if (src->style[k])
				table_style(dst, r, c, src->style[k]);
		}
	}
}

/* A number as people read it, by its unit. */
static void human_num(double v, col_unit u, char *buf, size_t n)
{
	switch (u) {
	case U_INT:
		snprintf(buf, n, "%.0f", v);
		break;
	case U_MS:
		fmt_time_ms(v, buf, (int)n);
		break;
	case U_BYTES:
		fmt_bytes(v, buf, (int)n);
		break;
	case U_FRAC:
		snprintf(buf, n, "%.0f%%", v * 100);
		break;
	case U_FRAC1:
		snprintf(buf, n, "%.1f%%", v * 100);
		break;
	case U_F0:
		snprintf(buf, n, "%.0f", v);
		break;
	case U_F1:
		snprintf(buf, n, "%.1f", v);
		break;
	case U_X:
		snprintf(buf, n, "%.2fx", v);
		break;
	default:
		if (v == (double)(long long)v && v > -1e15 && v < 1e15)
			snprintf(buf, n, "%lld", (long long)v);
		else
			snprintf(buf, n, "%.4g", v);
		break;
	}
}

/* A number for a parser: integers as integers, else enough digits. */
static void raw_num(double v, char *buf, size_t n)
{
	if (v != v || v == 1.0 / 0.0 || v == -1.0 / 0.0)
		snprintf(buf, n, "null");
	else if (v == (double)(long long)v && v > -9e15 && v < 9e15)
		snprintf(buf, n, "%lld", (long long)v);
	else
		snprintf(buf, n, "%.10g", v);
}

void table_text(const table *t, int row, int col, char *buf, size_t n)
{
	int k = row * t->ncols + col;
	if (t->isnum[k] == 2)
		snprintf(buf, n, "%s", t->num[k] ? "yes" : "");
	else if (t->isnum[k])
		human_num(t->num[k], (col_unit)t->unit[col], buf, n);
	else
		snprintf(buf, n, "%s", t->cells[k] ? t->cells[k] : "");
}

/* The raw text of a cell: "" when empty or a number. */
static const char *cell(const table *t, int r, int c)
{
	const char *s = t->cells[r * t->ncols + c];
	return s ? s : "";
}

static int empty_cell(const table *t, int r, int c)
{
	int k = r * t->ncols + c;
	return !t->isnum[k] && (!t->cells[k] || !t->cells[k][0]);
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
	int n = t->nrows * t->ncols;
	char **txt = xcalloc((size_t)n + 1, sizeof *txt);
	for (int r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			char buf[256];
			table_text(t, r, c, buf, sizeof buf);
			txt[r * t->ncols + c] = str_visible(buf); /* a file name's control bytes */
		}
	int *w = xcalloc((size_t)t->ncols, sizeof *w);
	for (int c = 0; c < t->ncols; c++) {
		w[c] = width(t->head[c]);
		for (int r = 0; r < t->nrows; r++)
			if (width(txt[r * t->ncols + c]) > w[c])
				w[c] = width(txt[r * t->ncols + c]);
	}
	/* drop columns that are empty in every row, and those only for parsers */
	for (int r = -1; r < t->nrows; r++) {
		pad(f, indent);
		int first = 1;
		sbuf line = {0};
		for (int c = 0; c < t->ncols; c++) {
			if (t->only[c] == COL_RAW || t->only[c] == COL_NONE)
				continue;
			int empty = 1;
			for (int rr = 0; rr < t->nrows && empty; rr++)
				empty = txt[rr * t->ncols + c][0] == 0;
			if (empty && t->nrows > 0)
				continue;
			const char *s = r < 0 ? t->head[c] : txt[r * t->ncols + c];
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
	for (int i = 0; i < n; i++)
		free(txt[i]);
	free(txt);
	free(w);
}

static void csv_cell(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
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

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: no
 * overlong form, no surrogate, nothing past U+10FFFF), or 0. */
static int utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) || (c == 0xf0 && s[1] < 0x90) ||
	    (c == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x80) { /* JSON is UTF-8: a byte of no character is U+FFFD */
			int n = utf8_len((const unsigned char *)s);
			if (n)
				fwrite(s, 1, (size_t)n, f);
			else
				fputs("\\ufffd", f);
			s += n ? n - 1 : 0;
		} else if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static int raw_col(const table *t, int c)
{
	return t->only[c] == COL_BOTH || t->only[c] == COL_RAW;
}

/* One row as a JSON object: its type, then its fields. */
static void json_row(const table *t, int r, FILE *f)
{
	fputc('{', f);
	int first = 1;
	if (t->kind) {
		fputs("\"type\": ", f);
		json_str(f, t->kind);
		first = 0;
	}
	for (int c = 0; c < t->ncols; c++) {
		if (!raw_col(t, c))
			continue;
		if (!first)
			fputs(", ", f);
		first = 0;
		json_str(f, t->key[c]);
		fputs(": ", f);
		int k = r * t->ncols + c;
		if (t->isnum[k] == 2) {
			fputs(t->num[k] ? "true" : "false", f);
		} else if (t->isnum[k]) {
			char buf[64];
			raw_num(t->num[k], buf, sizeof buf);
			fputs(buf, f);
		} else if (empty_cell(t, r, c)) {
			fputs("null", f);
		} else {
			json_str(f, cell(t, r, c));
		}
	}
	fputc('}', f);
}

static void raw_cell(const table *t, int r, int c, char *buf, size_t n)
{
	int k = r * t->ncols + c;
	if (t->isnum[k] == 2)
		snprintf(buf, n, "%s", t->num[k] ? "true" : "false");
	else if (t->isnum[k])
		raw_num(t->num[k], buf, n);
	else
		snprintf(buf, n, "%s", cell(t, r, c));
	if (t->isnum[k] && strcmp(buf, "null") == 0)
		buf[0] = 0;
}

/* The header line of t's CSV: its raw columns' keys, comma-separated. */
static char *csv_header(const table *t)
{
	sbuf b = { 0 };
	for (int c = 0; c < t->ncols; c++) {
		if (!raw_col(t, c))
			continue;
		if (b.len)
			sb_putc(&b, ',');
		sb_puts(&b, t->key[c]);
	}
	return b.s ? b.s : xstrdup("");
}

/* header: print the header line too */
static void print_csv(const table *t, FILE *f, int header)
{
	for (int r = header ? -1 : 0; r < t->nrows; r++) {
		int first = 1;
		for (int c = 0; c < t->ncols; c++) {
			if (!raw_col(t, c))
				continue;
			if (!first)
				fputc(',', f);
			first = 0;
			if (r < 0) {
				csv_cell(f, t->key[c]);
			} else if (t->isnum[r * t->ncols + c]) {
				char buf[64];
				raw_cell(t, r, c, buf, sizeof buf);
				fputs(buf, f);
			} else {
				csv_cell(f, cell(t, r, c));
			}
		}
		fputc('\n', f);
	}
}

static void print_markdown(const table *t, FILE *f)
{
	for (int r = -2; r < t->nrows; r++) {
		fputc('|', f);
		for (int c = 0; c < t->ncols; c++) {
			if (!raw_col(t, c))
				continue;
			if (r == -2) {
				fprintf(f, " %s |", t->key[c]);
			} else if (r == -1) {
				fputs(t->align[c] == 'r' ? " ---: |" : " --- |", f);
			} else {
				char buf[64];
				const char *s = buf;
				if (t->isnum[r * t->ncols + c])
					raw_cell(t, r, c, buf, sizeof buf);
				else
					s = cell(t, r, c);
				fputc(' ', f);
				for (; *s; s++) {
					if (*s == '|')
						fputc('\\', f);
					fputc(*s == '\n' ? ' ' : *s, f);
				}
				fputs(" |", f);
			}
		}
		fputc('\n', f);
	}
}

static void html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

void table_html(const table *t, FILE *f)
{
	/* the columns people see, as the text table shows them: those for
	 * parsers and those empty in every row left out */
	unsigned char *show = xcalloc((size_t)t->ncols + 1, 1);
	char buf[1024];
	for (int c = 0; c < t->ncols; c++) {
		if (t->only[c] == COL_RAW || t->only[c] == COL_NONE)
			continue;
		for (int r = 0; r < t->nrows && !show[c]; r++) {
			table_text(t, r, c, buf, sizeof buf);
			show[c] = buf[0] != 0;
		}
		show[c] |= t->nrows == 0;
	}
	fputs("<table class=\"cuplay\">\n<thead><tr>", f);
	for (int c = 0; c < t->ncols; c++)
		if (show[c]) {
			fputs(t->align[c] == 'r' ? "<th style=\"text-align:right\">" : "<th style=\"text-align:left\">", f);
			html_text(f, t->head[c]);
			fputs("</th>", f);
		}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (int r = 0; r < t->nrows; r++) {
		fputs("<tr>", f);
		for (int c = 0; c < t->ncols; c++)
			if (show[c]) {
				table_text(t, r, c, buf, sizeof buf);
				fputs(t->align[c] == 'r' ? "<td style=\"text-align:right\">" : "<td style=\"text-align:left\">", f);
				html_text(f, buf);
				fputs("</td>", f);
			}
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
	free(show);
}

/* One line of code: comments dim, the first word (the instruction or
 * directive) bold, the rest as it is. */
static void code_line(FILE *f, const char *s, const char *e)
{
	int word_done = 0;
	while (s < e) {
		if (s + 1 < e && s[0] == '/' && s[1] == '/') {
			char *t = xstrndup(s, (size_t)(e - s));
			fputs("<span style=\"color:#6a737d\">", f);
			html_text(f, t);
			fputs("</span>", f);
			free(t);
			break;
		}
		if (s + 1 < e && s[0] == '/' && s[1] == '*') {
			const char *c = s + 2;
			while (c + 1 < e && !(c[0] == '*' && c[1] == '/'))
				c++;
			c = c + 1 < e ? c + 2 : e;
			fputs("<span style=\"color:#6a737d\">", f);
			char *t = xstrndup(s, (size_t)(c - s));
			html_text(f, t);
			free(t);
			fputs("</span>", f);
			s = c;
			continue;
		}
		if (!word_done && (isalpha((unsigned char)*s) || *s == '.' || *s == '@' || *s == '_')) {
			const char *w = s;
			while (w < e && (isalnum((unsigned char)*w) || *w == '.' || *w == '_' || *w == '@' || *w == '!'))
				w++;
			char *t = xstrndup(s, (size_t)(w - s));
			fputs(*s == '.' ? "<span style=\"color:#a31515\">" : "<b>", f);
			html_text(f, t);
			fputs(*s == '.' ? "</span>" : "</b>", f);
			free(t);
			word_done = 1;
			s = w;
			continue;
		}
		if (!isspace((unsigned char)*s))
			word_done = 1;
		char one[2] = { *s++, 0 };
		html_text(f, one);
	}
}

void code_html(const char *text, FILE *f)
{
	fputs("<pre class=\"cuplay-code\">", f);
	for (const char *s = text; *s;) {
		const char *e = strchr(s, '\n');
		if (!e)
			e = s + strlen(s);
		code_line(f, s, e);
		if (!*e)
			break;
		fputc('\n', f);
		s = e + 1;
	}
	fputs("</pre>\n", f);
}

void doc_open(doc *d, FILE *f, out_format fmt, int color, const char *version)
{
	memset(d, 0, sizeof *d);
	d->f = f;
	d->fmt = fmt;
	d->color = color;
	d->version = version;
	d->open = 1;
}

void doc_table(doc *d, const table *t, int indent)
{
	FILE *f = d->f;
	switch (d->fmt) {
	case FMT_TABLE:
		print_text(t, f, d->color, indent);
		break;
	case FMT_CSV: {
		/* rows of the same columns go under the header already written:
		 * a table of other columns (another kind of row) starts one of
		 * its own, after a blank line */
		char *h = csv_header(t);
		int same = d->csv_head && strcmp(d->csv_head, h) == 0;
		if (!same && d->csv_head)
			fputc('\n', f);
		print_csv(t, f, !same);
		if (same) {
			free(h);
		} else {
			free(d->csv_head);
			d->csv_head = h;
		}
		break;
	}
	case FMT_MARKDOWN:
		if (d->ntables)
			fputc('\n', f);
		print_markdown(t, f);
		break;
	case FMT_JSONL:
		for (int r = 0; r < t->nrows; r++) {
			json_row(t, r, f);
			fputc('\n', f);
		}
		break;
	case FMT_JSON:
		for (int r = 0; r < t->nrows; r++) {
			if (d->nrec == 0) {
				fputs("{\"cuplay\": ", f);
				json_str(f, d->version ? d->version : "");
				fputs(", \"format\": 1, \"records\": [\n", f);
			} else {
				fputs(",\n", f);
			}
			fputs("  ", f);
			json_row(t, r, f);
			d->nrec++;
		}
		break;
	}
	d->nrec += d->fmt == FMT_JSON ? 0 : t->nrows;
	d->ntables++;
	fflush(f);
}

void doc_close(doc *d)
{
	if (!d->open)
		return;
	if (d->fmt == FMT_JSON) {
		if (d->nrec == 0) {
			fputs("{\"cuplay\": ", d->f);
			json_str(d->f, d->version ? d->version : "");
			fputs(", \"format\": 1, \"records\": [", d->f);
		}
		fputs(d->nrec ? "\n]}\n" : "]}\n", d->f);
	}
	fflush(d->f);
	free(d->csv_head);
	d->csv_head = NULL;
	d->open = 0;
}

void table_print(const table *t, FILE *f, out_format fmt, int color, int indent)
{
	doc d;
	doc_open(&d, f, fmt, color, NULL);
	doc_table(&d, t, indent);
	doc_close(&d);
}

static const char *format_names[] = { "table", "csv", "json", "markdown", "jsonl" };

int format_parse(const char *s, out_format *f)
{
	for (int i = 0; i < 5; i++)
		if (strcmp(s, format_names[i]) == 0) {
			*f = (out_format)i;
			return 0;
		}
	return -1;
}

int format_is_data(out_format f)
{
	return f != FMT_TABLE;
}

const char *format_name(out_format f)
{
	return format_names[f];
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
