/* test_types.c: element types: names and C spellings, binary16 and
 * bfloat16 conversions, fills and conversions of every type, tolerances. */
#include "test.h"

#include <math.h>
#include <string.h>

#include "buffer.h"
#include "ref.h"
#include "types.h"

static dtype parse(const char *s)
{
	dtype t = DT__COUNT;
	if (dtype_parse(s, -1, &t) != 0)
		return DT__COUNT;
	return t;
}

/* the words of a C declaration, split on blanks */
static dtype from_c(const char *decl)
{
	const char *w[8];
	int l[8], n = 0;
	for (const char *p = decl; *p && n < 8;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		const char *e = p;
		while (*e && *e != ' ')
			e++;
		w[n] = p;
		l[n++] = (int)(e - p);
		p = e;
	}
	dtype t = DT__COUNT;
	if (dtype_from_c(w, l, n, &t) != 0)
		return DT__COUNT;
	return t;
}

TEST(names)
{
	for (int t = 0; t < DT__COUNT; t++) {
		CHECK(parse(dtype_name((dtype)t)) == (dtype)t);
		CHECK(dtype_size((dtype)t) == dtype_size(dtype_scalar((dtype)t)) * (size_t)dtype_lanes((dtype)t));
		CHECK(dtype_lanes(dtype_scalar((dtype)t)) == 1);
	}
	CHECK(parse("__half") == DT_HALF && parse("__nv_bfloat16") == DT_BF16);
	CHECK(parse("int8_t") == DT_I8 && parse("uint8_t") == DT_U8 && parse("short") == DT_I16);
	CHECK(parse("int64_t") == DT_LONG && parse("size_t") == DT_U64 && parse("uint32_t") == DT_UNSIGNED);
	CHECK(parse("__half2") == DT_HALF2 && parse("float4") == DT_FLOAT4);
	CHECK(parse("floats") == DT__COUNT && parse("") == DT__COUNT && parse("unsigned char") == DT__COUNT);
	CHECK(dtype_size(DT_HALF) == 2 && dtype_size(DT_FLOAT4) == 16 && dtype_size(DT_UCHAR4) == 4);
	CHECK(dtype_scalar(DT_HALF2) == DT_HALF && dtype_lanes(DT_HALF2) == 2);
	CHECK(dtype_is_float(DT_BF16) && dtype_is_float(DT_FLOAT4) && !dtype_is_float(DT_U8));
	CHECK(dtype_is_signed(DT_I8) && !dtype_is_signed(DT_U16) && !dtype_is_signed(DT_UINT4));
}

TEST(c_spellings)
{
	CHECK(from_c("float") == DT_FLOAT);
	CHECK(from_c("unsigned char") == DT_U8 && from_c("char") == DT_I8 && from_c("signed char") == DT_I8);
	CHECK(from_c("short") == DT_I16 && from_c("unsigned short int") == DT_U16);
	CHECK(from_c("long long") == DT_LONG && from_c("unsigned long long") == DT_U64 && from_c("long") == DT_LONG);
	CHECK(from_c("unsigned") == DT_UNSIGNED && from_c("unsigned int") == DT_UNSIGNED && from_c("int") == DT_INT);
	CHECK(from_c("__half") == DT_HALF && from_c("std::uint8_t") == DT_U8 && from_c("::int8_t") == DT_I8);
	CHECK(from_c("float4") == DT_FLOAT4 && from_c("__nv_bfloat162") == DT_BF162);
	CHECK(from_c("T") == DT__COUNT && from_c("signed unsigned") == DT__COUNT && from_c("long long long") == DT__COUNT);
	CHECK(from_c("unsigned float") == DT__COUNT && from_c("Foo Bar") == DT__COUNT);
}

TEST(binary16)
{
	/* known bit patterns */
	static const struct { float f; uint16_t h; } k[] = {
		{ 0.0f, 0x0000 }, { -0.0f, 0x8000 }, { 1.0f, 0x3c00 }, { -2.0f, 0xc000 },
		{ 65504.0f, 0x7bff }, { 0.5f, 0x3800 }, { 0.333251953125f, 0x3555 },
		{ 6.103515625e-05f, 0x0400 },  /* smallest normal */
		{ 5.9604644775390625e-08f, 0x0001 }, /* smallest subnormal */
		{ 6.097555160522461e-05f, 0x03ff }, /* largest subnormal */
	};
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
		CHECK(float_to_half(k[i].f) == k[i].h);
		CHECK(half_to_float(k[i].h) == k[i].f);
	}
	CHECK(float_to_half(INFINITY) == 0x7c00 && float_to_half(-INFINITY) == 0xfc00);
	CHECK(float_to_half(65520.0f) == 0x7c00);   /* the tie above 65504 rounds to infinity */
	CHECK(float_to_half(65519.0f) == 0x7bff);
	CHECK(float_to_half(1e6f) == 0x7c00);
	uint16_t nan = float_to_half(NAN);
	CHECK((nan & 0x7c00) == 0x7c00 && (nan & 0x3ff) != 0);
	CHECK(isnan(half_to_float(0x7e00)) && isnan(half_to_float(0xffff)) && isinf(half_to_float(0x7c00)));
	/* ties to even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10 */
	CHECK(float_to_half(1.0f + 0x1p-11f) == 0x3c00);
	CHECK(float_to_half(1.0f + 3 * 0x1p-11f) == 0x3c02);
	CHECK(float_to_half(0x1p-25f) == 0x0000);           /* half the smallest subnormal: to even (0) */
	CHECK(float_to_half(3 * 0x1p-25f) == 0x0002);       /* 1.5 subnormal steps: to even (2) */
	CHECK(float_to_half(1e-10f) == 0);
	/* every half goes to float and back unchanged (NaNs stay NaN) */
	int bad = 0;
	for (uint32_t h = 0; h < 0x10000; h++) {
		float f = half_to_float((uint16_t)h);
		if (isnan(f) ? !isnan(half_to_float(float_to_half(f))) : float_to_half(f) != h)
			bad++;
	}
	CHECK(bad == 0);
}

