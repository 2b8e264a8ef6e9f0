/* wprintf.h: device printf, caught in a memory file behind stdout so that
 * it never reaches the front end's output raw (wprintf.c says how). */
#ifndef CUPLAY_WPRINTF_H
#define CUPLAY_WPRINTF_H

#include "wrun.h"

typedef struct wprintf {
	int fd;                  /* where device printf goes (this process's stdout): a memfd, or -1 */
	int own_err;             /* the worker's own stderr, while a run points fd 2 at fd: assertion
	                            messages go to stderr */
	int err_hooked;          /* fd 2 points at fd (this run's dup2 held) */
	uint64_t first_end;      /* the output shown ends here (0: none yet) */
	uint64_t first_launches; /* the run's launches when it was taken */
} wprintf;

/* At start-up: stdout becomes a memory file (before the driver starts). */
void pf_open(wprintf *pf);
/* At the start of a run: empties it, and points stderr at it (a failed
 * dup2 is traced). */
void pf_reset(wrun *r, wprintf *pf);
/* After a synchronised launch: when nothing was shown yet, what the launches
 * so far wrote becomes the text shown. */
void pf_first(wrun *r, wprintf *pf);
/* At the end of a run: the rest, counted; after a failure, the end of the
 * output is what is shown (an assertion's message is there). */
void pf_finish(wrun *r, wprintf *pf);

#endif
