/* pool.h: the device buffers the GPU worker keeps from run to run, and the
 * host copies of their initial contents. */
#ifndef CUPLAY_POOL_H
#define CUPLAY_POOL_H

#include "buffer.h"
#include "wrun.h"

/* A buffer's initial contents as one memset: none, one byte, one word. */
enum { PAT_NONE, PAT_D8, PAT_D32 };

/* A device buffer kept from run to run. Its signature says what its
 * initial contents are; a launch marks dirty the outputs and the
 * inputs its PTX may write (plan_buf.written), so an input left clean by
 * the last run needs no upload. */
typedef struct pbuf {
	buffer_sig sig;
	CUdeviceptr d;         /* what the kernel sees; 0: an empty slot */
	CUdeviceptr pristine;  /* a device copy of the initial contents, or 0 */
	void *host;            /* the initial contents, or NULL until needed */
	size_t bytes;
	int pat;               /* PAT_*: the initial contents as one memset */
	unsigned int pval;
	int dirty;             /* d may differ from the initial contents */
	int verified;          /* this run wrote d (and pristine) from host or pattern */
	int module;            /* d is a variable of this run's module (`//@ global`): not ours to free */
} pbuf;

typedef struct wpool {
	/* buf[i]: buffer i of the last plan. Only the last plan's buffers are
	 * kept, so device memory never holds more than one plan's buffers and
	 * their pristine copies. */
	pbuf buf[PLAN_MAX_BUFS];
	void *early[PLAN_MAX_BUFS]; /* host copies filled before the context (pool_early_fill) */
	size_t early_bytes[PLAN_MAX_BUFS];
} wpool;

/* What the buffers stage made for the fill stage: pristine copies not
 * yet written (each joins its buffer once written), and counts for the
 * trace. */
typedef struct wfresh {
	CUdeviceptr pristine[PLAN_MAX_BUFS];
	int reused, made;
} wfresh;
/* The pristine copies not joined go. */
void pool_fresh_free(wfresh *fresh);

/* Frees a pooled buffer (r NULL: quietly, when the worker leaves). */
int pool_release(wrun *r, pbuf *e);
/* Every buffer goes; pool_held: whether any is held. */
int pool_drop(wrun *r, wpool *pool);
int pool_held(const wpool *pool);
/* The host copy of buffer i's initial contents, made on first need. */
void *pool_host_of(wrun *r, wpool *pool, int i);
/* While the context is being made: fills the host copies of the plan's
 * random and iota buffers, as pool_host_of would after the allocations,
 * so that this host work overlaps with the context's creation. Quiet: a
 * copy that cannot be had is left to pool_host_of, which takes those
 * made here. */
void pool_early_fill(wrun *r, wpool *pool);
/* The early copies no request took. */
void pool_early_free(wpool *pool);

#endif
