/* staging.h: the page-locked staging area through which a new
 * configuration's buffers go up and its checked outputs come down in
 * chunks (staging.c says why two chunks of 8 MiB), and the pageable
 * download buffer used where the area cannot be had. From stage_compare and
 * stage_upload, 1: the area cannot be had (or is of no use here), go the
 * way without it. */
#ifndef CUPLAY_STAGING_H
#define CUPLAY_STAGING_H

#include "ref.h"
#include "wrun.h"

/* The download buffer of checked outputs is kept between runs up to this
 * size. */
#define STAGE_KEEP_MAX (1 * GiB)

typedef struct wstaging {
	void *area;            /* the staging area, made on first need */
	CUstream stream;       /* its copies */
	CUevent done[2];       /* each half's last copy up */
	int state;             /* 0 not tried yet, 1 ready, -1 not to be had */
	void *download;        /* the download buffer for checked outputs (no staging area) */
	size_t download_bytes;
} wstaging;

/* Output d (n scalars of gt, called name) compared with want (n of wt)
 * as it comes down in chunks: ref_compare_typed's result in *cr. */
int stage_compare(wrun *r, wstaging *st, CUdeviceptr d, const char *name, dtype gt, const void *want,
                  dtype wt, uint64_t n, double tol, cmp_result *cr);
/* The staging area made now, if it is not yet (a worker's first check
 * makes it while its reference is still being computed): 0, or -1 on a
 * sticky error, reported (without the area, the callers go without it). */
int stage_prepare(wrun *r, wstaging *st);
/* bytes from host src up to d, chunk by chunk through the area; done when
 * it returns. */
int stage_upload(wrun *r, wstaging *st, CUdeviceptr dst, const void *src, size_t bytes, const char *name);
/* The download buffer and the staging area go; stage_trim: the buffer
 * only, when over STAGE_KEEP_MAX. */
void stage_free(wstaging *st);
void stage_trim(wstaging *st);
/* The download buffer, at least bytes long. */
void *stage_get(wrun *r, wstaging *st, size_t bytes, const char *what);
/* A host array for a whole copy from the GPU, its pages faulted in first
 * on every core (w_hmalloc's failure otherwise). */
void *stage_host_array(wrun *r, size_t bytes, const char *what);

#endif
