/* test_ref.c: CPU references, argument checks, comparison, buffer init. */
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ref.h"
#include "types.h"

static ref_arg buf(const double *d, uint64_t n, const char *name)
{
	ref_arg a;
	memset(&a, 0, sizeof a);
	a.is_buf = 1;
	a.data = d;
	a.count = n;
	a.name = name;
	return a;
}

static ref_arg num(double v)
{
	ref_arg a;
	memset(&a, 0, sizeof a);
	a.f = v;
	a.i = (int64_t)v;
	return a;
}

/* Runs reference `name` and returns its status; *err set on failure. */
static int call(const char *name, const ref_arg *a, double *out, uint64_t n, char **err)
{
	const ref_fn *f = ref_find(name);
	if (!f)
		return -2;
	return f->fn(a, out, n, err);
}

TEST(table)
{
	int n = 0;
	const ref_fn *t = ref_table(&n);
	CHECK(n >= 9);
	for (int i = 0; i < n; i++) {
		CHECK(t[i].name && t[i].synopsis && t[i].fn);
		CHECK((int)strlen(t[i].argkinds) == t[i].nargs);
		CHECK(strncmp(t[i].synopsis, t[i].name, strlen(t[i].name)) == 0);
		CHECK(t[i].float_tol > 0);
		CHECK(ref_find(t[i].name) == &t[i]);
	}
	const char *need[] = { "copy", "add", "scale", "square", "saxpy", "transpose", "matmul", "sum", "dot" };
	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
		CHECK(ref_find(need[i]) != NULL);
	CHECK(ref_find("nope") == NULL);
	CHECK(ref_find(NULL) == NULL);
	CHECK(ref_find("sum")->scalar_out == 1);
	CHECK(ref_find("dot")->scalar_out == 1);
	CHECK(ref_find("add")->scalar_out == 0);
	CHECK(ref_find("transpose")->scalar_out == 0);
}

TEST(tolerances)
{
	CHECK_NEAR(ref_default_tol(ref_find("copy"), DT_FLOAT), 1e-5, 0);
	CHECK_NEAR(ref_default_tol(ref_find("add"), DT_FLOAT), 1e-5, 0);
	CHECK_NEAR(ref_default_tol(ref_find("transpose"), DT_FLOAT), 1e-4, 0);
	CHECK_NEAR(ref_default_tol(ref_find("matmul"), DT_FLOAT), 1e-4, 0);
	CHECK_NEAR(ref_default_tol(ref_find("sum"), DT_FLOAT), 1e-4, 0);
	CHECK_NEAR(ref_default_tol(ref_find("dot"), DT_FLOAT), 1e-4, 0);
	CHECK_NEAR(ref_default_tol(ref_find("matmul"), DT_DOUBLE), 1e-10, 0);
	CHECK(ref_default_tol(ref_find("add"), DT_INT) == 0);
	CHECK(ref_default_tol(ref_find("sum"), DT_UNSIGNED) == 0);
	CHECK(ref_default_tol(ref_find("copy"), DT_LONG) == 0);
	CHECK_NEAR(ref_default_tol(NULL, DT_FLOAT), 1e-5, 0);
}

