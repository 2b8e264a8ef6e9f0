/* vsource.h: a class board submission screened and made into the kernel
 * file that `--verify` runs (verify.h says the rules). */
#ifndef CUPLAY_VSOURCE_H
#define CUPLAY_VSOURCE_H

#include <stddef.h>
#include "exercise.h"
#include "spec.h"

typedef struct vsource {
	char *text;        /* the starting file's header, `#line 1 "NAME"`, the submission */
	int offset;        /* lines of text before the submission's first */
	char *ignored;     /* the submission's `//@` lines ignored: "3, 5-9"; NULL: none */
} vsource;

/* The file of submission sub[0..len) (called name in messages) for
 * exercise ex, whose starting file is start (parsed). 0, or -1 with *why
 * ("NAME:LINE: ..." where a line is at fault), the submission refused. */
int vsource_make(const spec *start, const struct exercise *ex, const char *sub, size_t len, const char *name,
                 vsource *out, char **why);
void vsource_free(vsource *v);

/* 1 when `#include <h>` names a header of the toolkit (its include folders
 * or NVRTC's stand-ins, toolkit.h), 0 otherwise. */
int vsource_toolkit_header(const char *h);

#endif
