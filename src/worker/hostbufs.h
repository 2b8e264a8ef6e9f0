/* hostbufs.h: the host buffers of a run on host data, and the streams of
 * its chunks. */
#ifndef CUPLAY_HOSTBUFS_H
#define CUPLAY_HOSTBUFS_H

#include "pool.h"

/* A host buffer of the run (`//@ buffer ... host`): what is copied in
 * (the initial contents) and where the output is copied out to, page-locked
 * or not as the header says. */
typedef struct hbuf {
	void *in, *out;
	size_t bytes;
	int pinned;
} hbuf;

typedef struct whost {
	hbuf host[PLAN_MAX_BUFS];
	CUstream streams[PLAN_MAX_CHUNKS]; /* made on first need, kept */
	int nstreams;
} whost;

/* The run's host buffers (the initial contents copied into the inputs,
 * the outputs poisoned) and one stream per chunk; nothing without host
 * buffers. */
int pipe_setup(wrun *r, whost *wh, wpool *pool);
/* The host buffers go (the streams stay for the next run); r NULL: quietly. */
int pipe_release(wrun *r, whost *wh);
void pipe_fini(whost *wh);
/* Where output i was copied out to, or NULL when it is not copied out. */
const void *pipe_out(wrun *r, const whost *wh, int i);
/* The outputs' host copies poisoned again: a copy out that did not happen shows. */
int pipe_poison(wrun *r, whost *wh, wpool *pool);

#endif
