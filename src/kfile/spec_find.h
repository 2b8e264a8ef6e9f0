/* spec_find.h: looking up a kernel file's names (spec_find.c; spec_tmap_find
 * in tmap.c), which kernels run, and a kernel's effective launch lines. */
#ifndef CUPLAY_SPEC_FIND_H
#define CUPLAY_SPEC_FIND_H

#include "spec_types.h"

/* The define, param or buffer named by the len bytes at name: its index
 * in s->vars (*is_buf 0) or s->bufs (*is_buf 1), or -1; by hash. */
int spec_name_find(const spec *s, const char *name, size_t len, int *is_buf);
/* Indexes the last define or param (is_buf 0) or buffer (1) added. */
void spec_name_added(spec *s, int is_buf);
const spec_var *spec_var_find(const spec *s, const char *name);
int spec_buffer_find(const spec *s, const char *name); /* index or -1 */
int spec_tmap_find(const spec *s, const char *name);   /* index or -1 (tmap.c) */
/* A kernel by name: as shown (blanks inside template arguments do not
 * matter), or by its last part when that is unique ("copy" for
 * "course::copy"). Index or -1. */
int spec_kernel_find(const spec *s, const char *name);
/* The template kernel that `name` instantiates ("reduce" for "reduce<64>"),
 * whether or not the file names that instantiation; -1 when none. */
int spec_template_find(const spec *s, const char *name);
/* 1 when kernel k can be launched: not a template, not skipped. */
int spec_kernel_launchable(const spec *s, int k);
/* 1 when `run all` runs kernel k: launchable and not a step of a
 * sequence (the sequence runs it). */
int spec_kernel_in_all(const spec *s, int k);
/* How many kernels can be launched: what `use` and `ls` count. */
int spec_launchable(const spec *s);

/* The effective launch lines of kernel k: its overrides, then (for an
 * instantiation) its template's, over the base. */
void spec_effective(const spec *s, int k, spec_launch *out);

#endif
