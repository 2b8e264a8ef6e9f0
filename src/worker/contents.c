/* contents.c: the initial contents of the run's device buffers, written
 * where they may be missing: by memset, from a pristine device copy, by
 * the GPU fill, or uploaded from the host copy. */
#include "contents.h"

#include <string.h>

/* Writes buffer i's initial contents into dst: one memset, else a copy of
 * the pristine device copy (CONTENTS_PRISTINE, when there is one), else a
 * random stream written on the GPU (unless CONTENTS_FROM_HOST), else an upload
 * of the host copy (through the staging area when it can). */
int contents_write(wrun *r, const wcontents *c, int i, CUdeviceptr dst, int how)
{
	pbuf *e = &c->pool->buf[i];
	if (e->bytes == 0)
		return 0;
	if (e->pat == PAT_D8)
		return w_ck(r, cu.MemsetD8(dst, (unsigned char)e->pval, e->bytes), "cuMemsetD8");
	if (e->pat == PAT_D32)
		return w_ck(r, cu.MemsetD32(dst, e->pval, e->bytes / 4), "cuMemsetD32");
	if ((how & CONTENTS_PRISTINE) && e->pristine && e->pristine != dst)
		return w_ck(r, cu.MemcpyDtoD(dst, e->pristine, e->bytes), "cuMemcpyDtoD");
	if (!(how & CONTENTS_FROM_HOST)) {
		int f = fill_random(r, c->fill, i, dst);
		if (f <= 0) {
			if (f == 0)
				r->filled += e->bytes;
			return f;
		}
	}
	void *h = pool_host_of(r, c->pool, i);
	if (!h)
		return -1;
	r->uploaded += e->bytes;
	/* a managed buffer goes up whole, as its download comes down */
	int s = r->p->bufs[i].managed ? 1 : stage_upload(r, c->staging, dst, h, e->bytes, r->p->bufs[i].name);
	if (s <= 0)
		return s;
	return w_ck(r, cu.MemcpyHtoD(dst, h, e->bytes), "cuMemcpyHtoD");
}

/* Resets every buffer whose device contents may have changed. */
int contents_reset_dirty(wrun *r, const wcontents *c)
{
	for (int i = 0; i < r->p->nbufs; i++) {
		pbuf *e = &c->pool->buf[i];
		if (!e->dirty)
			continue;
		if (contents_write(r, c, i, e->d, CONTENTS_PRISTINE) != 0)
			return -1;
		e->dirty = 0;
	}
	return 0;
}

/* Whether every buffer of the run was written by this run. */
int contents_all_verified(wrun *r, const wpool *pool)
{
	for (int i = 0; i < r->p->nbufs; i++)
		if (!pool->buf[i].verified)
			return 0;
	return 1;
}

/* Writes every buffer not verified (and its pristine copy) again from its
 * host copy (never the GPU fill: this is the way that trusts nothing the
 * GPU made) or memset. */
int contents_reverify(wrun *r, const wcontents *c)
{
	for (int i = 0; i < r->p->nbufs; i++) {
		pbuf *e = &c->pool->buf[i];
		if (e->verified)
			continue;
		if (e->pristine && contents_write(r, c, i, e->pristine, CONTENTS_FROM_HOST) != 0)
			return -1;
		if (contents_write(r, c, i, e->d, CONTENTS_FROM_HOST) != 0)
			return -1;
		e->dirty = 0;
		e->verified = 1;
	}
	return 0;
}

/* Resets every output the kernel may read (all: every output) to its
 * initial contents before a timed launch, queued on the stream. Returns
 * how many. */
int contents_restore_outputs(wrun *r, const wcontents *c, int all)
{
	int n = 0;
	for (int i = 0; i < r->p->nbufs; i++) {
		pbuf *e = &c->pool->buf[i];
		if (!r->p->bufs[i].output || (r->p->bufs[i].unread && !all) || e->bytes == 0)
			continue;
		CUresult x;
		const char *call;
		if (e->pat == PAT_D8) {
			x = cu.MemsetD8Async(e->d, (unsigned char)e->pval, e->bytes, NULL);
			call = "cuMemsetD8Async";
		} else if (e->pat == PAT_D32) {
			x = cu.MemsetD32Async(e->d, e->pval, e->bytes / 4, NULL);
			call = "cuMemsetD32Async";
		} else if (e->pristine) {
			x = cu.MemcpyDtoDAsync(e->d, e->pristine, e->bytes, NULL);
			call = "cuMemcpyDtoDAsync";
		} else {
			if (contents_write(r, c, i, e->d, 0) != 0) /* not expected: timing keeps a pristine copy */
				return -1;
			n++;
			continue;
		}
		if (w_ck(r, x, call) != 0)
			return -1;
		n++;
	}
	return n;
}

int contents_element(wrun *r, const wcontents *c, int i, uint64_t k, size_t esz, void *out)
{
	pbuf *e = &c->pool->buf[i];
	unsigned char *o = out;
	if (esz == 0 || (k + 1) * esz > e->bytes)
		return 1;
	if (e->pat == PAT_D8 || e->pat == PAT_D32) {
		for (size_t b = 0; b < esz; b++) { /* the pattern's bytes, little-endian words */
			uint64_t at = k * esz + b;
			o[b] = e->pat == PAT_D8 ? (unsigned char)e->pval : (unsigned char)(e->pval >> (8 * (at % 4)));
		}
		return 0;
	}
	const unsigned char *h = pool_host_of(r, c->pool, i);
	if (!h)
		return -1;
	memcpy(o, h + k * esz, esz);
	return 0;
}