TEST(elementwise)
{
	double a[3] = { 1, 2, 3 }, b[3] = { 10, 20, -30 }, out[3];
	char *err = NULL;
	ref_arg x[3];

	x[0] = buf(a, 3, "in");
	CHECK(call("copy", x, out, 3, &err) == 0);
	CHECK(out[0] == 1 && out[1] == 2 && out[2] == 3);

	x[0] = buf(a, 3, "a");
	x[1] = buf(b, 3, "b");
	CHECK(call("add", x, out, 3, &err) == 0);
	CHECK(out[0] == 11 && out[1] == 22 && out[2] == -27);
	CHECK(call("sub", x, out, 3, &err) == 0);
	CHECK(out[0] == -9 && out[1] == -18 && out[2] == 33);
	CHECK(call("mul", x, out, 3, &err) == 0);
	CHECK(out[0] == 10 && out[1] == 40 && out[2] == -90);

	x[1] = num(2.5);
	CHECK(call("scale", x, out, 3, &err) == 0);
	CHECK(out[0] == 2.5 && out[1] == 5 && out[2] == 7.5);

	CHECK(call("square", x, out, 3, &err) == 0);
	CHECK(out[0] == 1 && out[1] == 4 && out[2] == 9);

	x[0] = num(2);
	x[1] = buf(a, 3, "x");
	x[2] = buf(b, 3, "y");
	CHECK(call("saxpy", x, out, 3, &err) == 0);
	CHECK(out[0] == 12 && out[1] == 24 && out[2] == -24);
	CHECK(err == NULL);
}

TEST(shape)
{
	/* 2 x 3, row-major */
	double in[6] = { 1, 2, 3, 4, 5, 6 }, out[6];
	char *err = NULL;
	ref_arg x[5];
	x[0] = buf(in, 6, "in");
	x[1] = num(2);
	x[2] = num(3);
	CHECK(call("transpose", x, out, 6, &err) == 0);
	double t[6] = { 1, 4, 2, 5, 3, 6 };
	CHECK(memcmp(out, t, sizeof t) == 0);

	/* A 2x3, B 3x2 -> C 2x2 */
	double A[6] = { 1, 2, 3, 4, 5, 6 }, B[6] = { 7, 8, 9, 10, 11, 12 }, C[4];
	x[0] = buf(A, 6, "A");
	x[1] = buf(B, 6, "B");
	x[2] = num(2);
	x[3] = num(2);
	x[4] = num(3);
	CHECK(call("matmul", x, C, 4, &err) == 0);
	CHECK(C[0] == 58 && C[1] == 64 && C[2] == 139 && C[3] == 154);

	/* non-square matmul: A 1x2, B 2x3 */
	double A2[2] = { 1, -1 }, B2[6] = { 1, 2, 3, 4, 5, 6 }, C2[3];
	x[0] = buf(A2, 2, "A");
	x[1] = buf(B2, 6, "B");
	x[2] = num(1);
	x[3] = num(3);
	x[4] = num(2);
	CHECK(call("matmul", x, C2, 3, &err) == 0);
	CHECK(C2[0] == -3 && C2[1] == -3 && C2[2] == -3);
	CHECK(err == NULL);
}

/* Large enough to run on threads: same answer as the plain loop. */
TEST(matmul_threads)
{
	enum { M = 300, N = 257, K = 200 };
	double *A = malloc(sizeof(double) * M * K), *B = malloc(sizeof(double) * K * N);
	double *C = malloc(sizeof(double) * M * N);
	float *fa = malloc(sizeof(float) * M * K), *fb = malloc(sizeof(float) * K * N);
	buffer_fill(fa, DT_FLOAT, M * K, INIT_RANDOM, 0, 1);
	buffer_fill(fb, DT_FLOAT, K * N, INIT_RANDOM, 0, 2);
	buffer_to_double(fa, DT_FLOAT, M * K, A);
	buffer_to_double(fb, DT_FLOAT, K * N, B);
	ref_arg x[5] = { buf(A, M * K, "A"), buf(B, K * N, "B"), num(M), num(N), num(K) };
	char *err = NULL;
	CHECK(call("matmul", x, C, M * N, &err) == 0);
	int bad = 0;
	for (int i = 0; i < M; i += 37)
		for (int j = 0; j < N; j += 11) {
			double s = 0;
			for (int k = 0; k < K; k++)
				s += A[i * K + k] * B[k * N + j];
			if (fabs(s - C[i * N + j]) > 1e-12)
				bad++;
		}
	/* the last row too (thread boundaries) */
	for (int j = 0; j < N; j++) {
		double s = 0;
		for (int k = 0; k < K; k++)
			s += A[(M - 1) * K + k] * B[k * N + j];
		if (fabs(s - C[(M - 1) * N + j]) > 1e-12)
			bad++;
	}
	CHECK(bad == 0);
	free(A);
	free(B);
	free(C);
	free(fa);
	free(fb);
}

