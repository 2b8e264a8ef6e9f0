/* pool.c: the GPU worker's device buffers, kept from run to run, and the
 * host copies of their initial contents. */
#include "pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"

void pool_early_fill(wrun *r, wpool *pool)
{
	const plan *p = r->p;
	pool_early_free(pool);
	int n = 0;
	for (int i = 0; i < p->nbufs && i < PLAN_MAX_BUFS; i++) {
		const plan_buf *pb = &p->bufs[i];
		/* what pool_host_of fills for an upload: no memset will do */
		if (pb->global || (pb->init != INIT_RANDOM && pb->init != INIT_IOTA) || pb->count == 0)
			continue;
		size_t bytes = (size_t)(pb->count * dtype_size(pb->type));
		void *h = big_malloc(bytes);
		if (!h)
			continue;
		buffer_fill(h, pb->type, pb->count, pb->init, pb->value, buffer_seed(p->seed, pb->name));
		pool->early[i] = h;
		pool->early_bytes[i] = bytes;
		n++;
	}
	if (n > 0)
		w_trace(r, "host copies of %d buffer%s filled while the context is made", n, n == 1 ? "" : "s");
}

static void *early_take(wpool *pool, int i, size_t bytes)
{
	if (i < 0 || i >= PLAN_MAX_BUFS || !pool->early[i])
		return NULL;
	void *h = pool->early[i];
	pool->early[i] = NULL;
	if (pool->early_bytes[i] != bytes) {
		free(h);
		return NULL;
	}
	return h;
}

void pool_early_free(wpool *pool)
{
	for (int i = 0; i < PLAN_MAX_BUFS; i++) {
		free(pool->early[i]);
		pool->early[i] = NULL;
	}
}

/* Frees a pooled buffer (r NULL: quietly, when the worker leaves). */
int pool_release(wrun *r, pbuf *e)
{
	int ret = 0;
	if (e->d && !e->module) {
		CUresult x = cu.MemFree(e->d);
		if (r && w_ck(r, x, "cuMemFree") != 0)
			ret = -1;
	}
	if (e->pristine) {
		CUresult x = cu.MemFree(e->pristine);
		if (r && w_ck(r, x, "cuMemFree") != 0)
			ret = -1;
	}
	free(e->host);
	memset(e, 0, sizeof *e);
	return ret;
}

int pool_drop(wrun *r, wpool *pool)
{
	int ret = 0;
	for (int i = 0; i < PLAN_MAX_BUFS; i++)
		if (pool_release(r, &pool->buf[i]) != 0)
			ret = -1;
	return ret;
}

int pool_held(const wpool *pool)
{
	for (int i = 0; i < PLAN_MAX_BUFS; i++)
		if (pool->buf[i].d)
			return 1;
	return 0;
}

/* The host copy of buffer i's initial contents, made on first need. Never
 * written once made (the references read it on a thread of their own
 * while the run goes on); freed only when its buffer leaves the pool, in
 * buffers_stage before the references start, or when the worker leaves. */
void *pool_host_of(wrun *r, wpool *pool, int i)
{
	pbuf *e = &pool->buf[i];
	if (!e->host)
		e->host = early_take(pool, i, e->bytes);
	if (e->host)
		return e->host;
	const plan_buf *pb = &r->p->bufs[i];
	char what[96];
	snprintf(what, sizeof what, "buffer '%s'", pb->name);
	void *h = w_hmalloc(r, e->bytes, what);
	if (!h)
		return NULL;
	buffer_fill(h, pb->type, pb->count, pb->init, pb->value, buffer_seed(r->p->seed, pb->name));
	if (pb->init == INIT_LIST) /* the values given, as scalars (checked against the plan's list) */
		for (uint32_t k = 0; k < pb->list_n; k++)
			buffer_put(h, dtype_scalar(pb->type), k, r->p->list[pb->list_off + k]);
	e->host = h;
	return h;
}

void pool_fresh_free(wfresh *fresh)
{
	for (int i = 0; i < PLAN_MAX_BUFS; i++)
		if (fresh->pristine[i])
			cu.MemFree(fresh->pristine[i]); /* never written: not worth a message of its own */
	memset(fresh->pristine, 0, sizeof fresh->pristine);
}
