/* headers.h: the `include` command: where NVRTC looks for the headers of
 * the kernel file, and a directory added to that list. */
#ifndef CUPLAY_HEADERS_H
#define CUPLAY_HEADERS_H

#include "app.h"

/* dir NULL: prints the search list of the current file (or the user's and
 * the toolkit's directories without one) and the C headers given in
 * memory; else adds dir (searched after the file's own directories). */
int app_include(app *a, const char *dir);

#endif