TEST(reductions)
{
	double a[4] = { 1, 2, 3, 4 }, b[4] = { 4, 5, 6, -1 }, out[3] = { NAN, NAN, NAN };
	char *err = NULL;
	ref_arg x[2] = { buf(a, 4, "in"), buf(b, 4, "b") };
	CHECK(call("sum", x, out, 3, &err) == 0);
	CHECK(out[0] == 10);
	CHECK(isnan(out[1]) && isnan(out[2])); /* only out[0] is defined */
	CHECK(call("dot", x, out, 1, &err) == 0);
	CHECK(out[0] == 4 + 10 + 18 - 4);

	/* compensated: many small terms after a big one */
	enum { N = 100001 };
	double *v = malloc(sizeof(double) * N);
	v[0] = 1e16;
	for (int i = 1; i < N; i++)
		v[i] = 1;
	x[0] = buf(v, N, "in");
	CHECK(call("sum", x, out, 1, &err) == 0);
	CHECK(out[0] == 1e16 + 100000);
	free(v);
	CHECK(err == NULL);
}

TEST(argument_errors)
{
	double a[6] = { 0 }, out[6];
	char *err = NULL;
	ref_arg x[5];

	x[0] = buf(a, 5, "A_in");
	x[1] = num(2);
	x[2] = num(3);
	CHECK(call("transpose", x, out, 6, &err) == -1);
	CHECK_STREQ(err, "transpose: 'A_in' has 5 elements but rows * cols = 6");

	x[0] = buf(a, 6, NULL); /* no name: the synopsis's */
	CHECK(call("transpose", x, out, 4, &err) == -1);
	CHECK_STREQ(err, "transpose: the output has 4 elements but rows * cols = 6");

	x[0] = buf(a, 5, NULL);
	CHECK(call("transpose", x, out, 6, &err) == -1);
	CHECK_STREQ(err, "transpose: 'in' has 5 elements but rows * cols = 6");

	x[0] = buf(a, 6, "in");
	x[1] = num(2.5);
	CHECK(call("transpose", x, out, 6, &err) == -1);
	CHECK_STREQ(err, "transpose: 'rows' must be an integer, not 2.5");

	x[1] = num(0);
	CHECK(call("transpose", x, out, 6, &err) == -1);
	CHECK_STREQ(err, "transpose: 'rows' is 0, must be at least 1");

	x[1] = buf(a, 6, "N");
	CHECK(call("transpose", x, out, 6, &err) == -1);
	CHECK_STREQ(err, "transpose: 'N' must be a number, not a buffer");

	x[0] = buf(a, 3, "a");
	x[1] = buf(a, 2, "b");
	CHECK(call("add", x, out, 3, &err) == -1);
	CHECK_STREQ(err, "add: 'b' has 2 elements but the output has 3");

	x[0] = buf(a, 3, "in");
	CHECK(call("copy", x, out, 4, &err) == -1);
	CHECK_STREQ(err, "copy: 'in' has 3 elements but the output has 4");

	x[0] = buf(a, 3, "a");
	x[1] = buf(a, 3, "alpha");
	CHECK(call("scale", x, out, 3, &err) == -1);
	CHECK_STREQ(err, "scale: 'alpha' must be a number, not a buffer");

	x[0] = buf(a, 6, "A");
	x[1] = buf(a, 6, "B");
	x[2] = num(2);
	x[3] = num(2);
	x[4] = num(2);
	CHECK(call("matmul", x, out, 4, &err) == -1);
	CHECK_STREQ(err, "matmul: 'A' has 6 elements but M * K = 4");
	x[4] = num(3);
	x[1] = buf(a, 5, "B");
	CHECK(call("matmul", x, out, 4, &err) == -1);
	CHECK_STREQ(err, "matmul: 'B' has 5 elements but K * N = 6");
	x[1] = buf(a, 6, "B");
	CHECK(call("matmul", x, out, 5, &err) == -1);
	CHECK_STREQ(err, "matmul: the output has 5 elements but M * N = 4");

	x[0] = buf(a, 3, "a");
	x[1] = buf(a, 4, "b");
	CHECK(call("dot", x, out, 1, &err) == -1);
	CHECK_STREQ(err, "dot: 'a' has 3 elements but 'b' has 4");
	x[1] = buf(a, 3, "b");
	CHECK(call("dot", x, out, 0, &err) == -1);
	CHECK_STREQ(err, "dot: the output has no elements");
	free(err);
}

