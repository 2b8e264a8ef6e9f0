/* ref_cmp.c: the comparison of a kernel's output with what a reference
 * wants, on several threads, whole or in pieces as the output arrives. */
#include "ref_cmp.h"
#include "buffer.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"
#include "util.h"

/* Element i of an array of scalar type t, as a double. */
static double elem_d(const void *p, dtype t, uint64_t i)
{
	return buffer_get(p, t, i);
}


/* Whether got g is bad against want w, given the limit (the rule of
 * ref_compare). */
static int cmp_bad(double g, double w, double tol, double lim)
{
	if (!isfinite(w))
		return !((isnan(w) && isnan(g)) || g == w);
	if (!isfinite(g))
		return 1;
	return tol == 0 ? g != w : fabs(g - w) > lim;
}

/* What one chunk contributes. first_nf: the first index whose badness does
 * not depend on the scale (a non-finite got or want that does not match),
 * or -1; maxdiff: the largest |got - want| over the finite pairs, so the
 * chunk holds a bad finite pair exactly when maxdiff > tol * scale (or > 0
 * for tol 0). */
typedef struct cmp_part {
	double ss_want, ss_diff, maxdiff;
	uint64_t nfin, nonfinite, nf_mismatch;
	int64_t first_nf;
} cmp_part;

/* A comparison in pieces: the chunks' bounds are par_grain(n)'s, whatever
 * the pieces; a piece that ends inside a chunk leaves its sums there and
 * the next one goes on from them, element after element, so the sums are
 * the ones a single pass makes. */
struct cmp_run {
	dtype gt, wt;
	uint64_t n, chunk, nchunks, done;
	int broken; /* a piece out of order */
	double tol;
	cmp_part *parts, one;
};

typedef struct cmp_ctx {
	const void *got, *want; /* got: element lo of the piece; want: element 0 */
	dtype gt, wt;
	uint64_t lo, hi, chunk, first;
	cmp_part *parts;
} cmp_ctx;

#define CMP_BLOCK 1024

/* The accumulating loop over got g[k] and want w[k] (any element types),
 * k from 0 to m, index base + k; the sums in index order. */
#define CMP_LOOP(g, w, m, base)                                             \
	for (uint64_t k = 0; k < (m); k++) {                                    \
		double gv = (double)(g)[k], wv = (double)(w)[k];                    \
		if (!isfinite(wv)) {                                                \
			if (!((isnan(wv) && isnan(gv)) || gv == wv)) {                  \
				nf_mismatch++;                                              \
				if (!isfinite(gv))                                          \
					nonfinite++;                                            \
				if (first_nf < 0)                                           \
					first_nf = (int64_t)((base) + k);                       \
			}                                                               \
			continue;                                                       \
		}                                                                   \
		if (!isfinite(gv)) {                                                \
			nonfinite++;                                                    \
			if (first_nf < 0)                                               \
				first_nf = (int64_t)((base) + k);                           \
			continue;                                                       \
		}                                                                   \
		ss_want += wv * wv;                                                 \
		double d = gv - wv;                                                 \
		ss_diff += d * d;                                                   \
		nfin++;                                                             \
		double ad = fabs(d);                                                \
		if (ad > maxdiff)                                                   \
			maxdiff = ad;                                                   \
	}

/* Chunk first + ci's share of the piece [c->lo, c->hi), from the sums it
 * holds. */
static void cmp_chunk(void *p, uint64_t ci, uint64_t clo, uint64_t chi)
{
	const cmp_ctx *c = p;
	(void)clo;
	(void)chi;
	uint64_t pi = c->first + ci;
	cmp_part *pt = &c->parts[pi];
	uint64_t lo = pi * c->chunk > c->lo ? pi * c->chunk : c->lo;
	uint64_t hi = (pi + 1) * c->chunk < c->hi ? (pi + 1) * c->chunk : c->hi;
	double ss_want = pt->ss_want, ss_diff = pt->ss_diff, maxdiff = pt->maxdiff;
	uint64_t nfin = pt->nfin, nonfinite = pt->nonfinite, nf_mismatch = pt->nf_mismatch, m = hi - lo;
	int64_t first_nf = pt->first_nf;
	uint64_t off = lo - c->lo; /* into got */
	/* the usual pairs read their arrays directly; others through blocks of
	 * doubles */
	if (c->gt == DT_FLOAT && c->wt == DT_FLOAT) {
		const float *g = (const float *)c->got + off, *w = (const float *)c->want + lo;
		CMP_LOOP(g, w, m, lo)
	} else if (c->gt == DT_FLOAT && c->wt == DT_DOUBLE) {
		const float *g = (const float *)c->got + off;
		const double *w = (const double *)c->want + lo;
		CMP_LOOP(g, w, m, lo)
	} else if (c->gt == DT_DOUBLE && c->wt == DT_DOUBLE) {
		const double *g = (const double *)c->got + off, *w = (const double *)c->want + lo;
		CMP_LOOP(g, w, m, lo)
	} else if (c->gt == DT_INT && c->wt == DT_INT) {
		const int32_t *g = (const int32_t *)c->got + off, *w = (const int32_t *)c->want + lo;
		CMP_LOOP(g, w, m, lo)
	} else {
		double gbuf[CMP_BLOCK], wbuf[CMP_BLOCK];
		for (uint64_t b = lo; b < hi; b += CMP_BLOCK) {
			uint64_t e = hi - b > CMP_BLOCK ? b + CMP_BLOCK : hi, bm = e - b;
			buffer_to_double_range(c->got, c->gt, b - c->lo, e - c->lo, gbuf);
			buffer_to_double_range(c->want, c->wt, b, e, wbuf);
			CMP_LOOP(gbuf, wbuf, bm, b)
		}
	}
	pt->ss_want = ss_want;
	pt->ss_diff = ss_diff;
	pt->maxdiff = maxdiff;
	pt->nfin = nfin;
	pt->nonfinite = nonfinite;
	pt->nf_mismatch = nf_mismatch;
	pt->first_nf = first_nf;
}

