/* buffer.c: the deterministic buffer initialisers the worker uploads,
 * conversions to and from double, and buffer signatures. */
#include "buffer.h"

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "par.h"
#include "util.h"

/* Scalar i of an array of scalar type t, as a double (exact for every
 * type but the 64-bit integers beyond 2^53). */
double buffer_get(const void *p, dtype t, uint64_t i)
{
	switch (t) {
	case DT_FLOAT: return ((const float *)p)[i];
	case DT_DOUBLE: return ((const double *)p)[i];
	case DT_INT: return ((const int32_t *)p)[i];
	case DT_UNSIGNED: return ((const uint32_t *)p)[i];
	case DT_LONG: return (double)((const int64_t *)p)[i];
	case DT_HALF: return half_to_float(((const uint16_t *)p)[i]);
	case DT_BF16: return bf16_to_float(((const uint16_t *)p)[i]);
	case DT_I8: return ((const int8_t *)p)[i];
	case DT_U8: return ((const uint8_t *)p)[i];
	case DT_I16: return ((const int16_t *)p)[i];
	case DT_U16: return ((const uint16_t *)p)[i];
	case DT_U64: return (double)((const uint64_t *)p)[i];
	case DT_E4M3: return e4m3_to_float(((const uint8_t *)p)[i]);
	case DT_E5M2: return e5m2_to_float(((const uint8_t *)p)[i]);
	default: return 0;
	}
}

