/* spec_lines.h: the //@ lines whose text is read outside spec.c: `arch`
 * (target.c), `tensormap` (tmap.c), and the words after a reference's
 * arguments (matmul's tn, tf32). Each takes the text [p, end) of the line
 * after its directive, p at column col, and returns 0, or -1 with *why
 * (caller frees) and *errcol, the column of the fault. */
#ifndef CUPLAY_SPEC_LINES_H
#define CUPLAY_SPEC_LINES_H

#include "ref.h"
#include "spec_types.h"

int spec_arch_line(spec *s, const char *p, const char *end, int line, int col, int *errcol, char **why);
int spec_tmap_line(spec *s, const char *p, const char *end, int line, int col, int *errcol, char **why);
/* ch's arguments past f's nargs - 1: f's words (f->opts), each once. */
int spec_check_words(const spec_check *ch, const ref_fn *f, int at_col, int *errcol, char **why);

#endif
