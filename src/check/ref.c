/* ref.c: CPU references in double precision (those that only move values
 * also in the elements' own type); the comparison with what a reference
 * wants: ref_cmp.c. */
#include "ref.h"
#include "ref_algo.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "par.h"
#include "util.h"

/* ---- argument checks ---- */

static const char *aname(const ref_arg *a, const char *dflt)
{
	return a->name && a->name[0] ? a->name : dflt;
}

/* A buffer argument must hold exactly `want` elements (what: how want is
 * computed, e.g. "rows * cols"; NULL: the output's size). */
static int need_count(const char *fn, const ref_arg *a, const char *dflt, uint64_t want,
                      const char *what, char **err)
{
	if (!a->is_buf)
		return fail(err, "%s: '%s' must be a buffer", fn, aname(a, dflt));
	if (a->count == want)
		return 0;
	if (!what)
		return fail(err, "%s: '%s' has %" PRIu64 " elements but the output has %" PRIu64,
		            fn, aname(a, dflt), a->count, want);
	return fail(err, "%s: '%s' has %" PRIu64 " elements but %s = %" PRIu64,
	            fn, aname(a, dflt), a->count, what, want);
}

static int need_out(const char *fn, uint64_t out_count, uint64_t want, const char *what, char **err)
{
	if (out_count != want)
		return fail(err, "%s: the output has %" PRIu64 " elements but %s = %" PRIu64,
		            fn, out_count, what, want);
	return 0;
}

/* A scalar that must be a positive integer (a dimension). */
/* An integer argument of at least `least`. */
static int need_int(const char *fn, const ref_arg *a, const char *dflt, int64_t least, uint64_t *out, char **err)
{
	if (a->is_buf)
		return fail(err, "%s: '%s' must be a number, not a buffer", fn, aname(a, dflt));
	if ((double)a->i != a->f)
		return fail(err, "%s: '%s' must be an integer, not %g", fn, aname(a, dflt), a->f);
	if (a->i < least)
		return fail(err, "%s: '%s' is %" PRId64 ", must be at least %" PRId64, fn, aname(a, dflt), a->i, least);
	*out = (uint64_t)a->i;
	return 0;
}

static int need_dim(const char *fn, const ref_arg *a, const char *dflt, uint64_t *out, char **err)
{
	return need_int(fn, a, dflt, 1, out, err);
}

static int mul_ok(uint64_t a, uint64_t b, uint64_t *r)
{
	if (a != 0 && b > UINT64_MAX / a)
		return 0;
	*r = a * b;
	return 1;
}

static int need_scalar(const char *fn, const ref_arg *a, const char *dflt, char **err)
{
	if (a->is_buf)
		return fail(err, "%s: '%s' must be a number, not a buffer", fn, aname(a, dflt));
	return 0;
}

/* ---- elementwise, in chunks on several threads ---- */

enum { EW_COPY, EW_ADD, EW_SUB, EW_MUL, EW_SCALE, EW_SQUARE, EW_SAXPY };

typedef struct ew_ctx {
	int op;
	const double *a, *b;
	double alpha;
	double *out;
} ew_ctx;

static void ew_chunk(void *p, uint64_t ci, uint64_t lo, uint64_t hi)
{
	const ew_ctx *e = p;
	const double *a = e->a, *b = e->b;
	double *out = e->out, alpha = e->alpha;
	(void)ci;
	switch (e->op) {
	case EW_COPY:
		memcpy(out + lo, a + lo, (hi - lo) * sizeof *out);
		break;
	case EW_ADD:
		for (uint64_t i = lo; i < hi; i++)
			out[i] = a[i] + b[i];
		break;
	case EW_SUB:
		for (uint64_t i = lo; i < hi; i++)
			out[i] = a[i] - b[i];
		break;
	case EW_MUL:
		for (uint64_t i = lo; i < hi; i++)
			out[i] = a[i] * b[i];
		break;
	case EW_SCALE:
		for (uint64_t i = lo; i < hi; i++)
			out[i] = alpha * a[i];
		break;
	case EW_SQUARE:
		for (uint64_t i = lo; i < hi; i++)
			out[i] = a[i] * a[i];
		break;
	case EW_SAXPY:
		for (uint64_t i = lo; i < hi; i++)
			out[i] = alpha * a[i] + b[i];
		break;
	default:
		break;
	}
}

