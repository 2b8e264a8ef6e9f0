/* report.h: renders a table it is given as aligned text, CSV, JSON or
 * Markdown. It knows nothing of where the cells came from. */
#ifndef CUPLAY_REPORT_H
#define CUPLAY_REPORT_H

#include <stdint.h>
#include <stdio.h>

typedef enum { FMT_TABLE, FMT_CSV, FMT_JSON, FMT_MARKDOWN, FMT_JSONL } out_format;

/* What a number in a column is: people see it with its unit ("1.23 ms",
 * "4.0 KiB", "83%"); csv, json and markdown get the raw number under a
 * key that names the unit ("median_ms", "smem_bytes", "roof_frac"). */
typedef enum {
	U_PLAIN, /* as it is: %.10g */
	U_INT,   /* a count: no decimals */
	U_MS,    /* milliseconds, shown as ns/us/ms/s */
	U_BYTES, /* shown as B/KiB/MiB/GiB */
	U_FRAC,  /* a fraction, shown as a whole percentage */
	U_FRAC1, /* a fraction, shown as a percentage with one decimal */
	U_F0,    /* shown without decimals (GB/s, GFLOP/s) */
	U_F1,    /* shown with one decimal */
	U_X,     /* a ratio, shown as 1.53x */
} col_unit;

/* which formats show a column */
enum { COL_BOTH = 0, COL_HUMAN = 1, COL_RAW = 2, COL_NONE = 3 };

typedef struct table {
	int ncols, nrows, cap;
	char *kind;       /* what a row is ("run", "resources"): json's "type" */
	char **head;      /* column titles, for people */
	char **key;       /* column keys, for csv, json and markdown */
	char *align;      /* 'l' or 'r' per column */
	unsigned char *unit, *only; /* per column: a unit, COL_* */
	char **cells;     /* nrows * ncols, owned: text, or NULL */
	double *num;      /* nrows * ncols: the number, where isnum */
	unsigned char *isnum;
	char **style;     /* per cell: NULL or an SGR sequence ("1", "32") for TTY output */
} table;

void table_init(table *t, int ncols, const char *const *head, const char *align);
/* Adds a row; returns its index. Cells start empty. */
int table_row(table *t);
void table_set(table *t, int row, int col, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;
/* A number, drawn by the column's unit. */
void table_num(table *t, int row, int col, double v);
/* A yes or no: true/false for parsers, "yes"/"" for people. */
void table_bool(table *t, int row, int col, int v);
/* The record type of a row (json's "type"): "run", "resources", ... */
void table_kind(table *t, const char *kind);
/* Column col: its key in csv, json and markdown (default: the title in
 * lower case, '_' for what is not a letter or digit), its unit, and which
 * formats show it. */
void table_col(table *t, int col, const char *key, col_unit u, int only);
void table_style(table *t, int row, int col, const char *sgr);
void table_free(table *t);
/* The text a cell shows people ("" for an empty one). */
void table_text(const table *t, int row, int col, char *buf, size_t n);
/* A copy of t. */
void table_copy(table *dst, const table *src);

/* color: use SGR styles (a TTY without NO_COLOR). indent: spaces before
 * each line of FMT_TABLE output. FMT_JSON prints one document of its own
 * (a doc with this one table). */
void table_print(const table *t, FILE *f, out_format fmt, int color, int indent);

/* t as an HTML table (the columns and cells people see, escaped), for a
 * page or a notebook. */
void table_html(const table *t, FILE *f);

/* Code (PTX, SASS) as an HTML <pre>: comments dim, each line's first word
 * (its instruction or directive) stressed, everything escaped. */
void code_html(const char *text, FILE *f);

/* The data of one invocation: tables, one after another, as one document.
 * FMT_JSON: {"cuplay": VERSION, "format": 1, "records": [ ... ]}, each row
 * an object with its "type"; FMT_JSONL: one object a line; FMT_CSV: one
 * header for tables of the same columns one after another (the runs of
 * several commands and files), a blank line and a header of its own for a
 * table of other columns; FMT_MARKDOWN: a header for each table; FMT_TABLE:
 * text. */
typedef struct doc {
	FILE *f;
	out_format fmt;
	int color;
	int open, nrec, ntables;
	const char *version;
	char *csv_head; /* FMT_CSV: the header of the rows written last */
} doc;

void doc_open(doc *d, FILE *f, out_format fmt, int color, const char *version);
void doc_table(doc *d, const table *t, int indent);
/* Ends the document (json's closing brackets); the file stays open. */
void doc_close(doc *d);

int format_parse(const char *s, out_format *f);
const char *format_name(out_format f);
/* csv, json, jsonl and markdown: data only on stdout */
int format_is_data(out_format f);

/* Human figures: 3 significant digits with a unit. */
void fmt_time_ms(double ms, char *buf, int n);  /* 812 ns, 12.3 us, 1.23 ms, 1.23 s */
void fmt_bytes(double b, char *buf, int n);     /* 512 B, 4.0 KiB, 256.0 MiB */
void fmt_dims(char *buf, size_t n, const uint32_t d[3]); /* 256, 32x8, 4x4x2 */

#endif