TEST(compare)
{
	cmp_result r;
	double want[4] = { 1, 2, 3, 4 };
	double same[4] = { 1, 2, 3, 4 };
	ref_compare(same, want, 4, 1e-5, &r);
	CHECK(r.ok && r.rel_err == 0 && r.bad_index == -1 && r.nonfinite == 0);

	/* rms(want) = sqrt(7.5); error 1e-6 on one element */
	double close[4] = { 1, 2, 3 + 1e-6, 4 };
	ref_compare(close, want, 4, 1e-5, &r);
	CHECK(r.ok && r.bad_index == -1);
	CHECK_NEAR(r.rel_err, 1e-6 / 2 / sqrt(7.5), 1e-15);

	double off[4] = { 1, 2.5, 3, 4 };
	ref_compare(off, want, 4, 1e-5, &r);
	CHECK(!r.ok && r.bad_index == 1 && r.got == 2.5 && r.want == 2);
	CHECK_NEAR(r.rel_err, 0.5 / 2 / sqrt(7.5), 1e-15);

	double nan1[4] = { 1, 2, NAN, 4 };
	ref_compare(nan1, want, 4, 1e-5, &r);
	CHECK(!r.ok && r.nonfinite == 1 && r.bad_index == 2 && isnan(r.got) && r.want == 3);
	CHECK(r.rel_err == 0); /* over the finite elements */

	double inf1[4] = { INFINITY, 2, 3, 4 };
	ref_compare(inf1, want, 4, 1e-5, &r);
	CHECK(!r.ok && r.nonfinite == 1 && r.bad_index == 0);

	/* NaN wanted and got: a match */
	double wn[2] = { NAN, 1 }, gn[2] = { NAN, 1 };
	ref_compare(gn, wn, 2, 1e-5, &r);
	CHECK(r.ok && r.bad_index == -1 && r.nonfinite == 0);
	double gf[2] = { 0, 1 };
	ref_compare(gf, wn, 2, 1e-5, &r);
	CHECK(!r.ok && r.bad_index == 0);

	/* exact (integers) */
	double wi[3] = { 5, -7, 2147483647 }, gi[3] = { 5, -7, 2147483647 };
	ref_compare(gi, wi, 3, 0, &r);
	CHECK(r.ok && r.bad_index == -1);
	gi[1] = -6;
	ref_compare(gi, wi, 3, 0, &r);
	CHECK(!r.ok && r.bad_index == 1 && r.got == -6 && r.want == -7);

	/* all-zero want: absolute scale */
	double z[3] = { 0, 0, 0 }, gz[3] = { 0, 0, 0 };
	ref_compare(gz, z, 3, 1e-5, &r);
	CHECK(r.ok && r.rel_err == 0);
	gz[2] = 3e-3;
	ref_compare(gz, z, 3, 1e-5, &r);
	CHECK(!r.ok && r.bad_index == 2);
	CHECK_NEAR(r.rel_err, 3e-3 / sqrt(3), 1e-15);

	/* n = 0 */
	ref_compare(NULL, NULL, 0, 1e-5, &r);
	CHECK(r.ok && r.bad_index == -1);

	/* n = 1 (sum, dot): relative to the value */
	double ws = 1000, gs = 1000.05;
	ref_compare(&gs, &ws, 1, 1e-4, &r);
	CHECK(r.ok);
	gs = 1000.2;
	ref_compare(&gs, &ws, 1, 1e-4, &r);
	CHECK(!r.ok && r.bad_index == 0);
}