static void ew_run(int op, const double *a, const double *b, double alpha, double *out, uint64_t n)
{
	ew_ctx e = { op, a, b, alpha, out };
	par_chunks(n, par_grain(n), ew_chunk, &e);
}

static int r_copy(const ref_arg *a, double *out, uint64_t n, char **err)
{
	if (need_count("copy", &a[0], "in", n, NULL, err))
		return -1;
	ew_run(EW_COPY, a[0].data, NULL, 0, out, n);
	return 0;
}

static int binary_sizes(const char *fn, const ref_arg *a, uint64_t n, char **err)
{
	if (need_count(fn, &a[0], "a", n, NULL, err) ||
	    need_count(fn, &a[1], "b", n, NULL, err))
		return -1;
	return 0;
}

static int r_add(const ref_arg *a, double *out, uint64_t n, char **err)
{
	if (binary_sizes("add", a, n, err))
		return -1;
	ew_run(EW_ADD, a[0].data, a[1].data, 0, out, n);
	return 0;
}

static int r_sub(const ref_arg *a, double *out, uint64_t n, char **err)
{
	if (binary_sizes("sub", a, n, err))
		return -1;
	ew_run(EW_SUB, a[0].data, a[1].data, 0, out, n);
	return 0;
}

static int r_mul(const ref_arg *a, double *out, uint64_t n, char **err)
{
	if (binary_sizes("mul", a, n, err))
		return -1;
	ew_run(EW_MUL, a[0].data, a[1].data, 0, out, n);
	return 0;
}

static int r_scale(const ref_arg *a, double *out, uint64_t n, char **err)
{
	if (need_count("scale", &a[0], "a", n, NULL, err) ||
	    need_scalar("scale", &a[1], "alpha", err))
		return -1;
	ew_run(EW_SCALE, a[0].data, NULL, a[1].f, out, n);
	return 0;
}

static int r_square(const ref_arg *a, double *out, uint64_t n, char **err)
{
	if (need_count("square", &a[0], "a", n, NULL, err))
		return -1;
	ew_run(EW_SQUARE, a[0].data, NULL, 0, out, n);
	return 0;
}

static int r_saxpy(const ref_arg *a, double *out, uint64_t n, char **err)
{
	if (need_scalar("saxpy", &a[0], "alpha", err) ||
	    need_count("saxpy", &a[1], "x", n, NULL, err) ||
	    need_count("saxpy", &a[2], "y", n, NULL, err))
		return -1;
	ew_run(EW_SAXPY, a[1].data, a[2].data, a[0].f, out, n);
	return 0;
}

/* ---- convolution ---- */

typedef struct conv_ctx {
	const double *in, *w;
	double *out;
	uint64_t n, r;
} conv_ctx;

static void conv_chunk(void *p, uint64_t ci, uint64_t lo, uint64_t hi)
{
	const conv_ctx *c = p;
	(void)ci;
	for (uint64_t i = lo; i < hi; i++) {
		double acc = 0;
		for (uint64_t j = 0; j <= 2 * c->r; j++) {
			/* in[i + j - r], zero outside */
			if (i + j < c->r || i + j - c->r >= c->n)
				continue;
			acc += c->w[j] * c->in[i + j - c->r];
		}
		c->out[i] = acc;
	}
}

static int r_conv1d(const ref_arg *a, double *out, uint64_t n, char **err)
{
	uint64_t len, r;
	if (need_dim("conv1d", &a[2], "n", &len, err) || need_int("conv1d", &a[3], "r", 0, &r, err))
		return -1;
	if (r > (UINT64_MAX - 1) / 2)
		return fail(err, "conv1d: r is too large");
	if (need_count("conv1d", &a[0], "in", len, "n", err) ||
	    need_count("conv1d", &a[1], "w", 2 * r + 1, "2 * r + 1", err) ||
	    need_out("conv1d", n, len, "n", err))
		return -1;
	conv_ctx c = { a[0].data, a[1].data, out, len, r };
	par_chunks(len, par_grain(len), conv_chunk, &c);
	return 0;
}