void buffer_to_double_range(const void *src, dtype t, uint64_t lo, uint64_t hi, double *out)
{
	int lanes = dtype_lanes(t);
	t = dtype_scalar(t);
	lo *= (uint64_t)lanes;
	hi *= (uint64_t)lanes;
	uint64_t m = hi - lo;
	switch (t) {
	case DT_FLOAT: {
		const float *s = (const float *)src + lo;
		for (uint64_t i = 0; i < m; i++)
			out[i] = s[i];
		break;
	}
	case DT_DOUBLE:
		memcpy(out, (const double *)src + lo, m * sizeof *out);
		break;
	case DT_INT: {
		const int32_t *s = (const int32_t *)src + lo;
		for (uint64_t i = 0; i < m; i++)
			out[i] = s[i];
		break;
	}
	default:
		for (uint64_t i = 0; i < m; i++)
			out[i] = buffer_get(src, t, lo + i);
		break;
	}
}

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t buffer_seed(uint64_t seed, const char *name)
{
	uint64_t h = fnv1a64(name ? name : "", name ? strlen(name) : 0);
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

/* v converted to scalar type t, saturating for integers (NaN gives 0),
 * rounded to nearest for floats, stored at element i of p. */
void buffer_put(void *p, dtype t, uint64_t i, double v)
{
	switch (t) {
	case DT_FLOAT: ((float *)p)[i] = (float)v; break;
	case DT_DOUBLE: ((double *)p)[i] = v; break;
	case DT_HALF: ((uint16_t *)p)[i] = float_to_half((float)v); break;
	case DT_BF16: ((uint16_t *)p)[i] = float_to_bf16((float)v); break;
	case DT_E4M3: ((uint8_t *)p)[i] = float_to_e4m3((float)v); break;
	case DT_E5M2: ((uint8_t *)p)[i] = float_to_e5m2((float)v); break;
	case DT_INT: ((int32_t *)p)[i] = (int32_t)sat_i64(v, (double)INT32_MIN, (double)INT32_MAX); break;
	case DT_UNSIGNED: ((uint32_t *)p)[i] = (uint32_t)sat_i64(v, 0, (double)UINT32_MAX); break;
	case DT_I8: ((int8_t *)p)[i] = (int8_t)sat_i64(v, INT8_MIN, INT8_MAX); break;
	case DT_U8: ((uint8_t *)p)[i] = (uint8_t)sat_i64(v, 0, UINT8_MAX); break;
	case DT_I16: ((int16_t *)p)[i] = (int16_t)sat_i64(v, INT16_MIN, INT16_MAX); break;
	case DT_U16: ((uint16_t *)p)[i] = (uint16_t)sat_i64(v, 0, UINT16_MAX); break;
	case DT_LONG: {
		/* 2^63 as a double is one past INT64_MAX: clamp below it. */
		int64_t x;
		if (isnan(v))
			x = 0;
		else if (v >= 9223372036854775807.0)
			x = INT64_MAX;
		else if (v <= -9223372036854775808.0)
			x = INT64_MIN;
		else
			x = (int64_t)v;
		((int64_t *)p)[i] = x;
		break;
	}
	case DT_U64: {
		uint64_t x;
		if (isnan(v) || v <= 0)
			x = 0;
		else if (v >= 18446744073709551615.0)
			x = UINT64_MAX;
		else
			x = (uint64_t)v;
		((uint64_t *)p)[i] = x;
		break;
	}
	default:
		break;
	}
}

static void fill_const(void *dst, dtype t, uint64_t count, double v)
{
	size_t es = dtype_size(t);
	if (es == 0 || count == 0)
		return;
	buffer_put(dst, t, 0, v);
	for (uint64_t i = 1; i < count; i++)
		memcpy((char *)dst + i * es, dst, es);
}

typedef struct fill_ctx {
	void *dst;
	dtype t;
	size_t es;
	init_kind k;
	double value;
	uint64_t seed;
} fill_ctx;

/* Elements [lo, hi) of an iota: 0, 1, 2, ...: the small types wrap, so
 * every value is exact in its type: 8- and 16-bit integers modulo their
 * range, half modulo 2048, bfloat16 modulo 256. */
static void fill_iota(const fill_ctx *f, uint64_t lo, uint64_t hi)
{
	void *dst = f->dst;
	for (uint64_t i = lo; i < hi; i++) {
		switch (f->t) {
		case DT_FLOAT: ((float *)dst)[i] = (float)i; break;
		case DT_DOUBLE: ((double *)dst)[i] = (double)i; break;
		case DT_INT: ((int32_t *)dst)[i] = (int32_t)(uint32_t)i; break;
		case DT_UNSIGNED: ((uint32_t *)dst)[i] = (uint32_t)i; break;
		case DT_LONG: ((int64_t *)dst)[i] = (int64_t)i; break;
		case DT_U64: ((uint64_t *)dst)[i] = i; break;
		case DT_HALF: ((uint16_t *)dst)[i] = float_to_half((float)(i % 2048)); break;
		case DT_BF16: ((uint16_t *)dst)[i] = float_to_bf16((float)(i % 256)); break;
		/* the integers each holds exactly: 0..16 and 0..8 */
		case DT_E4M3: ((uint8_t *)dst)[i] = float_to_e4m3((float)(i % 17)); break;
		case DT_E5M2: ((uint8_t *)dst)[i] = float_to_e5m2((float)(i % 9)); break;
		case DT_I8: ((int8_t *)dst)[i] = (int8_t)(uint8_t)i; break;
		case DT_U8: ((uint8_t *)dst)[i] = (uint8_t)i; break;
		case DT_I16: ((int16_t *)dst)[i] = (int16_t)(uint16_t)i; break;
		case DT_U16: ((uint16_t *)dst)[i] = (uint16_t)i; break;
		default: break;
		}
	}
}

/* Elements [lo, hi) of buffer_fill's result: every value depends on its
 * index only, so chunks can be filled in any order. */
static void fill_chunk(void *p, uint64_t ci, uint64_t lo, uint64_t hi)
{
	const fill_ctx *f = p;
	void *dst = f->dst;
	(void)ci;
	switch (f->k) {
	case INIT_ZERO:
		memset((char *)dst + lo * f->es, 0, (hi - lo) * f->es);
		return;
	case INIT_POISON:
		memset((char *)dst + lo * f->es, 0xff, (hi - lo) * f->es);
		return;
	case INIT_ONE:
		fill_const((char *)dst + lo * f->es, f->t, hi - lo, 1.0);
		return;
	case INIT_VALUE:
		fill_const((char *)dst + lo * f->es, f->t, hi - lo, f->value);
		return;
	case INIT_IOTA:
		fill_iota(f, lo, hi);
		return;
	case INIT_LIST: /* the caller writes the values given */
		return;
	case INIT_RANDOM:
		switch (f->t) {
		case DT_FLOAT:
			for (uint64_t i = lo; i < hi; i++)
				((float *)dst)[i] = (float)((double)(rnd(f->seed, i) >> 40) * 0x1p-23 - 1.0);
			break;
		case DT_DOUBLE:
			for (uint64_t i = lo; i < hi; i++)
				((double *)dst)[i] = (double)(rnd(f->seed, i) >> 11) * 0x1p-52 - 1.0;
			break;
		case DT_INT:
			for (uint64_t i = lo; i < hi; i++)
				((int32_t *)dst)[i] = (int32_t)(uint32_t)(rnd(f->seed, i) >> 32);
			break;
		case DT_UNSIGNED:
			for (uint64_t i = lo; i < hi; i++)
				((uint32_t *)dst)[i] = (uint32_t)(rnd(f->seed, i) >> 32);
			break;
		case DT_LONG:
			for (uint64_t i = lo; i < hi; i++)
				((int64_t *)dst)[i] = (int64_t)(int32_t)(uint32_t)(rnd(f->seed, i) >> 32);
			break;
		case DT_U64:
			for (uint64_t i = lo; i < hi; i++)
				((uint64_t *)dst)[i] = (uint32_t)(rnd(f->seed, i) >> 32);
			break;
		case DT_HALF: /* [-1, 1) in steps half holds exactly near 1 */
			for (uint64_t i = lo; i < hi; i++)
				((uint16_t *)dst)[i] = float_to_half((float)((double)(rnd(f->seed, i) >> 53) * 0x1p-10 - 1.0));
			break;
		case DT_BF16:
			for (uint64_t i = lo; i < hi; i++)
				((uint16_t *)dst)[i] = float_to_bf16((float)((double)(rnd(f->seed, i) >> 56) * 0x1p-7 - 1.0));
			break;
		case DT_I8: case DT_U8:
			for (uint64_t i = lo; i < hi; i++)
				((uint8_t *)dst)[i] = (uint8_t)(rnd(f->seed, i) >> 56);
			break;
		/* FP8: [-1, 1) in steps the format holds exactly (1/16: four
		 * significant bits for e4m3; 1/8: three for e5m2), so an input is
		 * what the reference reads, and products and sums of them are
		 * exact in a float accumulator */
		case DT_E4M3:
			for (uint64_t i = lo; i < hi; i++)
				((uint8_t *)dst)[i] = float_to_e4m3((float)((double)(rnd(f->seed, i) >> 59) * 0x1p-4 - 1.0));
			break;
		case DT_E5M2:
			for (uint64_t i = lo; i < hi; i++)
				((uint8_t *)dst)[i] = float_to_e5m2((float)((double)(rnd(f->seed, i) >> 60) * 0x1p-3 - 1.0));
			break;
		case DT_I16: case DT_U16:
			for (uint64_t i = lo; i < hi; i++)
				((uint16_t *)dst)[i] = (uint16_t)(rnd(f->seed, i) >> 48);
			break;
		default:
			break;
		}
		return;
	}
}

void buffer_fill(void *dst, dtype t, uint64_t count, init_kind k, double value, uint64_t seed)
{
	count *= (uint64_t)dtype_lanes(t); /* vectors: as their scalars */
	t = dtype_scalar(t);
	size_t es = dtype_size(t);
	if (!dst || es == 0 || count == 0)
		return;
	fill_ctx f = { dst, t, es, k, value, seed };
	par_chunks(count, par_grain(count), fill_chunk, &f);
}

typedef struct conv_ctx {
	const void *src;
	dtype t;
	double *out;
} conv_ctx;

static void conv_chunk(void *p, uint64_t ci, uint64_t lo, uint64_t hi)
{
	const conv_ctx *c = p;
	(void)ci;
	buffer_to_double_range(c->src, c->t, lo, hi, c->out + lo);
}

void buffer_to_double(const void *src, dtype t, uint64_t count, double *out)
{
	count *= (uint64_t)dtype_lanes(t);
	t = dtype_scalar(t);
	conv_ctx c = { src, t, out };
	par_chunks(count, par_grain(count), conv_chunk, &c);
}

typedef struct narrow_ctx {
	const double *src;
	dtype t;
	void *dst;
	atomic_int inexact;
} narrow_ctx;

static void narrow_chunk(void *p, uint64_t ci, uint64_t lo, uint64_t hi)
{
	narrow_ctx *c = p;
	const double *s = c->src;
	int bad = 0;
	(void)ci;
	switch (c->t) {
	case DT_FLOAT: {
		float *d = c->dst;
		for (uint64_t i = lo; i < hi; i++) {
			double v = s[i];
			if (isnan(v)) {
				d[i] = NAN;
			} else if (fabs(v) > FLT_MAX && isfinite(v)) {
				bad = 1;
				break;
			} else {
				d[i] = (float)v;
				if ((double)d[i] != v) {
					bad = 1;
					break;
				}
			}
		}
		break;
	}
	case DT_INT: {
		int32_t *d = c->dst;
		for (uint64_t i = lo; i < hi; i++) {
			double v = s[i];
			if (!(v >= (double)INT32_MIN && v <= (double)INT32_MAX) || v != floor(v) ||
			    (v == 0 && signbit(v))) {
				bad = 1;
				break;
			}
			d[i] = (int32_t)v;
		}
		break;
	}
	case DT_UNSIGNED: {
		uint32_t *d = c->dst;
		for (uint64_t i = lo; i < hi; i++) {
			double v = s[i];
			if (!(v >= 0 && v <= (double)UINT32_MAX) || v != floor(v) || (v == 0 && signbit(v))) {
				bad = 1;
				break;
			}
			d[i] = (uint32_t)v;
		}
		break;
	}
	default:
		bad = 1;
		break;
	}
	if (bad)
		atomic_store_explicit(&c->inexact, 1, memory_order_relaxed);
}

int buffer_from_double_exact(const double *src, uint64_t count, dtype t, void *dst)
{
	if (t != DT_FLOAT && t != DT_INT && t != DT_UNSIGNED)
		return 0;
	narrow_ctx c;
	c.src = src;
	c.t = t;
	c.dst = dst;
	atomic_init(&c.inexact, 0);
	par_chunks(count, par_grain(count), narrow_chunk, &c);
	return !atomic_load(&c.inexact);
}

/* ---- buffer signatures ---- */

void buffer_sig_make(buffer_sig *s, const char *name, dtype t, uint64_t count, init_kind k,
                     double value, int managed, uint64_t plan_seed)
{
	memset(s, 0, sizeof *s);
	snprintf(s->name, sizeof s->name, "%s", name ? name : "");
	s->type = t;
	s->count = count;
	s->init = k;
	s->managed = managed != 0;
	if (k == INIT_VALUE)
		memcpy(&s->value_bits, &value, sizeof s->value_bits);
	if (k == INIT_RANDOM)
		s->seed = buffer_seed(plan_seed, s->name);
}

int buffer_sig_eq(const buffer_sig *a, const buffer_sig *b)
{
	return strcmp(a->name, b->name) == 0 && a->type == b->type && a->count == b->count &&
	       a->init == b->init && a->value_bits == b->value_bits && a->seed == b->seed &&
	       a->managed == b->managed;
}

void buffer_sig_match(const buffer_sig *have, int nhave, const buffer_sig *want, int nwant,
                      int *match)
{
	unsigned char *used = xcalloc(nhave > 0 ? (size_t)nhave : 1, 1);
	for (int i = 0; i < nwant; i++) {
		match[i] = -1;
		for (int j = 0; j < nhave; j++)
			if (!used[j] && buffer_sig_eq(&have[j], &want[i])) {
				used[j] = 1;
				match[i] = j;
				break;
			}
	}
	free(used);
}
