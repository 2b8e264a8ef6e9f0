/* hostbufs.c: runs on host data (`//@ buffer ... host [pinned]`): the
 * host buffers and the streams of the chunks (launch.c queues each chunk's
 * copy in, kernel on its slice and copy out on its own stream).
 *
 * The streams are made with CU_STREAM_DEFAULT: they wait for what the
 * legacy stream queued before (output resets, the L2 flush, the event that
 * opens a sample), and the legacy stream's next work (the event that closes
 * it) waits for them. A sample is then the whole pipeline, from the first
 * copy in to the last copy out. */
#include "hostbufs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *host_alloc(wrun *r, size_t bytes, int pinned, const char *what)
{
	if (!pinned)
		return w_hmalloc(r, bytes ? bytes : 1, what);
	void *h = NULL;
	CUresult e = cu.MemHostAlloc(&h, bytes ? bytes : 1, 0);
	if (e == CUDA_ERROR_OUT_OF_MEMORY) {
		char b[32];
		w_fail(r, W_ERROR, "cannot page-lock %s for %s (cuMemHostAlloc: out of memory)", w_bytes(bytes, b, sizeof b),
		       what);
		return NULL;
	}
	if (w_ck(r, e, "cuMemHostAlloc") != 0)
		return NULL;
	return h;
}

/* r NULL: quietly, when the worker leaves */
static int host_free(wrun *r, void *h, int pinned)
{
	if (!h || !pinned) {
		free(h);
		return 0;
	}
	CUresult e = cu.MemFreeHost(h);
	return r ? w_ck(r, e, "cuMemFreeHost") : 0;
}

int pipe_release(wrun *r, whost *wh)
{
	int rc = 0;
	for (int i = 0; i < PLAN_MAX_BUFS; i++) {
		hbuf *h = &wh->host[i];
		if (host_free(r, h->in, h->pinned) != 0 || host_free(r, h->out, h->pinned) != 0)
			rc = -1;
		memset(h, 0, sizeof *h);
	}
	return rc;
}

void pipe_fini(whost *wh)
{
	pipe_release(NULL, wh);
	for (int i = 0; i < wh->nstreams; i++)
		cu.StreamDestroy(wh->streams[i]);
	wh->nstreams = 0;
}

int pipe_poison(wrun *r, whost *wh, wpool *pool)
{
	for (int i = 0; i < r->p->nbufs; i++) {
		hbuf *h = &wh->host[i];
		if (!h->out)
			continue;
		const void *init = pool_host_of(r, pool, i);
		if (!init)
			return -1;
		memcpy(h->out, init, h->bytes);
	}
	return 0;
}

int pipe_setup(wrun *r, whost *wh, wpool *pool)
{
	const plan *p = r->p;
	if (pipe_release(r, wh) != 0)
		return -1;
	if (p->nchunks <= 0)
		return 0;
	for (int i = 0; i < p->nbufs; i++) {
		const plan_buf *pb = &p->bufs[i];
		hbuf *h = &wh->host[i];
		if (!pb->copy_in && !pb->copy_out)
			continue;
		h->bytes = (size_t)(pb->count * dtype_size(pb->type));
		h->pinned = pb->host == BUF_HOST_PINNED;
		char what[96];
		snprintf(what, sizeof what, "host buffer '%s'", pb->name);
		const void *init = pool_host_of(r, pool, i);
		if (!init)
			return -1;
		if (pb->copy_in) {
			if (!(h->in = host_alloc(r, h->bytes, h->pinned, what)))
				return -1;
			memcpy(h->in, init, h->bytes);
		}
		if (pb->copy_out && !(h->out = host_alloc(r, h->bytes, h->pinned, what)))
			return -1;
	}
	if (pipe_poison(r, wh, pool) != 0)
		return -1;
	while (wh->nstreams < p->nchunks) {
		if (w_ck(r, cu.StreamCreate(&wh->streams[wh->nstreams], CU_STREAM_DEFAULT), "cuStreamCreate") != 0)
			return -1;
		wh->nstreams++;
	}
	return 0;
}

const void *pipe_out(wrun *r, const whost *wh, int i)
{
	return i >= 0 && i < r->p->nbufs ? wh->host[i].out : NULL;
}