/* ---- shape ---- */

/* Blocked, so large matrices stay cache-friendly; the chunks of the longer
 * side go to different threads (each writes its own part of out). */
#define TR_BLOCK 64

typedef struct tr_ctx {
	const double *in;
	double *out;
	uint64_t rows, cols;
	int split_cols; /* chunks are columns of in (else rows) */
} tr_ctx;

static void tr_chunk(void *p, uint64_t ci, uint64_t lo, uint64_t hi)
{
	const tr_ctx *t = p;
	const double *in = t->in;
	double *out = t->out;
	uint64_t rows = t->rows, cols = t->cols;
	uint64_t rlo = t->split_cols ? 0 : lo, rhi = t->split_cols ? rows : hi;
	uint64_t clo = t->split_cols ? lo : 0, chi = t->split_cols ? hi : cols;
	(void)ci;
	for (uint64_t r0 = rlo; r0 < rhi; r0 += TR_BLOCK)
		for (uint64_t c0 = clo; c0 < chi; c0 += TR_BLOCK) {
			uint64_t r1 = rhi - r0 > TR_BLOCK ? r0 + TR_BLOCK : rhi;
			uint64_t c1 = chi - c0 > TR_BLOCK ? c0 + TR_BLOCK : chi;
			for (uint64_t r = r0; r < r1; r++)
				for (uint64_t c = c0; c < c1; c++)
					out[c * rows + r] = in[r * cols + c];
		}
}

/* The shape of a transpose: rows and cols checked against the buffers. */
static int tr_shape(const ref_arg *a, uint64_t n, uint64_t *rows, uint64_t *cols, char **err)
{
	uint64_t rc;
	if (need_dim("transpose", &a[1], "rows", rows, err) ||
	    need_dim("transpose", &a[2], "cols", cols, err))
		return -1;
	if (!mul_ok(*rows, *cols, &rc))
		return fail(err, "transpose: rows * cols overflows");
	if (need_count("transpose", &a[0], "in", rc, "rows * cols", err) ||
	    need_out("transpose", n, rc, "rows * cols", err))
		return -1;
	return 0;
}

/* The lines of the longer side a chunk takes: about 64 Ki elements, in
 * whole blocks. */
static uint64_t tr_lines(uint64_t other)
{
	uint64_t lines = ((uint64_t)1 << 16) / other;
	return (lines / TR_BLOCK + 1) * TR_BLOCK;
}

static int r_transpose(const ref_arg *a, double *out, uint64_t n, char **err)
{
	uint64_t rows, cols;
	if (tr_shape(a, n, &rows, &cols, err))
		return -1;
	tr_ctx t = { a[0].data, out, rows, cols, cols >= rows };
	uint64_t side = t.split_cols ? cols : rows, other = t.split_cols ? rows : cols;
	par_chunks(side, tr_lines(other), tr_chunk, &t);
	return 0;
}

/* ---- the same in the elements' own type: values only move ---- */

typedef struct mv_ctx {
	const unsigned char *in;
	unsigned char *out;
	size_t es;
	uint64_t rows, cols;
	int split_cols;
	int canon; /* floats: a NaN becomes the NaN the path through doubles writes */
} mv_ctx;

static void mv_copy_chunk(void *p, uint64_t ci, uint64_t lo, uint64_t hi)
{
	const mv_ctx *m = p;
	(void)ci;
	if (m->canon) {
		const float *in = (const float *)m->in;
		float *o = (float *)m->out;
		for (uint64_t i = lo; i < hi; i++)
			o[i] = isnan(in[i]) ? NAN : in[i];
		return;
	}
	memcpy(m->out + lo * m->es, m->in + lo * m->es, (hi - lo) * m->es);
}

