/* types.c: element types, buffer initialisers and kernel argument kinds. */
#include "types.h"

#include <math.h>
#include <string.h>

static const struct {
	const char *name;
	size_t size;
	int is_float, is_signed;
	dtype scalar;
	int lanes;
	const char *aliases; /* other spellings, space-separated */
} dtypes[DT__COUNT] = {
	[DT_FLOAT]    = { "float", 4, 1, 1, DT_FLOAT, 1, "float32" },
	[DT_DOUBLE]   = { "double", 8, 1, 1, DT_DOUBLE, 1, "float64" },
	[DT_INT]      = { "int", 4, 0, 1, DT_INT, 1, "int32 int32_t" },
	[DT_UNSIGNED] = { "unsigned", 4, 0, 0, DT_UNSIGNED, 1, "uint uint32 uint32_t" },
	/* 64-bit, as on every CUDA host */
	[DT_LONG]     = { "long", 8, 0, 1, DT_LONG, 1, "int64 int64_t longlong" },
	[DT_HALF]     = { "half", 2, 1, 1, DT_HALF, 1, "__half float16 fp16" },
	[DT_BF16]     = { "bfloat16", 2, 1, 1, DT_BF16, 1, "__nv_bfloat16 nv_bfloat16 bf16" },
	[DT_I8]       = { "int8", 1, 0, 1, DT_I8, 1, "int8_t char schar" },
	[DT_U8]       = { "uint8", 1, 0, 0, DT_U8, 1, "uint8_t uchar" },
	[DT_I16]      = { "int16", 2, 0, 1, DT_I16, 1, "int16_t short" },
	[DT_U16]      = { "uint16", 2, 0, 0, DT_U16, 1, "uint16_t ushort" },
	[DT_U64]      = { "uint64", 8, 0, 0, DT_U64, 1, "uint64_t ulonglong size_t ulong" },
	[DT_E4M3]     = { "fp8_e4m3", 1, 1, 1, DT_E4M3, 1, "__nv_fp8_e4m3 e4m3" },
	[DT_E5M2]     = { "fp8_e5m2", 1, 1, 1, DT_E5M2, 1, "__nv_fp8_e5m2 e5m2" },
	[DT_FLOAT2]   = { "float2", 8, 1, 1, DT_FLOAT, 2, "" },
	[DT_FLOAT4]   = { "float4", 16, 1, 1, DT_FLOAT, 4, "" },
	[DT_DOUBLE2]  = { "double2", 16, 1, 1, DT_DOUBLE, 2, "" },
	[DT_INT2]     = { "int2", 8, 0, 1, DT_INT, 2, "" },
	[DT_INT4]     = { "int4", 16, 0, 1, DT_INT, 4, "" },
	[DT_UINT2]    = { "uint2", 8, 0, 0, DT_UNSIGNED, 2, "" },
	[DT_UINT4]    = { "uint4", 16, 0, 0, DT_UNSIGNED, 4, "" },
	[DT_HALF2]    = { "half2", 4, 1, 1, DT_HALF, 2, "__half2" },
	[DT_BF162]    = { "bfloat162", 4, 1, 1, DT_BF16, 2, "__nv_bfloat162 nv_bfloat162" },
	[DT_CHAR4]    = { "char4", 4, 0, 1, DT_I8, 4, "" },
	[DT_UCHAR4]   = { "uchar4", 4, 0, 0, DT_U8, 4, "" },
};

size_t dtype_size(dtype t)
{
	return (unsigned)t < DT__COUNT ? dtypes[t].size : 0;
}

const char *dtype_name(dtype t)
{
	return (unsigned)t < DT__COUNT ? dtypes[t].name : "?";
}

/* word [s, s+len) is one of the space-separated words of list */
static int in_list(const char *list, const char *s, int len)
{
	for (const char *p = list; *p;) {
		while (*p == ' ')
			p++;
		const char *e = p;
		while (*e && *e != ' ')
			e++;
		if (e - p == len && len > 0 && memcmp(p, s, (size_t)len) == 0)
			return 1;
		p = e;
	}
	return 0;
}

