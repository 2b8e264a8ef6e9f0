/* devcache.c: per-device files in the cache directory. */
#include "devcache.h"
#include "fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void devcache_save(const app *a, const char *path, const char *text)
{
	if (mkdir_p(a->cache.dir, 0700) != 0 || write_file_atomic(path, text, strlen(text)) != 0) {
		if (getenv("CUPLAY_TRACE"))
			fprintf(stderr, "trace: cannot keep %s: %s\n", path, strerror(errno));
	}
}