static int m_copy(const ref_arg *a, void *out, dtype t, uint64_t n, char **err)
{
	if (need_count("copy", &a[0], "in", n, NULL, err))
		return -1;
	mv_ctx m = { a[0].raw, out, dtype_size(t), 0, 0, 0, t == DT_FLOAT };
	par_chunks(n, par_grain(n), mv_copy_chunk, &m);
	return 0;
}

/* tr_chunk's blocks on elements of type T. */
#define MV_TR(T)                                                               \
	do {                                                                       \
		const T *in = (const T *)m->in;                                        \
		T *o = (T *)m->out;                                                    \
		for (uint64_t r = r0; r < r1; r++)                                     \
			for (uint64_t c = c0; c < c1; c++)                                 \
				o[c * rows + r] = in[r * cols + c];                            \
	} while (0)

static void mv_tr_chunk(void *p, uint64_t ci, uint64_t lo, uint64_t hi)
{
	const mv_ctx *m = p;
	uint64_t rows = m->rows, cols = m->cols;
	uint64_t rlo = m->split_cols ? 0 : lo, rhi = m->split_cols ? rows : hi;
	uint64_t clo = m->split_cols ? lo : 0, chi = m->split_cols ? hi : cols;
	size_t es = m->es;
	(void)ci;
	for (uint64_t r0 = rlo; r0 < rhi; r0 += TR_BLOCK)
		for (uint64_t c0 = clo; c0 < chi; c0 += TR_BLOCK) {
			uint64_t r1 = rhi - r0 > TR_BLOCK ? r0 + TR_BLOCK : rhi;
			uint64_t c1 = chi - c0 > TR_BLOCK ? c0 + TR_BLOCK : chi;
			if (m->canon) {
				const float *in = (const float *)m->in;
				float *o = (float *)m->out;
				for (uint64_t r = r0; r < r1; r++)
					for (uint64_t c = c0; c < c1; c++) {
						float v = in[r * cols + c];
						o[c * rows + r] = isnan(v) ? NAN : v;
					}
				continue;
			}
			switch (es) {
			case 1: MV_TR(uint8_t); break;
			case 2: MV_TR(uint16_t); break;
			case 4: MV_TR(uint32_t); break;
			case 8: MV_TR(uint64_t); break;
			default:
				for (uint64_t r = r0; r < r1; r++)
					for (uint64_t c = c0; c < c1; c++)
						memcpy(m->out + (c * rows + r) * es, m->in + (r * cols + c) * es, es);
				break;
			}
		}
}

static int m_transpose(const ref_arg *a, void *out, dtype t, uint64_t n, char **err)
{
	uint64_t rows, cols;
	if (tr_shape(a, n, &rows, &cols, err))
		return -1;
	mv_ctx m = { a[0].raw, out, dtype_size(t), rows, cols, cols >= rows, t == DT_FLOAT };
	uint64_t side = m.split_cols ? cols : rows, other = m.split_cols ? rows : cols;
	par_chunks(side, tr_lines(other), mv_tr_chunk, &m);
	return 0;
}

/* ---- matmul, on several threads when large ---- */

typedef struct mm_job {
	const double *A, *B;
	double *C;
	uint64_t M, N, K;
	uint64_t r0, r1; /* rows of C */
} mm_job;

static void mm_rows(const mm_job *j)
{
	for (uint64_t i = j->r0; i < j->r1; i++) {
		double *c = j->C + i * j->N;
		for (uint64_t n = 0; n < j->N; n++)
			c[n] = 0;
		for (uint64_t k = 0; k < j->K; k++) {
			double aik = j->A[i * j->K + k];
			const double *b = j->B + k * j->N;
			for (uint64_t n = 0; n < j->N; n++)
				c[n] += aik * b[n];
		}
	}
}

static void *mm_thread(void *p)
{
	mm_rows(p);
	return NULL;
}

static int mm_run(const double *A, const double *B, double *out, uint64_t M, uint64_t N, uint64_t K);

/* TF32 as the tensor cores read it: 10 bits of mantissa, to nearest with
 * ties away from zero (cvt.rna.tf32.f32, __float_to_tf32). */
