/* devcache.h: writing the files kept per device in the cache directory (the
 * roofs, the kernel clock's check), named by builtin_cache_path. */
#ifndef CUPLAY_DEVCACHE_H
#define CUPLAY_DEVCACHE_H

#include "app.h"

/* Keeps text in path (made atomically, the directory made first); a
 * failure only costs the next process a measurement (said with
 * CUPLAY_TRACE). */
void devcache_save(const app *a, const char *path, const char *text);

#endif
