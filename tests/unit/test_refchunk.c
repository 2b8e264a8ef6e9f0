/* test_refchunk.c: the comparison in pieces (ref_cmp_begin, _range, _end)
 * gives what one comparison over the whole array gives, bit for bit,
 * however the pieces fall. */
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "types.h"

typedef struct fetcher {
	const unsigned char *got;
	size_t es;
	int calls;
	uint64_t lo, hi;
	int fail;
} fetcher;

static const void *fetch(void *ctx, uint64_t lo, uint64_t hi)
{
	fetcher *f = ctx;
	f->calls++;
	f->lo = lo;
	f->hi = hi;
	return f->fail ? NULL : f->got + lo * f->es;
}

static int same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static int same_result(const cmp_result *a, const cmp_result *b)
{
	return a->ok == b->ok && a->bad_index == b->bad_index && a->nonfinite == b->nonfinite &&
	       same_bits(a->rel_err, b->rel_err) && same_bits(a->got, b->got) && same_bits(a->want, b->want);
}

/* got and want (n scalars of gt and wt) compared in pieces of `piece`
 * scalars, each piece handed over from a copy of its own (as a staging
 * area would hold it); the result against the whole comparison's. */
static void pieces_vs_whole(const void *got, dtype gt, const void *want, dtype wt, uint64_t n, double tol,
                            uint64_t piece, const char *what)
{
	cmp_result whole, parts;
	ref_compare_typed(got, gt, want, wt, n, tol, &whole);
	size_t es = dtype_size(gt);
	unsigned char *stage = malloc(piece * es + 1);
	cmp_run *c = ref_cmp_begin(gt, wt, n, tol);
	for (uint64_t lo = 0; lo < n; lo += piece) {
		uint64_t hi = n - lo > piece ? lo + piece : n;
		memcpy(stage, (const unsigned char *)got + lo * es, (hi - lo) * es);
		memset(stage + (hi - lo) * es, 0xA5, 1); /* nothing past the piece is read... */
		ref_cmp_range(c, stage, want, lo, hi);
		memset(stage, 0x5A, (hi - lo) * es); /* ...nor the piece once handed over */
	}
	fetcher f = { got, es, 0, 0, 0, 0 };
	int rc = ref_cmp_end(c, want, fetch, &f, &parts);
	CHECK(rc == 0);
	int same = same_result(&whole, &parts);
	CHECK(same);
	if (!same)
		fprintf(stderr, "  %s, pieces of %llu: ok %d/%d bad %lld/%lld rel %.17g/%.17g nf %llu/%llu\n", what,
		        (unsigned long long)piece, whole.ok, parts.ok, (long long)whole.bad_index,
		        (long long)parts.bad_index, whole.rel_err, parts.rel_err,
		        (unsigned long long)whole.nonfinite, (unsigned long long)parts.nonfinite);
	/* the output is fetched again only to find a bad element, one chunk */
	CHECK(f.calls == (whole.bad_index >= 0 ? 1 : 0) || (f.calls >= 1 && whole.bad_index >= 0));
	if (whole.bad_index >= 0)
		CHECK(f.lo <= (uint64_t)whole.bad_index && (uint64_t)whole.bad_index < f.hi);
	free(stage);
}

enum { NONE, ONE, SEVERAL, NANS, INFS, WANT_NAN, ALL_BAD, NCASES };
static const char *case_name[] = { "no bad element", "one", "several", "NaN got", "Inf got",
                                   "NaN wanted", "every one" };

/* got = want, then spoiled as case k says. */
static void spoil(void *got, dtype t, uint64_t n, int k, void *want)
{
	switch (k) {
	case ONE:
		buffer_put(got, t, n * 2 / 3, buffer_get(got, t, n * 2 / 3) + 7);
		break;
	case SEVERAL:
		for (uint64_t i = n / 5; i < n; i += n / 7 + 1)
			buffer_put(got, t, i, buffer_get(got, t, i) - 5);
		buffer_put(got, t, n - 1, buffer_get(got, t, n - 1) + 9);
		break;
	case NANS:
		if (dtype_is_float(t)) {
			buffer_put(got, t, n / 2 + 1, NAN);
			buffer_put(got, t, n - 3, NAN);
		}
		break;
	case INFS:
		if (dtype_is_float(t))
			buffer_put(got, t, n / 3, -INFINITY);
		break;
	case WANT_NAN:
		if (dtype_is_float(t)) {
			buffer_put(want, t, 70000 % n, NAN);
			buffer_put(got, t, 70000 % n, NAN); /* matches */
			buffer_put(want, t, n - 2, NAN);    /* does not */
		}
		break;
	case ALL_BAD:
		for (uint64_t i = 0; i < n; i++)
			buffer_put(got, t, i, buffer_get(got, t, i) * 3 + 1);
		break;
	default:
		break;
	}
}