static double tf32_round(double v)
{
	float f = (float)v;
	uint32_t u;
	memcpy(&u, &f, 4);
	if ((u & 0x7f800000) != 0x7f800000)
		u = (u + 0x1000) & ~0x1fffu;
	memcpy(&f, &u, 4);
	return f;
}

/* A's and B's values as r_matmul multiplies them: B turned from N x K to
 * K x N (tn), both rounded to TF32 (tf32); NULL where nothing changes, or
 * when memory is short (*err). */
static double *mm_operand(const double *x, uint64_t rows, uint64_t cols, int transpose, int tf32, char **err)
{
	if (!transpose && !tf32)
		return NULL;
	double *o = big_malloc(rows * cols * sizeof *o);
	if (!o) {
		fail(err, "matmul: cannot allocate %.1f MiB for an operand", (double)(rows * cols * 8) / 1048576.0);
		return NULL;
	}
	for (uint64_t r = 0; r < rows; r++)
		for (uint64_t c = 0; c < cols; c++) {
			double v = x[r * cols + c];
			o[transpose ? c * rows + r : r * cols + c] = tf32 ? tf32_round(v) : v;
		}
	return o;
}

static int r_matmul(const ref_arg *a, double *out, uint64_t n, char **err)
{
	uint64_t M, N, K, mk, kn, mn;
	if (need_dim("matmul", &a[2], "M", &M, err) ||
	    need_dim("matmul", &a[3], "N", &N, err) ||
	    need_dim("matmul", &a[4], "K", &K, err))
		return -1;
	if (!mul_ok(M, K, &mk) || !mul_ok(K, N, &kn) || !mul_ok(M, N, &mn))
		return fail(err, "matmul: sizes overflow");
	if (need_count("matmul", &a[0], "A", mk, "M * K", err) ||
	    need_count("matmul", &a[1], "B", kn, "K * N", err) ||
	    need_out("matmul", n, mn, "M * N", err))
		return -1;
	int tn = (a[5].i & MM_TN) != 0, tf32 = (a[5].i & MM_TF32) != 0;
	char *e = NULL;
	double *A2 = mm_operand(a[0].data, M, K, 0, tf32, &e);
	double *B2 = !e ? mm_operand(a[1].data, tn ? N : K, tn ? K : N, tn, tf32, &e) : NULL;
	if (e) {
		free(A2);
		if (err)
			*err = e;
		else
			free(e);
		return -1;
	}
	int r = mm_run(A2 ? A2 : a[0].data, B2 ? B2 : a[1].data, out, M, N, K);
	free(A2);
	free(B2);
	return r;
}

/* C = A * B on several threads when large: A M x K, B K x N. */
static int mm_run(const double *A, const double *B, double *out, uint64_t M, uint64_t N, uint64_t K)
{
	mm_job all = { A, B, out, M, N, K, 0, M };
	double work = (double)M * (double)N * (double)K;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nt = ncpu > 1 ? (ncpu > 64 ? 64 : (int)ncpu) : 1;
	if (work < 1e7 || nt == 1 || M < 2) {
		mm_rows(&all);
		return 0;
	}
	if ((uint64_t)nt > M)
		nt = (int)M;
	mm_job jobs[64];
	pthread_t tid[64];
	int started[64] = {0};
	for (int t = 0; t < nt; t++) {
		jobs[t] = all;
		jobs[t].r0 = M * (uint64_t)t / (uint64_t)nt;
		jobs[t].r1 = M * (uint64_t)(t + 1) / (uint64_t)nt;
		/* Thread 0's share runs here; a thread that fails to start runs
		 * here too. */
		if (t > 0 && pthread_create(&tid[t], NULL, mm_thread, &jobs[t]) == 0)
			started[t] = 1;
	}
	for (int t = 0; t < nt; t++)
		if (!started[t])
			mm_rows(&jobs[t]);
	for (int t = 1; t < nt; t++)
		if (started[t])
			pthread_join(tid[t], NULL);
	return 0;
}

/* ---- reductions (define out[0] only) ---- */

/* Neumaier's compensated sum. */
typedef struct ksum {
	double s, c;
} ksum;

