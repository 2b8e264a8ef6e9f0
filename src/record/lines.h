/* lines.h: a kernel's cost by source line: its instructions, mapped to
 * (file, line) from the cubin's line table, with what each cost where the
 * per-line run counted it (sassprof.h), added up a line at a time, per
 * function (a template's instantiation, a sequence's step). A line of an
 * included header is shown as such, under the kernel file's line that
 * called it where the line table records where it was inlined (a line
 * inlined at two calls is two records), else under the kernel file's line
 * that precedes it in the code. Renderers
 * draw the record; they compute nothing. */
#ifndef CUPLAY_LINES_H
#define CUPLAY_LINES_H

#include <stdint.h>

#include "report.h"
#include "sassprof.h"
#include "util.h"

/* One instruction, mapped: the input of lines_build. */
typedef struct lines_insn {
	int func;              /* the function's index (lines_build's names) */
	uint32_t pc;
	const char *file;      /* its source file as compiled; NULL: no line */
	int line;
	const char *site_file; /* inlined code: the outermost call site's file and line */
	int site_line;         /* (the cubin's line table); 0: not inlined, or not known */
	const sp_pc *c;        /* its counts; NULL: none (no GPU, or not run) */
	const char *sass;      /* its disassembly; NULL: none */
} lines_insn;

/* p's counts added to q's (one instruction's records from the counters and
 * from the samples, which may name its function differently): the
 * metrics, the samples, the top reasons (the same reason added up, others
 * kept while there is room). */
void lines_merge_pc(sp_pc *q, const sp_pc *p);

/* A line's instruction, kept for the --sass view. */
typedef struct line_pc {
	uint32_t pc;
	char *sass;
	double m[SP_NMETRIC];
	double samples;
} line_pc;

/* One (function, file, line): every figure added up. */
typedef struct line_rec {
	int func;
	char *file;            /* base name */
	int line;
	int header;            /* in a file other than the kernel's */
	int under;             /* header: the kernel file's line that called it (else the one
	                        * before it in the code); 0 none */
	int called;            /* under is the recorded call site, not the line before */
	char *text;            /* the kernel file's line, trimmed; NULL for a header */
	int ninsn;
	double m[SP_NMETRIC];
	double samples;
	double reason_n[SP_MAX_REASONS];
	line_pc *pcs;
	int npcs;
} line_rec;

typedef struct lines_view {
	int counted;           /* the counters were collected */
	int sampled;           /* PC samples were taken */
	char why[512];         /* why not counted, where a GPU was there to count; "" */
	char samp_why[512];    /* why not sampled, likewise */
	int nfuncs;
	char **funcs;          /* display names */
	int nreasons;
	char reasons[SP_MAX_REASONS][SP_REASON_NAME];
	double total_samples, total_inst;
	line_rec *lines;
	int n;
} lines_view;

/* The view of n instructions of nfuncs functions (names: display names),
 * user_file the kernel file as compiled (its base name is compared),
 * src its text (for the lines' text; may be NULL), h the collection's
 * head (NULL: no counts). */
void lines_build(lines_view *v, const lines_insn *ins, int n, const char *const *names, int nfuncs,
                 const char *user_file, const char *src, const sp_head *h);
void lines_free(lines_view *v);
/* The text of the lines of another file (base name base: a header) from
 * its source src, where the file could be read; else they stay textless. */
void lines_set_text(lines_view *v, const char *base, const char *src);

/* What a line is sorted and barred by. */
typedef enum { LS_STALL, LS_INST, LS_GLOBAL, LS_SHARED, LS_LOCAL, LS_ORDER } lines_sort;
/* "stall", "inst", "global", "shared", "local", "order": 0, or -1. */
int lines_sort_parse(const char *s, lines_sort *out);
/* The figure a line is ranked by: samples, warp instructions, global
 * sectors beyond the ideal, shared wavefronts beyond the ideal, local
 * sectors (order: instructions). */
double lines_figure(const line_rec *r, lines_sort s);

/* The line of function func whose text contains needle (the first one
 * that does, in source order; a header's line only where no line of the
 * kernel file holds it), or NULL; *many: more than one does. */
const line_rec *lines_find(const lines_view *v, int func, const char *needle, int *many);

/* A line's named figure: inst, thread_inst, warps_full (0..1), global,
 * global_ideal, global_excess, global_x (sectors / ideal), shared,
 * shared_ideal, shared_excess, shared_x, local, stall (the share of the
 * samples, 0..1), samples. 0 with *val, or -1 for an unknown name. */
int lines_value(const lines_view *v, const line_rec *r, const char *name, double *val);
/* The names lines_value knows, comma-separated, for messages. */
extern const char lines_value_names[];

/* The short name of a stall reason: "barrier" for
 * "smsp__pcsamp_warps_issue_stalled_barrier". */
const char *lines_reason_short(const char *name);

/* The table of function func's lines (func -1: every function), sorted by
 * s, the lines that cost nothing left out unless all; with sass, each
 * line's instructions under it. Columns for people and raw keys for csv
 * and json ("type": "line"). */
void lines_table(table *t, const lines_view *v, int func, lines_sort s, int all, int sass, int unicode);

/* Function func's lines as HTML (a table into b): every line of the
 * kernel file from its first line with code to its last, numbered, its
 * source, a bar of its share of the view's figure (the stall samples where
 * sampled, else warp instructions, else instructions), and what it cost
 * beyond the ideal ("32.0x shared wavefronts", "4.0x global sectors",
 * "local: 8192 sectors"); a header's lines after the line they sit under.
 * src: the kernel file's text. */
void lines_html(sbuf *b, const lines_view *v, int func, const char *src);

/* Two views of one kernel side by side, line by line, in source order:
 * the figure s of each and the change. */
void lines_diff_table(table *t, const lines_view *a, const lines_view *b, lines_sort s);

#endif