int dtype_parse(const char *s, int len, dtype *out)
{
	if (len < 0)
		len = (int)strlen(s);
	for (int i = 0; i < DT__COUNT; i++)
		if ((int)strlen(dtypes[i].name) == len && memcmp(dtypes[i].name, s, (size_t)len) == 0) {
			*out = (dtype)i;
			return 0;
		}
	for (int i = 0; i < DT__COUNT; i++)
		if (in_list(dtypes[i].aliases, s, len)) {
			*out = (dtype)i;
			return 0;
		}
	return -1;
}

static int word_eq(const char *w, int n, const char *s)
{
	return (int)strlen(s) == n && memcmp(w, s, (size_t)n) == 0;
}

int dtype_from_c(const char *const *words, const int *lens, int n, dtype *out)
{
	int nsigned = 0, nunsigned = 0, nlong = 0, nshort = 0, nchar = 0, nint = 0, other = -1;
	for (int i = 0; i < n; i++) {
		const char *w = words[i];
		int l = lens[i];
		if (word_eq(w, l, "signed"))
			nsigned++;
		else if (word_eq(w, l, "unsigned"))
			nunsigned++;
		else if (word_eq(w, l, "long"))
			nlong++;
		else if (word_eq(w, l, "short"))
			nshort++;
		else if (word_eq(w, l, "char"))
			nchar++;
		else if (word_eq(w, l, "int"))
			nint++;
		else if (other < 0)
			other = i;
		else
			return -1;
	}
	if (other >= 0) {
		if (nsigned || nunsigned || nlong || nshort || nchar || nint)
			return -1;
		/* std::uint8_t, ::half */
		const char *w = words[other];
		int l = lens[other];
		for (int i = l - 1; i > 0; i--)
			if (w[i] == ':' && w[i - 1] == ':') {
				w += i + 1;
				l -= i + 1;
				break;
			}
		/* `unsigned` alone is a header name, not a C spelling here */
		return dtype_parse(w, l, out);
	}
	if (nsigned && nunsigned)
		return -1;
	if (nchar) {
		if (nchar > 1 || nlong || nshort || nint)
			return -1;
		*out = nunsigned ? DT_U8 : DT_I8; /* plain char is signed on CUDA's hosts */
		return 0;
	}
	if (nshort) {
		if (nshort > 1 || nlong)
			return -1;
		*out = nunsigned ? DT_U16 : DT_I16;
		return 0;
	}
	if (nlong) {
		if (nlong > 2)
			return -1;
		*out = nunsigned ? DT_U64 : DT_LONG; /* long is 64-bit on CUDA's hosts */
		return 0;
	}
	if (nint || nsigned || nunsigned) {
		if (nint > 1)
			return -1;
		*out = nunsigned ? DT_UNSIGNED : DT_INT;
		return 0;
	}
	return -1;
}

int dtype_is_float(dtype t)
{
	return (unsigned)t < DT__COUNT && dtypes[t].is_float;
}

int dtype_is_signed(dtype t)
{
	return (unsigned)t < DT__COUNT && dtypes[t].is_signed;
}

dtype dtype_scalar(dtype t)
{
	return (unsigned)t < DT__COUNT ? dtypes[t].scalar : t;
}

int dtype_lanes(dtype t)
{
	return (unsigned)t < DT__COUNT ? dtypes[t].lanes : 1;
}

/* ---- binary16 and bfloat16 ---- */

