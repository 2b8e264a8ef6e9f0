/* ccache.h: compile a kernel file for a set of -D values, through a cache in
 * memory and on disk. Key: SHA-256 of the source, every file it includes
 * from its own directory (recursively), the sorted -D list, the options, the
 * target arch and the NVRTC version. Disk entries live in one directory,
 * written to a temp file and renamed, and are verified by a hash of their
 * contents before use; a bad entry is recompiled and replaced. */
#ifndef CUPLAY_CCACHE_H
#define CUPLAY_CCACHE_H

#include <stdint.h>
#include "nvrtc.h"
#include "spec.h"

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
	struct cunit *next;
	uint64_t used;
} cunit;

typedef enum { CC_COMPILED, CC_MEMORY, CC_DISK } cc_source;

typedef struct ccache {
	cunit *head;
	int n, max;
	char *dir;        /* NULL: memory only */
	int disk_warned;
	uint64_t tick;
	/* counters, for tests and `show` */
	int hits_mem, hits_disk, misses, corrupt;
} ccache;

/* dir NULL: $XDG_CACHE_HOME/cuplay or ~/.cache/cuplay; "" disables disk. */
void ccache_init(ccache *c, const char *dir);
void ccache_free(ccache *c);

/* defs: "NAME=VALUE" strings (any order). Returns the unit (owned by the
 * cache, valid until the next ccache_compile) or NULL with *err. *warn gets
 * a one-line notice about the disk cache when something went wrong there
 * (caller prints it; set at most once per cache). */
const cunit *ccache_compile(ccache *c, const spec *s, const char *const *defs, int ndefs,
                            int sm, cc_source *src, double *ms, char **warn, char **err);

int cunit_find(const cunit *u, const char *name); /* index or -1 */

/* The cache key of a compile, hex; for tests. */
int ccache_key(const spec *s, const char *const *defs, int ndefs, int sm, uint8_t key[32], char **err);

#endif
