/* test_refmove.c: the references that only move values (copy, transpose)
 * in the elements' own type give the same wanted values as the path
 * through doubles, and so the same verdict. */
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "types.h"

static ref_arg rbuf(const void *raw, dtype t, uint64_t scalars, const char *name)
{
	ref_arg a;
	memset(&a, 0, sizeof a);
	a.is_buf = 1;
	a.raw = raw;
	a.type = t;
	a.count = scalars;
	a.name = name;
	return a;
}

static ref_arg rnum(double v)
{
	ref_arg a;
	memset(&a, 0, sizeof a);
	a.f = v;
	a.i = (int64_t)v;
	return a;
}

/* Element k of two wanted arrays: the same value (NaN matches NaN). */
static int same_values(const void *a, dtype ta, const void *b, dtype tb, uint64_t n, uint64_t *where)
{
	for (uint64_t k = 0; k < n; k++) {
		double x = buffer_get(a, ta, k), y = buffer_get(b, tb, k);
		if (!(x == y || (isnan(x) && isnan(y)))) {
			*where = k;
			return 0;
		}
	}
	return 1;
}

static int same_result(const cmp_result *a, const cmp_result *b)
{
	return a->ok == b->ok && a->bad_index == b->bad_index && a->nonfinite == b->nonfinite &&
	       memcmp(&a->rel_err, &b->rel_err, sizeof a->rel_err) == 0 &&
	       (a->got == b->got || (isnan(a->got) && isnan(b->got))) &&
	       (a->want == b->want || (isnan(a->want) && isnan(b->want)));
}

/* Both paths of reference `name` on args (output n scalars of type t):
 * the same values; where the path through doubles keeps the output's own
 * type, the same bits; and a comparison against each gives one result. */
static void both_paths(const char *name, const ref_arg *args, dtype t, uint64_t n, const char *what)
{
	const ref_fn *f = ref_find(name);
	CHECK(f && f->move);
	if (!f)
		return;
	CHECK(ref_moves(f, args, t));
	dtype wd = DT__COUNT, wm = DT__COUNT;
	char *ed = NULL, *em = NULL;
	void *d = ref_wanted(f, args, t, n, 1, &wd, &ed);
	void *m = ref_wanted(f, args, t, n, 0, &wm, &em);
	CHECK(d && m);
	if (!d || !m) {
		fprintf(stderr, "  %s %s: %s / %s\n", name, what, ed ? ed : "", em ? em : "");
		goto out;
	}
	CHECK(wm == dtype_scalar(t));
	uint64_t at = 0;
	int same = same_values(d, wd, m, wm, n, &at);
	CHECK(same);
	if (!same)
		fprintf(stderr, "  %s %s (%s): element %llu differs\n", name, what, dtype_name(t),
		        (unsigned long long)at);
	if (wd != DT_DOUBLE)
		CHECK(wd == wm); /* float, int, unsigned: the same type */
	if (wd == wm) {
		CHECK(memcmp(d, m, (size_t)n * dtype_size(wm)) == 0);
	}
	/* a kernel's output: the wanted values with one scalar off (and one
	 * NaN for the float types) */
	size_t es = dtype_size(dtype_scalar(t));
	void *got = malloc((size_t)n * es);
	memcpy(got, m, (size_t)n * es);
	buffer_put(got, dtype_scalar(t), n / 2, buffer_get(got, dtype_scalar(t), n / 2) + 3);
	if (dtype_is_float(t) && n > 3)
		buffer_put(got, dtype_scalar(t), n - 2, NAN);
	double tol = ref_default_tol(f, t);
	cmp_result rd, rm, rs;
	ref_compare_typed(got, t, d, wd, n, tol, &rd);
	ref_compare_typed(got, t, m, wm, n, tol, &rm);
	CHECK(same_result(&rd, &rm));
	ref_compare_typed(m, t, d, wd, n, tol, &rs);
	CHECK(rs.ok);
	free(got);
out:
	free(ed);
	free(em);
	free(d);
	free(m);
}

static const dtype types[] = {
	DT_FLOAT, DT_DOUBLE, DT_INT, DT_UNSIGNED, DT_HALF, DT_BF16, DT_I8, DT_U8, DT_I16, DT_U16,
	DT_FLOAT2, DT_FLOAT4, DT_DOUBLE2, DT_INT4, DT_UINT2, DT_HALF2, DT_BF162, DT_CHAR4,
};

/* An input of `elems` elements of type t: random, or poison (NaN for the
 * float types) in every seventh element. */
static void *input(dtype t, uint64_t elems, uint64_t seed)
{
	size_t es = dtype_size(t);
	unsigned char *p = malloc(elems * es + 1);
	buffer_fill(p, t, elems, INIT_RANDOM, 0, seed);
	for (uint64_t k = 0; k < elems; k += 7)
		memset(p + k * es, 0xFF, es);
	return p;
}

TEST(copy_in_own_type)
{
	const uint64_t sizes[] = { 1, 7, 1000, 65537, 3 * 65536 + 11 };
	for (size_t ti = 0; ti < ARRAY_LEN(types); ti++)
		for (size_t si = 0; si < ARRAY_LEN(sizes); si++) {
			dtype t = types[ti];
			uint64_t elems = sizes[si], n = elems * (uint64_t)dtype_lanes(t);
			void *in = input(t, elems, 17 + si);
			ref_arg a[1] = { rbuf(in, t, n, "in") };
			char what[64];
			snprintf(what, sizeof what, "%llu elements", (unsigned long long)elems);
			both_paths("copy", a, t, n, what);
			free(in);
		}
}