static uint32_t f2u(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

static float u2f(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

/* ---- FP8 ---- */

static float fp8_value(uint8_t v, int mbits, int bias)
{
	int e = (v & 0x7f) >> mbits, m = v & ((1 << mbits) - 1);
	float r = e == 0 ? ldexpf((float)m, 1 - bias - mbits) : ldexpf((float)((1 << mbits) + m), e - bias - mbits);
	return v & 0x80 ? -r : r;
}

float e4m3_to_float(uint8_t v)
{
	if ((v & 0x7f) == 0x7f)
		return (v & 0x80) ? -NAN : NAN;
	return fp8_value(v, 3, 7);
}

float e5m2_to_float(uint8_t v)
{
	if ((v & 0x7c) == 0x7c) /* exponent all ones */
		return (v & 3) ? ((v & 0x80) ? -NAN : NAN) : ((v & 0x80) ? -INFINITY : INFINITY);
	return fp8_value(v, 2, 15);
}

/* |f| rounded to nearest even on the format's grid (mbits of mantissa,
 * the smallest normal 2^(1 - bias)), saturated at maxv; then encoded. */
static uint8_t fp8_from(float f, int mbits, int bias, float maxv, uint8_t nan)
{
	uint8_t sign = signbit(f) ? 0x80 : 0;
	if (isnan(f))
		return (uint8_t)(sign | nan);
	float a = fabsf(f);
	int ex;
	(void)frexpf(a, &ex);
	int e = ex - 1 < 1 - bias ? 1 - bias : ex - 1;
	float r = a >= maxv ? maxv : rintf(ldexpf(a, mbits - e)) * ldexpf(1.0f, e - mbits);
	if (r > maxv)
		r = maxv;
	if (r == 0)
		return sign;
	(void)frexpf(r, &ex);
	if (ex - 1 < 1 - bias) /* subnormal: a count of the smallest step */
		return (uint8_t)(sign | (uint8_t)ldexpf(r, bias - 1 + mbits));
	int m = (int)ldexpf(r, mbits - (ex - 1)) - (1 << mbits);
	return (uint8_t)(sign | (uint8_t)((ex - 1 + bias) << mbits) | (uint8_t)m);
}

uint8_t float_to_e4m3(float f)
{
	return fp8_from(f, 3, 7, 448.0f, 0x7f);
}

uint8_t float_to_e5m2(float f)
{
	return fp8_from(f, 2, 15, 57344.0f, 0x7f);
}

float half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
	if (exp == 0x1f) /* infinity or NaN (payload kept, quiet) */
		return u2f(sign | 0x7f800000u | (man << 13) | (man ? 0x400000u : 0));
	if (exp == 0) /* zero or subnormal: man * 2^-24 */
		return sign ? -ldexpf((float)man, -24) : ldexpf((float)man, -24);
	return u2f(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t float_to_half(float f)
{
	uint32_t u = f2u(f);
	uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
	uint32_t a = u & 0x7fffffffu;
	if (a > 0x7f800000u) /* NaN: quiet, keep the top of the payload */
		return (uint16_t)(sign | 0x7e00 | ((a >> 13) & 0x1ff));
	if (a >= 0x477ff000u) /* rounds to 65536 or more: infinity */
		return (uint16_t)(sign | 0x7c00);
	if (a < 0x38800000u) {
		/* below the smallest normal (2^-14): a subnormal, in units of
		 * 2^-24, rounded to nearest even */
		float v = u2f(a) * 16777216.0f; /* exact: a power of two */
		float r = nearbyintf(v);        /* the default mode: to nearest even */
		return (uint16_t)(sign | (uint16_t)r);
	}
	/* normal: drop 13 bits of the mantissa, rounding to nearest even (a
	 * carry into the exponent is right, up to infinity) */
	uint32_t m = a - 0x38000000u; /* rebias the exponent: 127 -> 15 */
	uint32_t r = (m + 0xfffu + ((m >> 13) & 1)) >> 13;
	return (uint16_t)(sign | r);
}

float bf16_to_float(uint16_t h)
{
	return u2f((uint32_t)h << 16);
}

uint16_t float_to_bf16(float f)
{
	uint32_t u = f2u(f);
	if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: quiet */
		return (uint16_t)((u >> 16) | 0x40);
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

const char *init_name(init_kind k)
{
	switch (k) {
	case INIT_RANDOM: return "random";
	case INIT_ZERO:   return "zero";
	case INIT_ONE:    return "one";
	case INIT_IOTA:   return "iota";
	case INIT_VALUE:  return "value";
	case INIT_POISON: return "poison";
	case INIT_LIST:   return "list";
	}
	return "?";
}

size_t arg_size(arg_kind k)
{
	switch (k) {
	case ARG_I32: case ARG_U32: case ARG_F32:
		return 4;
	case ARG_PTR: case ARG_I64: case ARG_U64: case ARG_F64:
		return 8;
	case ARG_TMAP:
		return 128;
	case ARG_NONE:
		break;
	}
	return 0;
}

const char *arg_kind_name(arg_kind k)
{
	switch (k) {
	case ARG_NONE: return "unsupported";
	case ARG_PTR:  return "pointer";
	case ARG_I32:  return "int";
	case ARG_U32:  return "unsigned";
	case ARG_I64:  return "long";
	case ARG_U64:  return "unsigned long";
	case ARG_F32:  return "float";
	case ARG_F64:  return "double";
	case ARG_TMAP: return "CUtensorMap";
	}
	return "?";
}
