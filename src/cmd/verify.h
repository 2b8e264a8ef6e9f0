/* verify.h: `cuplay --verify EXERCISE SOURCE|-`: one submission of a class
 * board's exercise (kfile/exercise.h) verified in this process, through the
 * run's own steps (run.h) and its worker, into one JSON line.
 *
 * The submission is screened first: its source at most the exercise's
 * bytes; `#include` only of the toolkit's headers (<...>, found in its
 * include folders or among NVRTC's stand-ins), never a quoted or absolute
 * one; its `//@` lines: `define` of a name the starting file defines is
 * kept (a tuning knob), `kernel K` for the exercise's kernel with launch
 * options only (no check, bytes, flops, skip, tol) is kept, `include` and
 * `link` are refused, every other line (sizes, buffers, checks, timing) is
 * ignored: the starting file's header governs. The file verified is that
 * header, then `#line 1 "NAME"` and the submission, so that NVRTC's errors
 * name the submission's lines. It must define the exercise's kernel with
 * the starting file's parameter types.
 *
 * Then, on a GPU: the run at the exercise's timed size (its check and the
 * timed launches' check), the same on inputs from fresh seeds (timed too),
 * each check-only size on a fresh seed, and the baseline from the starting
 * file timed in the same worker. A launch that makes no progress for a
 * third of the exercise's time limit is stopped (status timeout). */
#ifndef CUPLAY_VERIFY_H
#define CUPLAY_VERIFY_H

#include "app.h"

typedef struct verify_req {
	const char *exercise;      /* the exercise file's path */
	const char *source;        /* the submission's path, or "-" for stdin */
	uint64_t seed;             /* the fresh inputs' seed; 0: from getrandom */
	int compile_only;
	const char *name;          /* the submission's file name in messages; NULL: the source's
	                              (submission.cu for stdin) */
} verify_req;

/* Verifies r's submission: 0 with the JSON line (no newline) in *json
 * (what went wrong with the submission is its status), or -1 when there is
 * no result to give (the exercise unreadable, the source unreadable: said
 * on stderr). */
int verify_run(app *a, const verify_req *r, sbuf *json);

#endif
