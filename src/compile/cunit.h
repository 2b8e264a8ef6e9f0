/* cunit.h: a compiled kernel file (a unit): its cubin and PTX, and per
 * kernel the name asked for, the lowered (mangled) name and the
 * resources. Made by the compile cache (ccache.h), kept on disk by
 * ccdisk.h. */
#ifndef CUPLAY_CUNIT_H
#define CUPLAY_CUNIT_H

#include <stddef.h>
#include <stdint.h>
#include "nvrtc.h"

typedef struct cunit {
	uint8_t key[32];
	void *cubin;
	size_t cubin_len;
	char *ptx;
	char *warnings; /* the user-facing NVRTC log, or NULL */
	int nk;
	char **names, **lowered;
	kres *res;
	char *options;  /* the options line, for display */
	nvrtc_pch pch;  /* what this compile did with precompiled headers */
	struct cunit *next;
	uint64_t used;
} cunit;

/* The index of kernel `name` in u, or -1. */
int cunit_find(const cunit *u, const char *name);
/* u and everything it holds (NULL: nothing). */
void cunit_free(cunit *u);

#endif