TEST(fill_float)
{
	enum { N = 100000 };
	float *a = malloc(sizeof(float) * N), *b = malloc(sizeof(float) * N);
	buffer_fill(a, DT_FLOAT, N, INIT_RANDOM, 0, 42);
	buffer_fill(b, DT_FLOAT, N, INIT_RANDOM, 0, 42);
	CHECK(memcmp(a, b, sizeof(float) * N) == 0);
	float lo = 1, hi = -1;
	double mean = 0;
	int distinct = 0;
	for (int i = 0; i < N; i++) {
		if (a[i] < lo)
			lo = a[i];
		if (a[i] > hi)
			hi = a[i];
		mean += a[i];
		if (i > 0 && a[i] != a[i - 1])
			distinct++;
	}
	mean /= N;
	CHECK(lo >= -1 && hi < 1);
	CHECK(lo < -0.99f && hi > 0.99f);
	CHECK(fabs(mean) < 0.02);
	CHECK(distinct > N - 100);
	buffer_fill(b, DT_FLOAT, N, INIT_RANDOM, 0, 43);
	CHECK(memcmp(a, b, sizeof(float) * N) != 0);

	buffer_fill(a, DT_FLOAT, N, INIT_IOTA, 0, 0);
	CHECK(a[0] == 0 && a[1] == 1 && a[N - 1] == N - 1);
	buffer_fill(a, DT_FLOAT, N, INIT_ONE, 0, 0);
	CHECK(a[0] == 1 && a[N - 1] == 1);
	buffer_fill(a, DT_FLOAT, N, INIT_VALUE, 2.5, 0);
	CHECK(a[0] == 2.5f && a[N - 1] == 2.5f);
	buffer_fill(a, DT_FLOAT, N, INIT_ZERO, 0, 0);
	CHECK(a[0] == 0 && a[N - 1] == 0);
	buffer_fill(a, DT_FLOAT, N, INIT_POISON, 0, 0);
	CHECK(isnan(a[0]) && isnan(a[N - 1]));
	free(a);
	free(b);
}

