/* perline.h: `lines`, a kernel's cost by source line, and the line
 * expectations (`expect K line "TEXT" FIGURE OP X`).
 *
 *   lines [KERNEL[SEL]] [--sort stall|inst|global|shared|local|order] [--sass] [--all]
 *   lines A[SEL] B[SEL]          two variants side by side, line by line
 *
 * With a GPU: the kernel is checked once, then run once with its SASS
 * patched to count each instruction and once under PC sampling (the
 * per-line run, never a timed sample: its overhead is printed). Without
 * one: the instructions of each line, from the cubin's line table. The
 * views made are kept for `expect ... line` and `explain`. */
#ifndef CUPLAY_PERLINE_H
#define CUPLAY_PERLINE_H

#include "app.h"
#include "lines.h"

/* argv[0] is "lines". 0, or -1 (said). */
int perline_run(app *a, int argc, char **argv);

/* expect LABEL line "TEXT" FIGURE OP RHS, RHS: X, X * FIGURE or FIGURE
 * (argv[0] is "expect", argv[2] "line"). 0 held (or skipped without a
 * GPU, said), -1 failed or bad input (one error line). */
int perline_expect(app *a, int argc, char **argv);

/* explain's rules about an access or a stall (uncoalesced, bank
 * conflicts, local memory, the tensor rules) that fired for kernel k
 * (compiled in c) name the line that convicts each, from one per-line run
 * (its own replay; none when no such rule fired, or without a GPU): "explain:
 * uncoalesced: line 57 "const float v = A[idx];" {4.0x its ideal global
 * sectors: ...}". The view is kept. 0, or -1 (said). */
struct explain_out;
int perline_explain(app *a, runctx *c, int k, const struct explain_out *o);

/* `say`'s {line K[SEL] FIGURE TEXT}: "line 90: 32.0x" (a ratio), "line 90:
 * 41%" (a share), "line 90: 1048576" (a count) for the line of the latest
 * view of label that holds text, into b; what is missing said in words.
 * -1 when figure is not one lines_value knows. */
int perline_say(const char *label, const char *figure, const char *text, sbuf *b);

/* The views kept, in the order made (for the lab report): the i-th's
 * kernel, values and file; NULL past the last. */
const lines_view *perline_kept(int i, const char **kernel, const char **vline, const char **path);

/* The latest view kept for kernel `kernel` (any values), or NULL. */
const lines_view *perline_latest(const char *kernel);

/* The views kept, freed (at the session's end). */
void perline_forget(void);

#endif