cmp_run *ref_cmp_begin(dtype gt, dtype wt, uint64_t n, double tol)
{
	cmp_run *c = xcalloc(1, sizeof *c);
	c->gt = dtype_scalar(gt); /* n counts scalars: a float4 is four */
	c->wt = dtype_scalar(wt);
	c->n = n;
	c->tol = tol > 0 ? tol : 0;
	c->chunk = par_grain(n);
	c->nchunks = n / c->chunk + (n % c->chunk != 0);
	c->parts = c->nchunks <= 1 ? &c->one : xcalloc(c->nchunks, sizeof *c->parts);
	for (uint64_t i = 0; i < c->nchunks; i++)
		c->parts[i].first_nf = -1;
	return c;
}

void ref_cmp_range(cmp_run *c, const void *got, const void *want, uint64_t lo, uint64_t hi)
{
	if (hi > c->n)
		hi = c->n;
	if (lo != c->done)
		c->broken = 1;
	if (lo != c->done || hi <= lo)
		return;
	uint64_t first = lo / c->chunk, last = (hi - 1) / c->chunk;
	cmp_ctx x = { got, want, c->gt, c->wt, lo, hi, c->chunk, first, c->parts };
	par_chunks(last - first + 1, 1, cmp_chunk, &x);
	c->done = hi;
}

void ref_cmp_abort(cmp_run *c)
{
	if (!c)
		return;
	if (c->parts != &c->one)
		free(c->parts);
	free(c);
}

int ref_cmp_end(cmp_run *c, const void *want, cmp_fetch fetch, void *ctx, cmp_result *r)
{
	memset(r, 0, sizeof *r);
	r->bad_index = -1;
	int ret = 0;
	uint64_t n = c->n;
	double tol = c->tol;
	if (c->broken || c->done != n) { /* not the whole array: no verdict */
		ref_cmp_abort(c);
		return -1;
	}
	if (n == 0) {
		r->ok = 1;
		r->scale = 1;
		ref_cmp_abort(c);
		return 0;
	}
	/* the scale (RMS of the finite wanted values) and the error, the
	 * chunks' sums in chunk order */
	double ss_want = 0, ss_diff = 0;
	uint64_t nfin = 0, nf_mismatch = 0;
	for (uint64_t i = 0; i < c->nchunks; i++) {
		ss_want += c->parts[i].ss_want;
		ss_diff += c->parts[i].ss_diff;
		nfin += c->parts[i].nfin;
		nf_mismatch += c->parts[i].nf_mismatch;
		r->nonfinite += c->parts[i].nonfinite;
	}
	double scale = nfin ? sqrt(ss_want / (double)nfin) : 0;
	if (!(scale > 0) || !isfinite(scale))
		scale = 1;
	r->scale = scale;
	r->rel_err = nfin ? sqrt(ss_diff / (double)nfin) / scale : 0;
	if (!isfinite(r->rel_err))
		r->rel_err = HUGE_VAL;
	/* the first bad element, in the first chunk that has one (its got
	 * values fetched again) */
	double lim = tol * scale;
	for (uint64_t i = 0; i < c->nchunks && r->bad_index < 0; i++) {
		if (c->parts[i].first_nf < 0 && !(c->parts[i].maxdiff > lim))
			continue;
		uint64_t lo = i * c->chunk, hi = n - lo > c->chunk ? lo + c->chunk : n;
		const void *got = fetch(ctx, lo, hi);
		if (!got) {
			ret = -1;
			break;
		}
		for (uint64_t k = lo; k < hi; k++) {
			double g = elem_d(got, c->gt, k - lo), w = elem_d(want, c->wt, k);
			if (cmp_bad(g, w, tol, lim)) {
				r->bad_index = (int64_t)k;
				r->got = g;
				r->want = w;
				break;
			}
		}
	}
	if (tol == 0)
		r->ok = r->bad_index < 0;
	else
		r->ok = r->nonfinite == 0 && nf_mismatch == 0 && r->rel_err <= tol;
	ref_cmp_abort(c);
	return ret;
}

typedef struct whole_got {
	const unsigned char *got;
	size_t es;
} whole_got;

static const void *whole_fetch(void *ctx, uint64_t lo, uint64_t hi)
{
	const whole_got *w = ctx;
	(void)hi;
	return w->got + lo * w->es;
}

void ref_compare_typed(const void *got, dtype gt, const void *want, dtype wt, uint64_t n,
                       double tol, cmp_result *r)
{
	cmp_run *c = ref_cmp_begin(gt, wt, n, tol);
	ref_cmp_range(c, got, want, 0, n);
	whole_got w = { got, dtype_size(dtype_scalar(gt)) };
	ref_cmp_end(c, want, whole_fetch, &w, r);
}

void ref_compare(const double *got, const double *want, uint64_t n, double tol, cmp_result *r)
{
	ref_compare_typed(got, DT_DOUBLE, want, DT_DOUBLE, n, tol, r);
}
