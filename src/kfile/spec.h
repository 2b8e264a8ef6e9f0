/* spec.h: a kernel file: parsing its //@ header and the __global__
 * functions in it. The types and the header's lines: spec_types.h. */
#ifndef CUPLAY_SPEC_H
#define CUPLAY_SPEC_H

#include "spec_types.h"
#include "spec_find.h"
#include "spec_free.h"

/* Parses src (owned by the caller; copied). Every error message starts with
 * "path:line:col: "; *err holds every independent error, a line each, in
 * the order of their lines (spec_err.h: at most SPEC_MAX_ERRORS). Semantic
 * checks done here: duplicate names, a define sharing a kernel parameter's
 * name, unknown kernel in `//@ kernel`, unknown reference in `check`,
 * undeclared names in expressions, a kernel parameter without its buffer or
 * param, a buffer no kernel takes, missing grid/block for some kernel. */
int spec_parse(const char *path, const char *src, spec *out, char **err);

/* A kernel file's text holds no byte a compiler would stop at: 0, or -1
 * with *err "path:line:col: ..." for a NUL or 0xff byte. */
int spec_text_check(const char *path, const char *text, size_t len, char **err);

#endif