TEST(transpose_in_own_type)
{
	/* rows x cols in scalars; a vector type's cols are a multiple of its lanes */
	const uint64_t shapes[][2] = { { 1, 1 }, { 1, 13 }, { 37, 1 }, { 37, 1001 }, { 1001, 37 },
	                               { 129, 67 }, { 1000, 1000 }, { 257, 515 } };
	for (int threads = 1; threads <= 2; threads++) {
		ref_set_threads(threads == 1 ? 1 : 0);
		for (size_t ti = 0; ti < ARRAY_LEN(types); ti++)
			for (size_t si = 0; si < ARRAY_LEN(shapes); si++) {
				dtype t = types[ti];
				uint64_t lanes = (uint64_t)dtype_lanes(t);
				uint64_t rows = shapes[si][0], cols = shapes[si][1] * lanes, n = rows * cols;
				void *in = input(t, n / lanes, 5 + si);
				ref_arg a[3] = { rbuf(in, t, n, "in"), rnum((double)rows), rnum((double)cols) };
				char what[64];
				snprintf(what, sizeof what, "%llu x %llu", (unsigned long long)rows,
				         (unsigned long long)cols);
				both_paths("transpose", a, t, n, what);
				free(in);
			}
	}
	ref_set_threads(0);
}

TEST(transpose_moves_the_right_elements)
{
	/* against the plain definition, on iota of ints (a path through doubles
	 * would hide nothing here: this checks the move itself) */
	uint64_t rows = 131, cols = 77, n = rows * cols;
	int32_t *in = malloc(n * sizeof *in);
	buffer_fill(in, DT_INT, n, INIT_IOTA, 0, 0);
	ref_arg a[3] = { rbuf(in, DT_INT, n, "in"), rnum((double)rows), rnum((double)cols) };
	dtype wt;
	char *e = NULL;
	int32_t *out = ref_wanted(ref_find("transpose"), a, DT_INT, n, 0, &wt, &e);
	CHECK(out && wt == DT_INT);
	int bad = 0;
	for (uint64_t r = 0; out && r < rows; r++)
		for (uint64_t c = 0; c < cols; c++)
			if (out[c * rows + r] != in[r * cols + c])
				bad++;
	CHECK(bad == 0);
	free(out);
	free(in);
	free(e);
}

TEST(when_values_move)
{
	float x[4] = { 1, 2, 3, 4 };
	ref_arg a[3] = { rbuf(x, DT_FLOAT, 4, "in"), rnum(2), rnum(2) };
	const ref_fn *tr = ref_find("transpose"), *cp = ref_find("copy"), *add = ref_find("add");
	CHECK(ref_moves(tr, a, DT_FLOAT));
	CHECK(ref_moves(cp, a, DT_FLOAT4));
	CHECK(!ref_moves(tr, a, DT_DOUBLE)); /* another type: computed in doubles */
	CHECK(!ref_moves(add, a, DT_FLOAT)); /* computes: never moves */
	ref_arg l[1] = { rbuf(x, DT_LONG, 2, "in") };
	CHECK(!ref_moves(cp, l, DT_LONG));   /* 64-bit integers: not every value is a double */
	l[0].type = DT_U64;
	CHECK(!ref_moves(cp, l, DT_U64));
	/* a float input into a double output: the path through doubles, the
	 * values exact */
	dtype wt;
	char *e = NULL;
	double *d = ref_wanted(tr, a, DT_DOUBLE, 4, 0, &wt, &e);
	CHECK(d && wt == DT_DOUBLE && d[1] == 3 && d[2] == 2);
	free(d);
}

TEST(argument_errors_alike)
{
	float x[6] = { 0 };
	const ref_fn *tr = ref_find("transpose"), *cp = ref_find("copy");
	struct { const ref_fn *f; ref_arg a[3]; uint64_t n; } cases[] = {
		{ tr, { rbuf(x, DT_FLOAT, 6, "in"), rnum(4), rnum(2) }, 6 },  /* in is not rows * cols */
		{ tr, { rbuf(x, DT_FLOAT, 6, "in"), rnum(2), rnum(3) }, 5 },  /* the output is not */
		{ tr, { rbuf(x, DT_FLOAT, 6, "in"), rnum(0), rnum(3) }, 6 },  /* rows 0 */
		{ tr, { rbuf(x, DT_FLOAT, 6, "in"), rnum(2.5), rnum(3) }, 6 },
		{ cp, { rbuf(x, DT_FLOAT, 6, "in") }, 5 },
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		dtype w1, w2;
		char *e1 = NULL, *e2 = NULL;
		void *d = ref_wanted(cases[i].f, cases[i].a, DT_FLOAT, cases[i].n, 1, &w1, &e1);
		void *m = ref_wanted(cases[i].f, cases[i].a, DT_FLOAT, cases[i].n, 0, &w2, &e2);
		CHECK(!d && !m);
		CHECK(e1 && e2);
		if (e1 && e2)
			CHECK_STREQ(e1, e2);
		free(e1);
		free(e2);
	}
}

int main(void)
{
	RUN(copy_in_own_type);
	RUN(transpose_in_own_type);
	RUN(transpose_moves_the_right_elements);
	RUN(when_values_move);
	RUN(argument_errors_alike);
	return test_report("refmove");
}
