/* outhash.c: the output hash on the CPU, and the verdict cache. */
#include "outhash.h"

#include <math.h>
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

int recmp_type(dtype t)
{
	dtype s = dtype_scalar(t);
	return s == DT_FLOAT || s == DT_DOUBLE;
}

static void recmp_one(double g, double w, int bits_differ, uint64_t i, recmp_sums *s)
{
	if (bits_differ) {
		s->ndiff++;
		if (s->first_not == 0 || ~i > s->first_not)
			s->first_not = ~i;
	}
	if (!isfinite(w)) {
		if (!((isnan(w) && isnan(g)) || g == w))
			s->nbad++;
		return;
	}
	if (!isfinite(g)) {
		s->nbad++;
		return;
	}
	s->nfin++;
	s->ss_want += w * w;
	s->ss_diff += (g - w) * (g - w);
}

void recmp_host(const void *got, const void *want, dtype t, uint64_t n, recmp_sums *s)
{
	memset(s, 0, sizeof *s);
	if (dtype_scalar(t) == DT_DOUBLE) {
		const double *g = got, *w = want;
		for (uint64_t i = 0; i < n; i++)
			recmp_one(g[i], w[i], memcmp(&g[i], &w[i], sizeof g[i]) != 0, i, s);
		return;
	}
	const float *g = got, *w = want;
	for (uint64_t i = 0; i < n; i++)
		recmp_one(g[i], w[i], memcmp(&g[i], &w[i], sizeof g[i]) != 0, i, s);
}

void recmp_unpack(const uint64_t w[6], recmp_sums *s)
{
	s->ndiff = w[0];
	s->first_not = w[1];
	s->nfin = w[2];
	s->nbad = w[3];
	memcpy(&s->ss_diff, &w[4], sizeof s->ss_diff);
	memcpy(&s->ss_want, &w[5], sizeof s->ss_want);
}

int recmp_verdict(const recmp_sums *s, double tol, double err, double scale)
{
	if (s->ndiff == 0)
		return RECMP_SAME;
	if (s->nbad > 0)
		return RECMP_DIFFERS; /* the checked output's non-finite values are the reference's */
	if (!(tol > 0))
		return RECMP_UNSURE; /* exact: -0 and 0 differ in bits, not in value */
	double d = s->nfin ? sqrt(s->ss_diff / (double)s->nfin) : 0;
	if (!(scale > 0)) {
		scale = s->nfin ? sqrt(s->ss_want / (double)s->nfin) : 0;
		err = 0;
	}
	if (!(scale > 0) || !isfinite(scale))
		scale = 1;
	if (!isfinite(d) || !(err >= 0) || !isfinite(err))
		return RECMP_UNSURE;
	/* a margin for the rounding of the sums, which the GPU adds in another order */
	double hi = d / scale + err, lo = d / scale - err;
	if (hi * (1 + 1e-9) <= tol)
		return RECMP_CLOSE;
	if (lo > tol * (1 + 1e-9))
		return RECMP_DIFFERS;
	return RECMP_UNSURE;
}