TEST(pieces_equal_whole)
{
	const dtype types[] = { DT_FLOAT, DT_INT, DT_DOUBLE, DT_HALF };
	const uint64_t sizes[] = { 1, 1000, 200003, 3 * 65536 };
	const uint64_t pieces[] = { 1, 999, 65536, 65536 + 7, 100000, 1 << 20 };
	for (size_t ti = 0; ti < ARRAY_LEN(types); ti++)
		for (size_t si = 0; si < ARRAY_LEN(sizes); si++)
			for (int k = 0; k < NCASES; k++) {
				dtype t = types[ti];
				uint64_t n = sizes[si];
				size_t es = dtype_size(t);
				void *want = malloc(n * es), *got = malloc(n * es);
				buffer_fill(want, t, n, INIT_RANDOM, 0, 11 + si);
				memcpy(got, want, n * es);
				if (n >= 8)
					spoil(got, t, n, k, want);
				double tol = ref_default_tol(ref_find("copy"), t);
				char what[96];
				snprintf(what, sizeof what, "%s, %llu, %s", dtype_name(t), (unsigned long long)n,
				         case_name[k]);
				for (size_t pi = 0; pi < ARRAY_LEN(pieces); pi++)
					if (pieces[pi] > 1 || n <= 1000)
						pieces_vs_whole(got, t, want, t, n, tol, pieces[pi], what);
				/* got in float against wanted doubles (a reference kept as doubles) */
				if (t == DT_FLOAT) {
					double *wd = malloc(n * sizeof *wd);
					buffer_to_double(want, DT_FLOAT, n, wd);
					pieces_vs_whole(got, t, wd, DT_DOUBLE, n, tol, 999, what);
					free(wd);
				}
				free(want);
				free(got);
			}
}

TEST(verdicts_as_expected)
{
	/* the cases above do fail and pass as they should (so the equality is
	 * not that of two empty results) */
	uint64_t n = 200003;
	float *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
	buffer_fill(want, DT_FLOAT, n, INIT_RANDOM, 0, 3);
	cmp_result r;
	fetcher f = { NULL, 4, 0, 0, 0, 0 };
	for (int k = 0; k < NCASES; k++) {
		buffer_fill(want, DT_FLOAT, n, INIT_RANDOM, 0, 3);
		memcpy(got, want, n * sizeof *got);
		spoil(got, DT_FLOAT, n, k, want);
		cmp_run *c = ref_cmp_begin(DT_FLOAT, DT_FLOAT, n, 1e-5);
		for (uint64_t lo = 0; lo < n; lo += 4096)
			ref_cmp_range(c, got + lo, want, lo, lo + 4096);
		f.got = (const unsigned char *)got;
		CHECK(ref_cmp_end(c, want, fetch, &f, &r) == 0);
		switch (k) {
		case NONE: CHECK(r.ok && r.bad_index == -1 && r.rel_err == 0); break;
		case ONE: CHECK(!r.ok); CHECK(r.bad_index == (int64_t)(n * 2 / 3)); break;
		case SEVERAL: CHECK(!r.ok && r.bad_index == (int64_t)(n / 5)); break;
		case NANS: CHECK(!r.ok && r.nonfinite == 2 && r.bad_index == (int64_t)(n / 2 + 1) && isnan(r.got)); break;
		case INFS: CHECK(!r.ok && r.nonfinite == 1 && r.bad_index == (int64_t)(n / 3)); break;
		case WANT_NAN: CHECK(!r.ok && r.bad_index == (int64_t)(n - 2) && isnan(r.want)); break;
		case ALL_BAD: CHECK(!r.ok && r.bad_index == 0); break;
		default: break;
		}
	}
	free(want);
	free(got);
}

TEST(misuse_gives_no_verdict)
{
	float a[10] = { 0 };
	cmp_result r;
	fetcher f = { (const unsigned char *)a, 4, 0, 0, 0, 0 };
	cmp_run *c = ref_cmp_begin(DT_FLOAT, DT_FLOAT, 10, 1e-5);
	ref_cmp_range(c, a, a, 0, 4);
	ref_cmp_range(c, a, a, 5, 10); /* a gap */
	CHECK(ref_cmp_end(c, a, fetch, &f, &r) == -1 && !r.ok);
	c = ref_cmp_begin(DT_FLOAT, DT_FLOAT, 10, 1e-5);
	ref_cmp_range(c, a, a, 0, 9); /* short */
	CHECK(ref_cmp_end(c, a, fetch, &f, &r) == -1 && !r.ok);
	/* a fetch that fails: -1 */
	float g[10] = { 0, 0, 0, 1, 0, 0, 0, 0, 0, 0 };
	c = ref_cmp_begin(DT_FLOAT, DT_FLOAT, 10, 1e-5);
	ref_cmp_range(c, g, a, 0, 10);
	f.fail = 1;
	CHECK(ref_cmp_end(c, a, fetch, &f, &r) == -1);
	/* empty: ok, nothing fetched */
	f.fail = 0;
	f.calls = 0;
	c = ref_cmp_begin(DT_FLOAT, DT_FLOAT, 0, 1e-5);
	CHECK(ref_cmp_end(c, a, fetch, &f, &r) == 0 && r.ok && f.calls == 0);
}

int main(void)
{
	RUN(pieces_equal_whole);
	RUN(verdicts_as_expected);
	RUN(misuse_gives_no_verdict);
	return test_report("refchunk");
}