static void ksum_add(ksum *k, double x)
{
	double t = k->s + x;
	if (fabs(k->s) >= fabs(x))
		k->c += (k->s - t) + x;
	else
		k->c += (x - t) + k->s;
	k->s = t;
}

static int r_sum(const ref_arg *a, double *out, uint64_t n, char **err)
{
	if (!a[0].is_buf)
		return fail(err, "sum: '%s' must be a buffer", aname(&a[0], "in"));
	if (n < 1)
		return fail(err, "sum: the output has no elements");
	ksum k = {0, 0};
	for (uint64_t i = 0; i < a[0].count; i++)
		ksum_add(&k, a[0].data[i]);
	out[0] = k.s + k.c;
	return 0;
}

static int r_dot(const ref_arg *a, double *out, uint64_t n, char **err)
{
	if (!a[0].is_buf || !a[1].is_buf)
		return fail(err, "dot: '%s' must be a buffer", aname(!a[0].is_buf ? &a[0] : &a[1],
		            !a[0].is_buf ? "a" : "b"));
	if (a[0].count != a[1].count)
		return fail(err, "dot: '%s' has %" PRIu64 " elements but '%s' has %" PRIu64,
		            aname(&a[0], "a"), a[0].count, aname(&a[1], "b"), a[1].count);
	if (n < 1)
		return fail(err, "dot: the output has no elements");
	ksum k = {0, 0};
	for (uint64_t i = 0; i < a[0].count; i++)
		ksum_add(&k, a[0].data[i] * a[1].data[i]);
	out[0] = k.s + k.c;
	return 0;
}

/* ---- histogram ---- */

/* out[b] = how many in[i] are congruent to b modulo nbins; in holds
 * non-negative integers (a negative or fractional one is an error). */
static int r_histogram(const ref_arg *a, double *out, uint64_t n, char **err)
{
	uint64_t nbins;
	if (!a[0].is_buf)
		return fail(err, "histogram: '%s' must be a buffer", aname(&a[0], "in"));
	if (need_dim("histogram", &a[1], "nbins", &nbins, err) ||
	    need_out("histogram", n, nbins, "nbins", err))
		return -1;
	for (uint64_t b = 0; b < nbins; b++)
		out[b] = 0;
	for (uint64_t i = 0; i < a[0].count; i++) {
		double v = a[0].data[i];
		if (!(v >= 0) || v != floor(v) || v >= 18446744073709551616.0)
			return fail(err, "histogram: '%s'[%" PRIu64 "] = %g is not a non-negative integer",
			            aname(&a[0], "in"), i, v);
		out[(uint64_t)v % nbins] += 1;
	}
	return 0;
}

static const char *const mm_opts[] = { "tn", "tf32", NULL };

