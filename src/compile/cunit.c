/* cunit.c: a compiled kernel file's lookups and its freeing. */
#include "cunit.h"

#include <stdlib.h>
#include <string.h>

int cunit_find(const cunit *u, const char *name)
{
	for (int i = 0; i < u->nk; i++)
		if (strcmp(u->names[i], name) == 0)
			return i;
	return -1;
}

void cunit_free(cunit *u)
{
	if (!u)
		return;
	free(u->cubin);
	free(u->ptx);
	free(u->warnings);
	for (int i = 0; i < u->nk; i++) {
		free(u->names[i]);
		free(u->lowered[i]);
	}
	free(u->names);
	free(u->lowered);
	free(u->res);
	free(u->options);
	free(u);
}
