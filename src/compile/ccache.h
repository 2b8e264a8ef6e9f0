/* ccache.h: compile a kernel file for a set of -D values, through a cache in
 * memory and on disk.
 *
 * What NVRTC gets: the kernel file (in memory, under its own name), the
 * header directories (the file's own, its `//@ include` ones, the user's,
 * then the toolkit's), stand-ins for C headers NVRTC lacks, and a short
 * program that includes the file: the toolkit headers the file starts
 * with, then the defines, then the file. The toolkit headers thus come
 * before anything that changes between compiles, so NVRTC's automatic
 * precompiled headers (kept in this process) skip them after the first
 * compile: `set BS=128` recompiles a CUB kernel without parsing CUB again.
 *
 * Key: SHA-256 of that program, the file's name and text, every header it
 * includes from outside the toolkit (found as NVRTC finds them, nested,
 * each by its contents), the options, the target arch and the NVRTC
 * version (which stands for the toolkit's own headers). Disk entries live
 * in one directory, written to a temp file and renamed, verified by a hash
 * of their contents before use (a bad entry is recompiled and replaced),
 * and pruned, least recently used first, under a size bound. */
#ifndef CUPLAY_CCACHE_H
#define CUPLAY_CCACHE_H

#include <stdint.h>
#include "cunit.h"
#include "nvrtc.h"
#include "spec.h"

#define CCACHE_MAX_BYTES_DEFAULT ((uint64_t)256 << 20)
#define CCACHE_PCH_KEPT 3 /* precompiled header sets kept on disk (CUB's: ~180 MB) */

typedef enum { CC_COMPILED, CC_MEMORY, CC_DISK } cc_source;

typedef struct ccache {
	cunit *head;
	int n, max;
	char *dir;        /* NULL: memory only */
	char *off_why;    /* why there is no disk cache, said once (NULL: one was asked for "") */
	int disk_warned;
	uint64_t tick;
	uint64_t max_bytes; /* the disk cache is pruned under this */
	int pch;          /* automatic precompiled headers (CUPLAY_PCH=0: off) */
	char *pch_dir;    /* this process's, made at the first use, removed by ccache_free */
	char **incdirs;   /* the user's header directories (-I, `include`) */
	int nincdirs;
	struct ccpending *pending; /* a compile in the background (ccache_prefetch_some) */
	/* counters, for tests and `show` */
	int hits_mem, hits_disk, misses, corrupt, pruned;
} ccache;

/* dir NULL: $XDG_CACHE_HOME/cuplay (when absolute), else ~/.cache/cuplay
 * when HOME is a directory, else none (memory only, and the first compile
 * says why); "" disables disk. CUPLAY_CACHE_MAX (bytes, or with K, M or G)
 * bounds the disk cache. */
void ccache_init(ccache *c, const char *dir);
void ccache_free(ccache *c);

/* Adds a header directory, searched after the kernel file's own and its
 * `//@ include` ones (as -I). 0, or -1 with *err when it is not a directory. */
int ccache_add_include(ccache *c, const char *dir, char **err);

/* The header search list of a compile of s, in order, with which are the
 * toolkit's (*toolkit[i]); caller frees the strings and both arrays. */
char **ccache_search_path(const ccache *c, const spec *s, int *n, int **toolkit);

/* defs: "NAME=VALUE" strings (any order); arch: the target, "sm_90a". Returns the unit (owned by the
 * cache, valid until the next ccache_compile) or NULL with *err. *warn gets
 * a one-line notice about the disk cache when something went wrong there
 * (caller prints it; set at most once per cache). */
const cunit *ccache_compile(ccache *c, const spec *s, const char *const *defs, int ndefs,
                            const char *arch, cc_source *src, double *ms, char **warn, char **err);

/* The same for the kernels want[0..nwant) of s (indices) and what they
 * need (reduce.h): the file cut down to them, every line in its place, so
 * each kernel is compiled and cached on its own; the whole file's unit
 * when it is cached already, and the whole file where it cannot be cut. */
const cunit *ccache_compile_some(ccache *c, const spec *s, const int *want, int nwant, const char *const *defs,
                                 int ndefs, const char *arch, cc_source *src, double *ms, char **warn, char **err);

/* Starts in the background (the compile server) the compile that
 * ccache_compile_some would make for these arguments, unless it is cached
 * or under way: the compile that asks for it later waits for it instead of
 * starting one. One at a time: another one started, or another compile
 * asked for, takes the one before into the cache when it has finished and
 * stops it when it has not. Prints nothing; its errors are the later
 * compile's to say. 0, or -1 when none was started (no compile server, a
 * file that cannot be prepared). */
int ccache_prefetch_some(ccache *c, const spec *s, const int *want, int nwant, const char *const *defs, int ndefs,
                         const char *arch);
/* Stops a compile in the background: 1 when there was one running. */
int ccache_cancel(ccache *c);
/* 1 while a compile in the background runs. */
int ccache_pending(const ccache *c);

/* One compile of a batch: the defines, and the kernels (want NULL: the
 * whole file). */
typedef struct cc_item {
	const char *const *defs;
	int ndefs;
	const int *want;
	int nwant;
} cc_item;
/* Compiles the items not cached yet at once, up to width at a time (the
 * compile server and more processes for the batch: ccs_run_batch), each
 * into the cache on its own, so that the ccache_compile_some of each then
 * finds it. Prints nothing: a compile that fails is compiled again, and
 * its error said, by the command that needs it. How many were made. */
int ccache_compile_batch(ccache *c, const spec *s, const cc_item *items, int n, const char *arch, int width);

/* The cache key of a compile; for tests. */
int ccache_key(const ccache *c, const spec *s, const char *const *defs, int ndefs, const char *arch,
               uint8_t key[32], char **err);

#endif
