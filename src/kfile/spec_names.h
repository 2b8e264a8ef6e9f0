/* spec_names.h: every name a kernel file's expressions use is declared. */
#ifndef CUPLAY_SPEC_NAMES_H
#define CUPLAY_SPEC_NAMES_H

#include "spec_types.h"

typedef struct spec_unknown {
	const spec_expr *e; /* the expression */
	int at, len;        /* the name, within e->text */
	const char *what;   /* its line: "grid", "block", "smem", "buffer size", ... */
} spec_unknown;

/* The names in s's expressions (values of defines and params, buffer
 * sizes, grid, block, cluster, smem, bytes, flops, check arguments, check
 * at, streams; the kernels' overrides) that are neither a define, a param,
 * a device fact nor, in a check's arguments, a buffer: up to max of them,
 * each at its first use, in u[]; returns how many (0: every name is
 * declared). */
int spec_unknown_names(const spec *s, spec_unknown *u, int max);

#endif
