/* spec_tmpl.h: a template kernel instantiated. */
#ifndef CUPLAY_SPEC_TMPL_H
#define CUPLAY_SPEC_TMPL_H

#include "spec_types.h"

/* Kernel tk of s instantiated with args ("64, float"): a new kernel of s;
 * its index, or -1. */
int spec_instantiate(spec *s, int tk, const char *args, int line, int col);

#endif
