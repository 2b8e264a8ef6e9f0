/* lab.h: a lab report of what a session measured, as one self-contained
 * HTML page (tables, charts as inline SVG, no scripts, no links out) or as
 * Markdown: per kernel file the source of each kernel run, the results, the
 * speedups, what `explain` said and the roofline, the counters; the GPU
 * and its conditions; the commands. It
 * draws measurement records and knows nothing else. */
#ifndef CUPLAY_LAB_H
#define CUPLAY_LAB_H

#include "lines.h"
#include "measure.h"
#include "timeline.h"

#include <stdio.h>

/* A kernel's cost by source line (`lines`): its file, the values it ran
 * with, the view. */
typedef struct lab_lines {
	const char *kernel, *values, *path;
	const lines_view *v;
} lab_lines;

typedef struct lab_input {
	const measurement *runs; /* in the order they were made */
	int nruns;
	char *const *commands;   /* the session's commands, as typed */
	int ncommands;
	const char *version;     /* cuplay's */
	const char *when;        /* "2026-11-23 22:40 UTC" */
	const tl_span *tl;       /* the last run's timeline (timeline.h), or NULL */
	int ntl;
	const char *tl_title;
	double mem_gbps;         /* the roofs measured (0: unknown), for the roofline */
	double fp32_gflops;
	const lab_lines *lines;  /* the per-line views made (`lines`), in order */
	int nlines;
} lab_input;

typedef enum { LAB_HTML, LAB_MARKDOWN } lab_format;

/* 1 for a `metrics` run (counters, and no times of its own): a row of the
 * counters table, not of the results. */
int lab_counters_only(const measurement *m);

/* Writes the report to f. */
void lab_write(FILE *f, lab_format fmt, const lab_input *in);

/* The text of kernel `name` in src (from the line of its `__global__`, or
 * its template line, to its closing brace); NULL when not found. A name
 * such as reduce_t<256> or course::copy finds reduce_t and copy. */
char *lab_kernel_source(const char *src, const char *name);

#endif
