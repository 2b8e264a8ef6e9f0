/* wcheck.h: stage 4 of a request (worker.c draws them all). */
#ifndef CUPLAY_WCHECK_H
#define CUPLAY_WCHECK_H

#include "contents.h"
#include "gpuhash.h"
#include "launch.h"
#include "outhash.h"
#include "ref.h"
#include "wprintf.h"

/* The reference cache: at most this many results, of at most this many
 * bytes in all. */
#define REF_CACHE_ENTRIES 4
#define REF_CACHE_BYTES (2 * GiB)

/* What the checks keep from run to run. */
typedef struct wchecks {
	ref_cache refs;        /* reference results of recent checks */
	verdict_cache verdicts; /* results of comparisons, by the hash of the output compared */
	gpuhash hash;          /* the output hash on the GPU */
	outsums sums;          /* this run's: the checked launch's output hashes */
} wchecks;

/* References computed on the host beside the GPU work. */
typedef struct ref_ahead ref_ahead;

/* Once the run's buffers are allocated and before any is written: the
 * references of a new configuration's checks start now, on a thread of
 * their own, on the host copies of their inputs, beside the upload, the
 * checked launch and the download. NULL when the run checks nothing. */
ref_ahead *check_ahead(wrun *r, wpool *pool, wchecks *ck);
/* The end of a run: a reference thread still running is waited for. */
void check_end(ref_ahead **a);
/* The checks (the references started early in *early, if any), each one's
 * result in res->checks; res->check_ms; where every check passed, the
 * hashes of the outputs checked in ck->sums. 0, or -1 with the run's error
 * recorded. */
int check_stage(wrun *r, const wcontents *c, whost *wh, wkernels *k, wprintf *pf, wchecks *ck, ref_ahead **early);

#endif
