/* timeline.h: a run's copies and kernels by stream against time, from the
 * GPU's own timestamps (result.h's spans): rows of bars with a time axis
 * for the terminal, and SVG; and what they say: the share of copy time
 * that kernels hid, and where nothing ran.
 *
 * Pure: it draws the spans it is given, in any order, and knows nothing of
 * how they were recorded. */
#ifndef CUPLAY_TIMELINE_H
#define CUPLAY_TIMELINE_H

#include <stdint.h>

#include "kclock.h"
#include "util.h"

typedef struct tl_stats {
	int nstreams, nkernels;
	int ncopies[3];          /* H2D, D2H, another copy */
	double bytes[3];         /* their bytes */
	double copy_kind_ms[3];  /* their durations, summed */
	double span_ms;          /* the first start to the last end */
	double kernel_ms;        /* time some kernel runs */
	double copy_ms;          /* the copies' durations, summed */
	double hidden_ms;        /* of the copies' time, that under some kernel */
	double overlap;          /* hidden_ms / copy_ms; -1 without copies */
	double duplex_ms;        /* time copies in and copies out run at once */
	double idle_ms;          /* within the span, time nothing runs */
	int ngaps;               /* idle stretches */
	double gap_max_ms;
} tl_stats;

void tl_compute(const tl_span *s, int n, tl_stats *st);

/* The rows (one per stream, in the order of their ids), the axis, a legend
 * and the statements, for a terminal of width columns (at least 40). */
void tl_text(const tl_span *s, int n, const char *title, int width, sbuf *out);
/* The same as SVG: a document (standalone), or an element to put inside
 * HTML. */
void tl_svg(const tl_span *s, int n, const char *title, int standalone, sbuf *out);

#endif