TEST(bfloat16)
{
	CHECK(float_to_bf16(1.0f) == 0x3f80 && float_to_bf16(-2.0f) == 0xc000 && float_to_bf16(0.0f) == 0);
	CHECK(bf16_to_float(0x3f80) == 1.0f && bf16_to_float(0x4049) == 3.140625f);
	CHECK(float_to_bf16(3.14159265f) == 0x4049);
	CHECK(float_to_bf16(1.0f + 0x1p-8f) == 0x3f80);      /* tie: to even */
	CHECK(float_to_bf16(1.0f + 3 * 0x1p-8f) == 0x3f82);
	CHECK(float_to_bf16(INFINITY) == 0x7f80 && isnan(bf16_to_float(float_to_bf16(NAN))));
	CHECK(float_to_bf16(3.4e38f) == 0x7f80);             /* past the largest bf16: infinity */
	int bad = 0;
	for (uint32_t h = 0; h < 0x10000; h++) {
		float f = bf16_to_float((uint16_t)h);
		if (isnan(f) ? !isnan(bf16_to_float(float_to_bf16(f))) : float_to_bf16(f) != h)
			bad++;
	}
	CHECK(bad == 0);
}

/* FP8: every byte back and forth; rounding to nearest even, saturation */
TEST(fp8)
{
	int bad = 0;
	for (int v = 0; v < 256; v++) {
		float a = e4m3_to_float((uint8_t)v), b = e5m2_to_float((uint8_t)v);
		if ((isnan(a) ? (v & 0x7f) != 0x7f : float_to_e4m3(a) != v && !(a == 0 && v == 0x80)) ||
		    (isnan(b) ? (v & 0x7f) <= 0x7c : !isinf(b) && float_to_e5m2(b) != v && !(b == 0 && v == 0x80)))
			bad++;
	}
	CHECK(bad == 0);
	CHECK(e4m3_to_float(0x7e) == 448 && e5m2_to_float(0x7b) == 57344 && isinf(e5m2_to_float(0x7c)));
	CHECK(e4m3_to_float(0x01) == 0x1p-9f && e5m2_to_float(0x01) == 0x1p-16f); /* the smallest subnormals */
	CHECK(float_to_e4m3(1000.0f) == 0x7e && float_to_e4m3(-INFINITY) == 0xfe && float_to_e5m2(1e6f) == 0x7b);
	CHECK(float_to_e4m3(1.0625f) == 0x38);  /* halfway between 1 and 1.125: to the even 1 */
	CHECK(float_to_e4m3(1.1875f) == 0x3a);  /* halfway between 1.125 and 1.25: to the even 1.25 */
	CHECK(float_to_e5m2(0.3f) == 0x35);     /* 0.3 -> 0.3125 (1.25 * 2^-2) */
	CHECK(isnan(e4m3_to_float(float_to_e4m3(NAN))) && isnan(e5m2_to_float(float_to_e5m2(NAN))));
	dtype t;
	CHECK(dtype_parse("__nv_fp8_e4m3", -1, &t) == 0 && t == DT_E4M3);
	CHECK(dtype_parse("e5m2", -1, &t) == 0 && t == DT_E5M2 && dtype_size(t) == 1 && dtype_is_float(t));
}

