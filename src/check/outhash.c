/* outhash.c: the output hash on the CPU, and the verdict cache. */
#include "outhash.h"

#include <string.h>

static uint64_t mix_a(uint64_t z)
{
	z ^= z >> 30;
	z *= 0xbf58476d1ce4e5b9ull;
	z ^= z >> 27;
	z *= 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t mix_b(uint64_t z)
{
	z ^= z >> 33;
	z *= 0xff51afd7ed558ccdull;
	z ^= z >> 33;
	z *= 0xc4ceb9fe1a85ec53ull;
	return z ^ (z >> 33);
}

void outhash_words(const uint64_t *w, uint64_t i0, uint64_t i1, uint64_t h[2])
{
	for (uint64_t i = i0; i < i1; i++) {
		uint64_t a = mix_a(w[i - i0] ^ (i * 0x9e3779b97f4a7c15ull));
		h[0] += a;
		h[1] += mix_b(a + i);
	}
}

void outhash(const void *data, uint64_t bytes, uint64_t h[2])
{
	const unsigned char *p = data;
	h[0] = h[1] = 0;
	uint64_t nw = bytes / 8, buf[256];
	for (uint64_t i = 0; i < nw; i += 256) {
		uint64_t m = nw - i < 256 ? nw - i : 256;
		for (uint64_t k = 0; k < m; k++) { /* little-endian words, whatever the alignment */
			uint64_t v = 0;
			for (int b = 7; b >= 0; b--)
				v = v << 8 | p[(i + k) * 8 + (uint64_t)b];
			buf[k] = v;
		}
		outhash_words(buf, i, i + m, h);
	}
	if (bytes % 8) {
		uint64_t v = 0;
		for (int b = (int)(bytes % 8) - 1; b >= 0; b--)
			v = v << 8 | p[nw * 8 + (uint64_t)b];
		outhash_words(&v, nw, nw + 1, h);
	}
}

static int same(const verdict *v, const ref_key *k, double tol, uint64_t count, uint64_t bytes, const uint64_t h[2])
{
	return v->h[0] == h[0] && v->h[1] == h[1] && v->count == count && v->bytes == bytes &&
	       memcmp(&v->tol, &tol, sizeof tol) == 0 && ref_key_eq(&v->key, k);
}

const cmp_result *verdict_get(const verdict_cache *c, const ref_key *k, double tol, uint64_t count,
                              uint64_t bytes, const uint64_t h[2])
{
	for (int i = 0; i < c->n; i++)
		if (same(&c->v[i], k, tol, count, bytes, h))
			return &c->v[i].cr;
	return NULL;
}

void verdict_put(verdict_cache *c, const ref_key *k, double tol, uint64_t count, uint64_t bytes,
                 const uint64_t h[2], const cmp_result *cr)
{
	for (int i = 0; i < c->n; i++)
		if (same(&c->v[i], k, tol, count, bytes, h)) {
			c->v[i].cr = *cr;
			return;
		}
	verdict *v = &c->v[c->next];
	c->next = (c->next + 1) % VERDICT_MAX;
	if (c->n < VERDICT_MAX)
		c->n++;
	v->key = *k;
	v->tol = tol;
	v->count = count;
	v->bytes = bytes;
	v->h[0] = h[0];
	v->h[1] = h[1];
	v->cr = *cr;
}
