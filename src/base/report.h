/* report.h: renders a table it is given as aligned text, CSV, JSON or
 * Markdown. It knows nothing of where the cells came from. */
#ifndef CUPLAY_REPORT_H
#define CUPLAY_REPORT_H

#include <stdint.h>
#include <stdio.h>

typedef enum { FMT_TABLE, FMT_CSV, FMT_JSON, FMT_MARKDOWN } out_format;

typedef struct table {
	int ncols, nrows, cap;
	char **head;      /* column titles */
	char *align;      /* 'l' or 'r' per column */
	char **cells;     /* nrows * ncols, owned */
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
void table_style(table *t, int row, int col, const char *sgr);
void table_free(table *t);

/* color: use SGR styles (a TTY without NO_COLOR). indent: spaces before
 * each line of FMT_TABLE output. */
void table_print(const table *t, FILE *f, out_format fmt, int color, int indent);

int format_parse(const char *s, out_format *f);
const char *format_name(out_format f);

/* Human figures: 3 significant digits with a unit. */
void fmt_time_ms(double ms, char *buf, int n);  /* 812 ns, 12.3 us, 1.23 ms, 1.23 s */
void fmt_bytes(double b, char *buf, int n);     /* 512 B, 4.0 KiB, 256.0 MiB */
void fmt_dims(char *buf, size_t n, const uint32_t d[3]); /* 256, 32x8, 4x4x2 */

#endif
