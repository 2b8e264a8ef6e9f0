/* ref.c: CPU references in double precision, the comparison, and the
 * deterministic buffer initialisers the worker uploads. */
#include "ref.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
static int need_dim(const char *fn, const ref_arg *a, const char *dflt, uint64_t *out, char **err)
{
	if (a->is_buf)
		return fail(err, "%s: '%s' must be a number, not a buffer", fn, aname(a, dflt));
	if ((double)a->i != a->f)
		return fail(err, "%s: '%s' must be an integer, not %g", fn, aname(a, dflt), a->f);
	if (a->i < 1)
		return fail(err, "%s: '%s' is %" PRId64 ", must be at least 1", fn, aname(a, dflt), a->i);
	*out = (uint64_t)a->i;
	return 0;
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

/* ---- elementwise ---- */

static int r_copy(const ref_arg *a, double *out, uint64_t n, char **err)
{
	if (need_count("copy", &a[0], "in", n, NULL, err))
		return -1;
	memcpy(out, a[0].data, n * sizeof *out);
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
	for (uint64_t i = 0; i < n; i++)
		out[i] = a[0].data[i] + a[1].data[i];
	return 0;
}

static int r_sub(const ref_arg *a, double *out, uint64_t n, char **err)
{
	if (binary_sizes("sub", a, n, err))
		return -1;
	for (uint64_t i = 0; i < n; i++)
		out[i] = a[0].data[i] - a[1].data[i];
	return 0;
}

static int r_mul(const ref_arg *a, double *out, uint64_t n, char **err)
{
	if (binary_sizes("mul", a, n, err))
		return -1;
	for (uint64_t i = 0; i < n; i++)
		out[i] = a[0].data[i] * a[1].data[i];
	return 0;
}

static int r_scale(const ref_arg *a, double *out, uint64_t n, char **err)
{
	if (need_count("scale", &a[0], "a", n, NULL, err) ||
	    need_scalar("scale", &a[1], "alpha", err))
		return -1;
	double alpha = a[1].f;
	for (uint64_t i = 0; i < n; i++)
		out[i] = alpha * a[0].data[i];
	return 0;
}

static int r_square(const ref_arg *a, double *out, uint64_t n, char **err)
{
	if (need_count("square", &a[0], "a", n, NULL, err))
		return -1;
	for (uint64_t i = 0; i < n; i++)
		out[i] = a[0].data[i] * a[0].data[i];
	return 0;
}

static int r_saxpy(const ref_arg *a, double *out, uint64_t n, char **err)
{
	if (need_scalar("saxpy", &a[0], "alpha", err) ||
	    need_count("saxpy", &a[1], "x", n, NULL, err) ||
	    need_count("saxpy", &a[2], "y", n, NULL, err))
		return -1;
	double alpha = a[0].f;
	for (uint64_t i = 0; i < n; i++)
		out[i] = alpha * a[1].data[i] + a[2].data[i];
	return 0;
}

/* ---- shape ---- */

static int r_transpose(const ref_arg *a, double *out, uint64_t n, char **err)
{
	uint64_t rows, cols, rc;
	if (need_dim("transpose", &a[1], "rows", &rows, err) ||
	    need_dim("transpose", &a[2], "cols", &cols, err))
		return -1;
	if (!mul_ok(rows, cols, &rc))
		return fail(err, "transpose: rows * cols overflows");
	if (need_count("transpose", &a[0], "in", rc, "rows * cols", err) ||
	    need_out("transpose", n, rc, "rows * cols", err))
		return -1;
	const double *in = a[0].data;
	/* Blocked, so large matrices stay cache-friendly. */
	const uint64_t B = 64;
	for (uint64_t r0 = 0; r0 < rows; r0 += B)
		for (uint64_t c0 = 0; c0 < cols; c0 += B) {
			uint64_t r1 = r0 + B < rows ? r0 + B : rows;
			uint64_t c1 = c0 + B < cols ? c0 + B : cols;
			for (uint64_t r = r0; r < r1; r++)
				for (uint64_t c = c0; c < c1; c++)
					out[c * rows + r] = in[r * cols + c];
		}
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
	mm_job all = { a[0].data, a[1].data, out, M, N, K, 0, M };
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

static const ref_fn refs[] = {
	{ "copy", 1, "copy(in)", "b", r_copy, 1e-5, 0 },
	{ "add", 2, "add(a, b)", "bb", r_add, 1e-5, 0 },
	{ "sub", 2, "sub(a, b)", "bb", r_sub, 1e-5, 0 },
	{ "mul", 2, "mul(a, b)", "bb", r_mul, 1e-5, 0 },
	{ "scale", 2, "scale(a, alpha)", "bs", r_scale, 1e-5, 0 },
	{ "square", 1, "square(a)", "b", r_square, 1e-5, 0 },
	{ "saxpy", 3, "saxpy(alpha, x, y)", "sbb", r_saxpy, 1e-5, 0 },
	{ "transpose", 3, "transpose(in, rows, cols)", "bss", r_transpose, 1e-4, 0 },
	{ "matmul", 5, "matmul(A, B, M, N, K)", "bbsss", r_matmul, 1e-4, 0 },
	{ "sum", 1, "sum(in)", "b", r_sum, 1e-4, 1 },
	{ "dot", 2, "dot(a, b)", "bb", r_dot, 1e-4, 1 },
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

double ref_default_tol(const ref_fn *f, dtype out)
{
	switch (out) {
	case DT_FLOAT:
		return f && f->float_tol > 0 ? f->float_tol : 1e-5;
	case DT_DOUBLE:
		return 1e-10;
	default:
		return 0; /* integers: exact */
	}
}

/* ---- comparison ---- */

void ref_compare(const double *got, const double *want, uint64_t n, double tol, cmp_result *r)
{
	memset(r, 0, sizeof *r);
	r->bad_index = -1;
	if (!(tol > 0))
		tol = 0;
	/* Pass 1: the scale (RMS of the finite wanted values) and the error. */
	double ss_want = 0, ss_diff = 0;
	uint64_t nfin = 0, nf_mismatch = 0;
	for (uint64_t i = 0; i < n; i++) {
		double g = got[i], w = want[i];
		if (!isfinite(w)) {
			int same = (isnan(w) && isnan(g)) || g == w;
			if (!same) {
				nf_mismatch++;
				if (!isfinite(g))
					r->nonfinite++;
			}
			continue;
		}
		if (!isfinite(g)) {
			r->nonfinite++;
			continue;
		}
		ss_want += w * w;
		double d = g - w;
		ss_diff += d * d;
		nfin++;
	}
	double scale = nfin ? sqrt(ss_want / (double)nfin) : 0;
	if (!(scale > 0) || !isfinite(scale))
		scale = 1;
	r->rel_err = nfin ? sqrt(ss_diff / (double)nfin) / scale : 0;
	if (!isfinite(r->rel_err))
		r->rel_err = HUGE_VAL;
	/* Pass 2: the first bad element. */
	double lim = tol * scale;
	for (uint64_t i = 0; i < n; i++) {
		double g = got[i], w = want[i];
		int bad;
		if (!isfinite(w))
			bad = !((isnan(w) && isnan(g)) || g == w);
		else if (!isfinite(g))
			bad = 1;
		else
			bad = tol == 0 ? g != w : fabs(g - w) > lim;
		if (bad) {
			r->bad_index = (int64_t)i;
			r->got = g;
			r->want = w;
			break;
		}
	}
	if (tol == 0)
		r->ok = r->bad_index < 0;
	else
		r->ok = r->nonfinite == 0 && nf_mismatch == 0 && r->rel_err <= tol;
}

/* ---- buffers ---- */

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t buffer_seed(uint64_t seed, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	for (const unsigned char *p = (const unsigned char *)(name ? name : ""); *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ull;
	}
	return mix64(seed ^ mix64(h));
}

/* Element i of the random stream of seed (splitmix64, counter based). */
static uint64_t rnd(uint64_t seed, uint64_t i)
{
	return mix64(seed + (i + 1) * 0x9e3779b97f4a7c15ull);
}

/* A double to an integer type, saturating (out-of-range casts are UB). */
static int64_t sat_i64(double v, double lo, double hi)
{
	if (isnan(v))
		return 0;
	if (v <= lo)
		return (int64_t)lo;
	if (v >= hi)
		return (int64_t)hi;
	return (int64_t)v;
}

static void fill_const(void *dst, dtype t, uint64_t count, double v)
{
	switch (t) {
	case DT_FLOAT: {
		float x = (float)v, *p = dst;
		for (uint64_t i = 0; i < count; i++)
			p[i] = x;
		break;
	}
	case DT_DOUBLE: {
		double *p = dst;
		for (uint64_t i = 0; i < count; i++)
			p[i] = v;
		break;
	}
	case DT_INT: {
		int32_t x = (int32_t)sat_i64(v, (double)INT32_MIN, (double)INT32_MAX), *p = dst;
		for (uint64_t i = 0; i < count; i++)
			p[i] = x;
		break;
	}
	case DT_UNSIGNED: {
		uint32_t x = (uint32_t)sat_i64(v, 0, (double)UINT32_MAX), *p = dst;
		for (uint64_t i = 0; i < count; i++)
			p[i] = x;
		break;
	}
	case DT_LONG: {
		/* 2^63 as a double is one past INT64_MAX: clamp below it. */
		int64_t x, *p = dst;
		if (isnan(v))
			x = 0;
		else if (v >= 9223372036854775807.0)
			x = INT64_MAX;
		else if (v <= -9223372036854775808.0)
			x = INT64_MIN;
		else
			x = (int64_t)v;
		for (uint64_t i = 0; i < count; i++)
			p[i] = x;
		break;
	}
	default:
		break;
	}
}

void buffer_fill(void *dst, dtype t, uint64_t count, init_kind k, double value, uint64_t seed)
{
	size_t es = dtype_size(t);
	if (!dst || es == 0 || count == 0)
		return;
	switch (k) {
	case INIT_ZERO:
		memset(dst, 0, count * es);
		return;
	case INIT_POISON:
		memset(dst, 0xff, count * es);
		return;
	case INIT_ONE:
		fill_const(dst, t, count, 1.0);
		return;
	case INIT_VALUE:
		fill_const(dst, t, count, value);
		return;
	case INIT_IOTA:
		for (uint64_t i = 0; i < count; i++) {
			switch (t) {
			case DT_FLOAT: ((float *)dst)[i] = (float)i; break;
			case DT_DOUBLE: ((double *)dst)[i] = (double)i; break;
			case DT_INT: ((int32_t *)dst)[i] = (int32_t)(uint32_t)i; break;
			case DT_UNSIGNED: ((uint32_t *)dst)[i] = (uint32_t)i; break;
			case DT_LONG: ((int64_t *)dst)[i] = (int64_t)i; break;
			default: break;
			}
		}
		return;
	case INIT_RANDOM:
		for (uint64_t i = 0; i < count; i++) {
			uint64_t x = rnd(seed, i);
			switch (t) {
			case DT_FLOAT:
				((float *)dst)[i] = (float)((double)(x >> 40) * 0x1p-23 - 1.0);
				break;
			case DT_DOUBLE:
				((double *)dst)[i] = (double)(x >> 11) * 0x1p-52 - 1.0;
				break;
			case DT_INT:
				((int32_t *)dst)[i] = (int32_t)(uint32_t)(x >> 32);
				break;
			case DT_UNSIGNED:
				((uint32_t *)dst)[i] = (uint32_t)(x >> 32);
				break;
			case DT_LONG:
				((int64_t *)dst)[i] = (int64_t)(int32_t)(uint32_t)(x >> 32);
				break;
			default:
				break;
			}
		}
		return;
	}
}

void buffer_to_double(const void *src, dtype t, uint64_t count, double *out)
{
	switch (t) {
	case DT_FLOAT:
		for (uint64_t i = 0; i < count; i++)
			out[i] = ((const float *)src)[i];
		break;
	case DT_DOUBLE:
		memcpy(out, src, count * sizeof *out);
		break;
	case DT_INT:
		for (uint64_t i = 0; i < count; i++)
			out[i] = ((const int32_t *)src)[i];
		break;
	case DT_UNSIGNED:
		for (uint64_t i = 0; i < count; i++)
			out[i] = ((const uint32_t *)src)[i];
		break;
	case DT_LONG:
		for (uint64_t i = 0; i < count; i++)
			out[i] = (double)((const int64_t *)src)[i];
		break;
	default:
		memset(out, 0, count * sizeof *out);
		break;
	}
}