TEST(fills)
{
	enum { N = 5000 };
	static unsigned char buf[N * 16];
	static double d[N * 4];
	for (int t = 0; t < DT__COUNT; t++) {
		dtype ty = (dtype)t;
		uint64_t sn = (uint64_t)N * (uint64_t)dtype_lanes(ty);
		/* random: finite, inside the type's stated range, not constant */
		buffer_fill(buf, ty, N, INIT_RANDOM, 0, 42);
		buffer_to_double(buf, ty, N, d);
		double lo = 1e300, hi = -1e300;
		int finite = 1;
		for (uint64_t i = 0; i < sn; i++) {
			finite &= isfinite(d[i]) != 0;
			lo = d[i] < lo ? d[i] : lo;
			hi = d[i] > hi ? d[i] : hi;
		}
		CHECK(finite && hi > lo);
		if (dtype_is_float(ty))
			CHECK(lo >= -1 && hi < 1);
		/* deterministic */
		static unsigned char again[N * 16];
		buffer_fill(again, ty, N, INIT_RANDOM, 0, 42);
		CHECK(memcmp(buf, again, (size_t)N * dtype_size(ty)) == 0);
		/* iota: exact and wrapping where the type is small */
		buffer_fill(buf, ty, N, INIT_IOTA, 0, 0);
		buffer_to_double(buf, ty, N, d);
		dtype st = dtype_scalar(ty);
		uint64_t wrap = st == DT_HALF ? 2048 : st == DT_BF16 ? 256 : st == DT_I8 || st == DT_U8 ? 256
		              : st == DT_I16 || st == DT_U16 ? 65536 : st == DT_E4M3 ? 17 : st == DT_E5M2 ? 9 : 0;
		int ok = 1;
		for (uint64_t i = 0; i < sn; i++) {
			double want = (double)(wrap ? i % wrap : i);
			if (st == DT_I8 && want >= 128)
				want -= 256;
			if (st == DT_I16 && want >= 32768)
				want -= 65536;
			ok &= d[i] == want;
		}
		CHECK(ok);
		/* value and poison */
		buffer_fill(buf, ty, N, INIT_VALUE, 3, 0);
		buffer_to_double(buf, ty, N, d);
		CHECK(d[0] == 3 && d[sn - 1] == 3);
		buffer_fill(buf, ty, N, INIT_POISON, 0, 0);
		buffer_to_double(buf, ty, N, d);
		CHECK(dtype_is_float(ty) ? isnan(d[0]) && isnan(d[sn - 1])
		                         : d[0] == (dtype_is_signed(ty) ? -1 : d[0]) && d[0] != 0);
	}
	/* saturating conversions into small types */
	unsigned char b[8];
	buffer_fill(b, DT_I8, 1, INIT_VALUE, 300, 0);
	CHECK((int8_t)b[0] == 127);
	buffer_fill(b, DT_U8, 1, INIT_VALUE, -5, 0);
	CHECK(b[0] == 0);
	buffer_fill(b, DT_HALF, 1, INIT_VALUE, 1e9, 0);
	CHECK(isinf(buffer_get(b, DT_HALF, 0)));
	/* random half covers [-1, 1) with 2048 values, all exact */
	static uint16_t h[N];
	buffer_fill(h, DT_HALF, N, INIT_RANDOM, 0, 7);
	int exact = 1;
	for (int i = 0; i < N; i++) {
		double v = half_to_float(h[i]);
		exact &= v * 1024 == floor(v * 1024);
	}
	CHECK(exact);
}

TEST(tolerances)
{
	const ref_fn *copy = ref_find("copy");
	CHECK(copy != NULL);
	CHECK(ref_default_tol(copy, DT_I8) == 0 && ref_default_tol(copy, DT_U64) == 0 && ref_default_tol(copy, DT_INT4) == 0);
	CHECK(ref_default_tol(copy, DT_HALF) >= 1e-3 && ref_default_tol(copy, DT_HALF) <= 1e-2);
	CHECK(ref_default_tol(copy, DT_BF16) > ref_default_tol(copy, DT_HALF));
	CHECK(ref_default_tol(copy, DT_FLOAT4) == ref_default_tol(copy, DT_FLOAT));
	/* a half output compared as its scalars against a double reference */
	uint16_t got[4];
	double want[4] = { 0.1, -0.7, 0.333, 1.5 };
	for (int i = 0; i < 4; i++)
		got[i] = float_to_half((float)want[i]);
	cmp_result r;
	ref_compare_typed(got, DT_HALF, want, DT_DOUBLE, 4, ref_default_tol(copy, DT_HALF), &r);
	CHECK(r.ok && r.rel_err > 0 && r.rel_err < 1e-3);
	got[2] = float_to_half(0.5f);
	ref_compare_typed(got, DT_HALF, want, DT_DOUBLE, 4, ref_default_tol(copy, DT_HALF), &r);
	CHECK(!r.ok && r.bad_index == 2);
	/* a float4 output compared as 4 floats a element */
	float f4[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	double w8[8] = { 1, 2, 3, 4, 5, 6, 7, 9 };
	ref_compare_typed(f4, DT_FLOAT4, w8, DT_DOUBLE, 8, 1e-5, &r);
	CHECK(!r.ok && r.bad_index == 7 && r.got == 8 && r.want == 9);
	/* uint8 exact */
	uint8_t u[3] = { 1, 255, 7 };
	double wu[3] = { 1, 255, 7 };
	ref_compare_typed(u, DT_U8, wu, DT_DOUBLE, 3, 0, &r);
	CHECK(r.ok);
}

int main(void)
{
	RUN(fp8);
	RUN(names);
	RUN(c_spellings);
	RUN(binary16);
	RUN(bfloat16);
	RUN(fills);
	RUN(tolerances);
	return test_report("types");
}