static const ref_fn refs[] = {
	{ "copy", 1, "copy(in)", "b", r_copy, 1e-5, 0, "out[i] = in[i]", m_copy, NULL },
	{ "add", 2, "add(a, b)", "bb", r_add, 1e-5, 0, "out[i] = a[i] + b[i]", NULL, NULL },
	{ "sub", 2, "sub(a, b)", "bb", r_sub, 1e-5, 0, "out[i] = a[i] - b[i]", NULL, NULL },
	{ "mul", 2, "mul(a, b)", "bb", r_mul, 1e-5, 0, "out[i] = a[i] * b[i]", NULL, NULL },
	{ "scale", 2, "scale(a, alpha)", "bs", r_scale, 1e-5, 0, "out[i] = alpha * a[i]", NULL, NULL },
	{ "square", 1, "square(a)", "b", r_square, 1e-5, 0, "out[i] = a[i] * a[i]", NULL, NULL },
	{ "saxpy", 3, "saxpy(alpha, x, y)", "sbb", r_saxpy, 1e-5, 0, "out[i] = alpha * x[i] + y[i]", NULL, NULL },
	{ "transpose", 3, "transpose(in, rows, cols)", "bss", r_transpose, 1e-4, 0,
	  "out[c * rows + r] = in[r * cols + c]: in is rows x cols, row-major", m_transpose, NULL },
	{ "matmul", 6, "matmul(A, B, M, N, K[, tn][, tf32])", "bbssss", r_matmul, 1e-4, 0,
	  "out = A * B, row-major: A M x K, B K x N (N x K with tn)", NULL, mm_opts },
	{ "conv1d", 4, "conv1d(in, w, n, r)", "bbss", r_conv1d, 1e-5, 0,
	  "out[i] = sum of w[j] * in[i+j-r], j = 0..2r, 0 outside", NULL, NULL },
	{ "histogram", 2, "histogram(in, nbins)", "bs", r_histogram, 1e-5, 0,
	  "out[b] = how many in[i] mod nbins equal b (in: non-negative integers)", NULL, NULL },
	{ "sum", 1, "sum(in)", "b", r_sum, 1e-4, 1, "out[0] = the sum of every element of in", NULL, NULL },
	{ "dot", 2, "dot(a, b)", "bb", r_dot, 1e-4, 1, "out[0] = the sum of a[i] * b[i]", NULL, NULL },
	{ "scan", 1, "scan(in)", "b", ref_scan, 1e-4, 0, "out[i] = in[0] + ... + in[i] (inclusive)", NULL, NULL },
	{ "exscan", 1, "exscan(in)", "b", ref_exscan, 1e-4, 0, "out[i] = in[0] + ... + in[i-1], out[0] = 0 "
	  "(exclusive)", NULL, NULL },
	{ "softmax", 3, "softmax(in, rows, cols)", "bss", ref_softmax, 1e-5, 0,
	  "each row of in (rows x cols): exp(in - its max) / the row's sum of those", NULL, NULL },
	{ "linear_relu", 6, "linear_relu(A, B, bias, M, N, K)", "bbbsss", ref_linear_relu, 1e-4, 0,
	  "out = max(0, A * B + bias): A is M x K, B K x N, bias N added to each row", NULL, NULL },
};

const ref_fn *ref_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < ARRAY_LEN(refs); i++)
		if (strcmp(refs[i].name, name) == 0)
			return &refs[i];
	return NULL;
}

const ref_fn *ref_table(int *n)
{
	if (n)
		*n = (int)ARRAY_LEN(refs);
	return refs;
}

/* ---- the wanted values ---- */

/* Integer outputs wrap as the device's arithmetic does. */
static double wrap_int(double v, dtype t)
{
	if (!isfinite(v) || v != floor(v) || fabs(v) >= 9.2e18)
		return v;
	uint64_t x = (uint64_t)(int64_t)v;
	switch (dtype_scalar(t)) {
	case DT_INT: return (double)(int32_t)(uint32_t)x;
	case DT_UNSIGNED: return (double)(uint32_t)x;
	case DT_I8: return (double)(int8_t)(uint8_t)x;
	case DT_U8: return (double)(uint8_t)x;
	case DT_I16: return (double)(int16_t)(uint16_t)x;
	case DT_U16: return (double)(uint16_t)x;
	default: return v;
	}
}

int ref_moves(const ref_fn *f, const ref_arg *a, dtype out)
{
	dtype os = dtype_scalar(out);
	if (!f || !f->move || os == DT_LONG || os == DT_U64)
		return 0;
	for (int j = 0; j < f->nargs; j++)
		if (a[j].is_buf && (!a[j].raw || dtype_scalar(a[j].type) != os))
			return 0;
	return 1;
}

static void *want_alloc(size_t bytes, const char *what, const char *name, char **err)
{
	void *p = big_malloc(bytes);
	if (!p) {
		double mib = (double)bytes / 1048576.0;
		fail(err, "cannot allocate %.1f MiB of host memory for %s%s%s", mib, what,
		     name ? name : "", name ? "' as doubles" : "");
	}
	return p;
}

