/* server_pipe.c: runs on host data (`//@ buffer ... host [pinned]`): the
 * host buffers, the streams, and each chunk's copy in, kernel on its slice
 * and copy out, on its own stream.
 *
 * The streams are made with CU_STREAM_DEFAULT: they wait for what the
 * legacy stream queued before (output resets, the L2 flush, the event that
 * opens a sample), and the legacy stream's next work (the event that closes
 * it) waits for them. A sample is then the whole pipeline, from the first
 * copy in to the last copy out. */
#include "server.h"

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
		w_fail(r, 0, "cannot page-lock %s for %s (cuMemHostAlloc: out of memory)", w_bytes(bytes, b, sizeof b),
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

int pipe_release(wrun *r, wstate *ws)
{
	int rc = 0;
	for (int i = 0; i < PLAN_MAX_BUFS; i++) {
		hbuf *h = &ws->host[i];
		if (host_free(r, h->in, h->pinned) != 0 || host_free(r, h->out, h->pinned) != 0)
			rc = -1;
		memset(h, 0, sizeof *h);
	}
	return rc;
}

void pipe_fini(wstate *ws)
{
	pipe_release(NULL, ws);
	for (int i = 0; i < ws->nstreams; i++)
		cu.StreamDestroy(ws->streams[i]);
	ws->nstreams = 0;
}

int pipe_poison(wrun *r)
{
	for (int i = 0; i < r->p->nbufs; i++) {
		hbuf *h = &r->ws->host[i];
		if (!h->out)
			continue;
		const void *init = pool_host_of(r, i);
		if (!init)
			return -1;
		memcpy(h->out, init, h->bytes);
	}
	return 0;
}

int pipe_setup(wrun *r)
{
	const plan *p = r->p;
	wstate *ws = r->ws;
	if (pipe_release(r, ws) != 0)
		return -1;
	if (p->nchunks <= 0)
		return 0;
	for (int i = 0; i < p->nbufs; i++) {
		const plan_buf *pb = &p->bufs[i];
		hbuf *h = &ws->host[i];
		if (!pb->copy_in && !pb->copy_out)
			continue;
		h->bytes = (size_t)(pb->count * dtype_size(pb->type));
		h->pinned = pb->host == BUF_HOST_PINNED;
		char what[96];
		snprintf(what, sizeof what, "host buffer '%s'", pb->name);
		const void *init = pool_host_of(r, i);
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
	if (pipe_poison(r) != 0)
		return -1;
	while (ws->nstreams < p->nchunks) {
		if (w_ck(r, cu.StreamCreate(&ws->streams[ws->nstreams], CU_STREAM_DEFAULT), "cuStreamCreate") != 0)
			return -1;
		ws->nstreams++;
	}
	return 0;
}

const void *pipe_out(wrun *r, int i)
{
	return i >= 0 && i < r->p->nbufs ? r->ws->host[i].out : NULL;
}

/* Where chunk c's slice of buffer i starts, and its bytes: the whole
 * buffer when it is not sliced. */
static void slice_of(const plan *p, int i, int c, size_t *off, size_t *bytes)
{
	const plan_buf *pb = &p->bufs[i];
	size_t es = dtype_size(pb->type);
	if (!pb->per) {
		*off = 0;
		*bytes = (size_t)(pb->count * es);
		return;
	}
	*off = (size_t)(p->chunks[c].start * pb->per * es);
	*bytes = (size_t)(p->chunks[c].len * pb->per * es);
}

int w_run_main(wrun *r)
{
	const plan *p = r->p;
	wstate *ws = r->ws;
	if (p->nchunks <= 0)
		return w_launch(r, r->fn, &p->launch, &r->ka);
	plan_launch *l = xmalloc(sizeof *l);
	kargs *ka = xmalloc(sizeof *ka);
	int rc = 0;
	for (int c = 0; c < p->nchunks && rc == 0; c++) {
		const plan_chunk *ch = &p->chunks[c];
		CUstream st = ws->streams[c];
		CUdeviceptr ptrs[PLAN_MAX_BUFS];
		for (int i = 0; i < p->nbufs; i++) {
			size_t off, bytes;
			slice_of(p, i, c, &off, &bytes);
			ptrs[i] = B(r, i)->d + (p->bufs[i].per ? off : 0);
			if (p->bufs[i].copy_in && bytes &&
			    (rc = w_ck(r, cu.MemcpyHtoDAsync(ptrs[i], (char *)ws->host[i].in + off, bytes, st),
			               "cuMemcpyHtoDAsync")) != 0)
				break;
		}
		if (rc != 0)
			break;
		*l = p->launch;
		memcpy(l->grid, ch->grid, sizeof l->grid);
		l->smem = ch->smem;
		w_build_args(ka, l, ptrs);
		for (int j = 0; j < l->nargs && j < 32; j++) {
			if (!(p->split_args >> j & 1))
				continue;
			argval *v = &ka->v[j];
			switch (l->args[j].kind) {
			case ARG_I32: v->i32 = (int32_t)ch->len; break;
			case ARG_U32: v->u32 = (uint32_t)ch->len; break;
			case ARG_I64: v->i64 = (int64_t)ch->len; break;
			case ARG_U64: v->u64 = ch->len; break;
			case ARG_F32: v->f32 = (float)ch->len; break;
			case ARG_F64: v->f64 = (double)ch->len; break;
			default: break;
			}
		}
		if ((rc = w_launch_on(r, r->fn, l, ka, st)) != 0)
			break;
		for (int i = 0; i < p->nbufs && rc == 0; i++) {
			size_t off, bytes;
			slice_of(p, i, c, &off, &bytes);
			if (p->bufs[i].copy_out && bytes)
				rc = w_ck(r, cu.MemcpyDtoHAsync((char *)ws->host[i].out + off, B(r, i)->d + off, bytes, st),
				          "cuMemcpyDtoHAsync");
		}
	}
	free(l);
	free(ka);
	return rc;
}

void measure_link(wrun *r)
{
	wstate *ws = r->ws;
	if (ws->link_done)
		return;
	ws->link_done = 1;
	size_t bytes = (size_t)(64 * MiB);
	CUdeviceptr d = 0;
	void *pinned = NULL, *pageable = NULL;
	CUresult e = cu.MemAlloc(&d, bytes);
	const char *call = "cuMemAlloc";
	if (e != CUDA_SUCCESS)
		goto out;
	call = "cuMemHostAlloc";
	if ((e = cu.MemHostAlloc(&pinned, bytes, 0)) != CUDA_SUCCESS)
		goto out;
	pageable = malloc(bytes);
	if (!pageable)
		goto out;
	memset(pageable, 1, bytes); /* the pages exist before they are timed */
	memset(pinned, 1, bytes);
	for (int k = 0; k < LINK_N; k++) {
		int h2d = k == LINK_H2D_PAGEABLE || k == LINK_H2D_PINNED;
		void *h = k == LINK_H2D_PINNED || k == LINK_D2H_PINNED ? pinned : pageable;
		float ms[3];
		for (int i = 0; i < 4; i++) { /* one warm-up, 3 timed */
			call = "cuEventRecord";
			if ((e = cu.EventRecord(ws->ev0, NULL)) != CUDA_SUCCESS)
				goto out;
			call = h2d ? "cuMemcpyHtoDAsync" : "cuMemcpyDtoHAsync";
			e = h2d ? cu.MemcpyHtoDAsync(d, h, bytes, NULL) : cu.MemcpyDtoHAsync(h, d, bytes, NULL);
			if (e != CUDA_SUCCESS)
				goto out;
			call = "cuEventRecord";
			if ((e = cu.EventRecord(ws->ev1, NULL)) != CUDA_SUCCESS)
				goto out;
			call = "cuEventSynchronize";
			if ((e = cu.EventSynchronize(ws->ev1)) != CUDA_SUCCESS)
				goto out;
			call = "cuEventElapsedTime";
			if (i > 0 && (e = cu.EventElapsedTime(&ms[i - 1], ws->ev0, ws->ev1)) != CUDA_SUCCESS)
				goto out;
		}
		float lo = ms[0] < ms[1] ? ms[0] : ms[1], hi = ms[0] < ms[1] ? ms[1] : ms[0];
		float med = ms[2] < lo ? lo : ms[2] > hi ? hi : ms[2];
		ws->link_gbps[k] = med > 0 ? (double)bytes / (med * 1e-3) / 1e9 : 0;
	}
	e = CUDA_SUCCESS;
out:
	if (e != CUDA_SUCCESS && cu_is_sticky(e))
		w_fail(r, 1, "measuring the host link: %s failed: %s", call, cu_errstr(e));
	if (d)
		cu.MemFree(d);
	if (pinned)
		cu.MemFreeHost(pinned);
	free(pageable);
}