TEST(fill_other_types)
{
	enum { N = 50000 };
	double d[N];
	buffer_fill(d, DT_DOUBLE, N, INIT_RANDOM, 0, 7);
	int ok = 1;
	for (int i = 0; i < N; i++)
		if (!(d[i] >= -1 && d[i] < 1))
			ok = 0;
	CHECK(ok);
	buffer_fill(d, DT_DOUBLE, 4, INIT_POISON, 0, 0);
	CHECK(isnan(d[0]) && isnan(d[3]));
	buffer_fill(d, DT_DOUBLE, 4, INIT_IOTA, 0, 0);
	CHECK(d[3] == 3);

	static int32_t v[N];
	buffer_fill(v, DT_INT, N, INIT_RANDOM, 0, 7);
	int neg = 0, big = 0;
	for (int i = 0; i < N; i++) {
		neg += v[i] < 0;
		big += v[i] > 1000000000 || v[i] < -1000000000;
	}
	CHECK(neg > N / 3 && neg < 2 * N / 3); /* the whole range */
	CHECK(big > N / 3);
	buffer_fill(v, DT_INT, 4, INIT_POISON, 0, 0);
	CHECK(v[0] == -1 && v[3] == -1);
	buffer_fill(v, DT_INT, 4, INIT_VALUE, -3, 0);
	CHECK(v[0] == -3 && v[3] == -3);
	buffer_fill(v, DT_INT, 2, INIT_VALUE, 1e20, 0);
	CHECK(v[0] == INT32_MAX);
	buffer_fill(v, DT_INT, 2, INIT_VALUE, -1e20, 0);
	CHECK(v[0] == INT32_MIN);
	buffer_fill(v, DT_INT, 3, INIT_IOTA, 0, 0);
	CHECK(v[0] == 0 && v[2] == 2);

	static uint32_t u[N];
	buffer_fill(u, DT_UNSIGNED, N, INIT_RANDOM, 0, 9);
	int high = 0;
	for (int i = 0; i < N; i++)
		high += u[i] > 0x80000000u;
	CHECK(high > N / 3 && high < 2 * N / 3);
	buffer_fill(u, DT_UNSIGNED, 2, INIT_POISON, 0, 0);
	CHECK(u[0] == 0xffffffffu);
	buffer_fill(u, DT_UNSIGNED, 2, INIT_VALUE, -5, 0);
	CHECK(u[0] == 0); /* saturates */

	static int64_t l[N];
	buffer_fill(l, DT_LONG, N, INIT_RANDOM, 0, 11);
	int in_range = 1, lneg = 0;
	for (int i = 0; i < N; i++) {
		if (l[i] < INT32_MIN || l[i] > INT32_MAX)
			in_range = 0;
		lneg += l[i] < 0;
	}
	CHECK(in_range && lneg > N / 3);
	buffer_fill(l, DT_LONG, 2, INIT_POISON, 0, 0);
	CHECK(l[0] == -1);
	buffer_fill(l, DT_LONG, 2, INIT_VALUE, 1e30, 0);
	CHECK(l[0] == INT64_MAX);
	buffer_fill(l, DT_LONG, 2, INIT_ONE, 0, 0);
	CHECK(l[0] == 1 && l[1] == 1);

	/* count 0 and NULL do nothing */
	buffer_fill(NULL, DT_FLOAT, 10, INIT_RANDOM, 0, 1);
	buffer_fill(v, DT_INT, 0, INIT_POISON, 0, 1);
	CHECK(1);
}

TEST(seeds_and_conversion)
{
	CHECK(buffer_seed(1, "a") == buffer_seed(1, "a"));
	CHECK(buffer_seed(1, "a") != buffer_seed(1, "b"));
	CHECK(buffer_seed(1, "a") != buffer_seed(2, "a"));
	CHECK(buffer_seed(1, NULL) == buffer_seed(1, ""));

	float f[3] = { 1.5f, -2, 0.1f };
	double o[3];
	buffer_to_double(f, DT_FLOAT, 3, o);
	CHECK(o[0] == 1.5 && o[1] == -2 && o[2] == (double)0.1f);
	int32_t i[2] = { -7, INT32_MAX };
	buffer_to_double(i, DT_INT, 2, o);
	CHECK(o[0] == -7 && o[1] == 2147483647.0);
	uint32_t u[1] = { 0xffffffffu };
	buffer_to_double(u, DT_UNSIGNED, 1, o);
	CHECK(o[0] == 4294967295.0);
	int64_t l[1] = { -((int64_t)1 << 40) };
	buffer_to_double(l, DT_LONG, 1, o);
	CHECK(o[0] == -1099511627776.0);
	double d[2] = { 0.25, -1e300 };
	buffer_to_double(d, DT_DOUBLE, 2, o);
	CHECK(o[0] == 0.25 && o[1] == -1e300);
}

int main(void)
{
	RUN(table);
	RUN(tolerances);
	RUN(elementwise);
	RUN(shape);
	RUN(matmul_threads);
	RUN(reductions);
	RUN(argument_errors);
	RUN(compare);
	RUN(fill_float);
	RUN(fill_other_types);
	RUN(seeds_and_conversion);
	return test_report("ref");
}