void *ref_wanted(const ref_fn *f, const ref_arg *a, dtype out, uint64_t n, int doubles, dtype *wt,
                 char **err)
{
	dtype os = dtype_scalar(out);
	if (!doubles && ref_moves(f, a, out)) {
		size_t es = dtype_size(os);
		void *want = want_alloc((size_t)n * es, "the reference", NULL, err);
		if (!want)
			return NULL;
		if (f->move(a, want, os, n, err) != 0) {
			free(want);
			return NULL;
		}
		*wt = os;
		return want;
	}
	ref_arg ra[REF_MAX_ARGS];
	double *conv[REF_MAX_ARGS] = {0};
	double *want = NULL;
	void *ret = NULL;
	int nargs = f->nargs < REF_MAX_ARGS ? f->nargs : REF_MAX_ARGS;
	for (int j = 0; j < nargs; j++) {
		ra[j] = a[j];
		if (!a[j].is_buf)
			continue;
		conv[j] = want_alloc((size_t)a[j].count * sizeof(double), "buffer '",
		                     a[j].name ? a[j].name : "?", err);
		if (!conv[j])
			goto out;
		int lanes = dtype_lanes(a[j].type);
		buffer_to_double(a[j].raw, a[j].type, a[j].count / (uint64_t)(lanes > 0 ? lanes : 1), conv[j]);
		ra[j].data = conv[j];
	}
	want = want_alloc((size_t)n * sizeof(double), "the reference", NULL, err);
	if (!want)
		goto out;
	buffer_fill(want, DT_DOUBLE, n, INIT_VALUE, NAN, 0);
	if (f->fn(ra, want, n, err) != 0)
		goto out;
	if (!dtype_is_float(out))
		for (uint64_t k = 0; k < n; k++)
			want[k] = wrap_int(want[k], out);
	*wt = DT_DOUBLE;
	/* Kept in the output's own type when that holds every value exactly
	 * (a transpose or copy of floats): half the memory to cache and read. */
	if (os == DT_FLOAT || os == DT_INT || os == DT_UNSIGNED) {
		void *narrow = big_malloc((size_t)n * 4);
		if (narrow && buffer_from_double_exact(want, n, os, narrow)) {
			free(want);
			want = narrow;
			*wt = os;
		} else {
			free(narrow);
		}
	}
	ret = want;
	want = NULL;
out:
	free(want);
	for (int j = 0; j < REF_MAX_ARGS; j++)
		free(conv[j]);
	return ret;
}

int ref_nopts(const ref_fn *f)
{
	int n = 0;
	while (f && f->opts && f->opts[n])
		n++;
	return n;
}

double ref_default_tol_opts(const ref_fn *f, dtype out, int64_t opts)
{
	double t = ref_default_tol(f, out);
	/* TF32: the reference rounds to nearest; a kernel that passes the raw
	 * float bits to the tensor cores has them truncated (each input off by
	 * up to 2^-10 of itself, about 8e-4 of relative L2 over a product):
	 * 2e-3 allows that with room, and is still far under a wrong result */
	if (f && f->opts && (opts & MM_TF32) && dtype_is_float(out) && t < 2e-3)
		t = 2e-3;
	return t;
}

double ref_default_tol(const ref_fn *f, dtype out)
{
	switch (dtype_scalar(out)) {
	case DT_FLOAT:
		return f && f->float_tol > 0 ? f->float_tol : 1e-5;
	case DT_DOUBLE:
		return 1e-10;
	/* 11 and 8 bits of mantissa: a rounding step of 2^-11 and 2^-8 on
	 * each stored value, more where the kernel rounds as it goes */
	case DT_HALF:
		return f && f->float_tol > 5e-3 ? f->float_tol : 5e-3;
	case DT_BF16:
		return f && f->float_tol > 4e-2 ? f->float_tol : 4e-2;
	/* 4 and 3 significant bits: one rounding of a stored value is up to
	 * 2^-4 (e4m3) and 2^-3 (e5m2) of it, and its relative L2 error over
	 * many values about that over sqrt(3) (0.036, 0.072); twice one
	 * rounding step leaves room for a kernel that rounds along the way,
	 * and is still far under the error of a wrong result (about 1 and more) */
	case DT_E4M3:
		return 0.125;
	case DT_E5M2:
		return 0.25;
	default:
		return 0; /* integers: exact */
	}
}
