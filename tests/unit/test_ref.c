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
	const char *need[] = { "copy", "add", "scale", "square", "saxpy", "transpose", "matmul", "histogram", "sum", "dot" };
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
	ref_arg x[6];
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
	x[5] = num(0);
	CHECK(call("matmul", x, C, 4, &err) == 0);
	CHECK(C[0] == 58 && C[1] == 64 && C[2] == 139 && C[3] == 154);
	/* tn: B stored 2x3 (N x K), its rows B's columns */
	double Bt[6] = { 7, 9, 11, 8, 10, 12 };
	x[1] = buf(Bt, 6, "B");
	x[5] = num(MM_TN);
	CHECK(call("matmul", x, C, 4, &err) == 0);
	CHECK(C[0] == 58 && C[1] == 64 && C[2] == 139 && C[3] == 154);
	/* tf32: 1 + 2^-11 is a tie (to 1 + 2^-10, away from zero), 1 + 2^-12 goes to 1 */
	double At[2] = { 1 + 0x1p-11, 1 + 0x1p-12 }, Bo[2] = { 1, 1 }, Ct[1];
	x[0] = buf(At, 2, "A");
	x[1] = buf(Bo, 2, "B");
	x[2] = num(1);
	x[3] = num(1);
	x[4] = num(2);
	x[5] = num(MM_TF32);
	CHECK(call("matmul", x, Ct, 1, &err) == 0);
	CHECK(Ct[0] == 2 + 0x1p-10);
	x[5] = num(0);
	CHECK(call("matmul", x, Ct, 1, &err) == 0);
	CHECK(Ct[0] == 2 + 0x1p-11 + 0x1p-12);
	CHECK_NEAR(ref_default_tol_opts(ref_find("matmul"), DT_FLOAT, MM_TF32), 2e-3, 0);
	CHECK_NEAR(ref_default_tol_opts(ref_find("matmul"), DT_FLOAT, MM_TN), 1e-4, 0);
	x[5] = num(0);

	/* non-square matmul: A 1x2, B 2x3 */
	double A2[2] = { 1, -1 }, B2[6] = { 1, 2, 3, 4, 5, 6 }, C2[3];
	x[0] = buf(A2, 2, "A");
	x[1] = buf(B2, 6, "B");
	x[2] = num(1);
	x[3] = num(3);
	x[4] = num(2);
	x[5] = num(0);
	CHECK(call("matmul", x, C2, 3, &err) == 0);
	CHECK(C2[0] == -3 && C2[1] == -3 && C2[2] == -3);
	CHECK(err == NULL);
}

TEST(conv1d)
{
	/* n = 5, r = 1: out[i] = w0 in[i-1] + w1 in[i] + w2 in[i+1], zero outside */
	double in[5] = { 1, 2, 3, 4, 5 }, w[3] = { 0.5, 1, -1 }, out[5];
	char *err = NULL;
	ref_arg x[4] = { buf(in, 5, "in"), buf(w, 3, "w"), num(5), num(1) };
	CHECK(call("conv1d", x, out, 5, &err) == 0);
	double want[5] = { 1 * 1 - 2, 0.5 * 1 + 2 - 3, 0.5 * 2 + 3 - 4, 0.5 * 3 + 4 - 5, 0.5 * 4 + 5 };
	for (int i = 0; i < 5; i++)
		CHECK_NEAR(out[i], want[i], 0);
	/* r = 0: a scale by w[0] */
	double w0[1] = { 3 };
	ref_arg y[4] = { buf(in, 5, "in"), buf(w0, 1, "w"), num(5), num(0) };
	CHECK(call("conv1d", y, out, 5, &err) == 0 && out[4] == 15);
	/* the mask must hold 2r + 1 weights, in n elements, the output n */
	x[3] = num(2);
	CHECK(call("conv1d", x, out, 5, &err) == -1 && err && strstr(err, "2 * r + 1"));
	free(err);
	err = NULL;
	x[3] = num(1);
	CHECK(call("conv1d", x, out, 4, &err) == -1);
	free(err);
	/* large: on threads, the same as computed here */
	enum { N = 300001, R = 4 };
	double *big = malloc(N * sizeof *big), *bo = malloc(N * sizeof *bo), bw[2 * R + 1];
	for (int i = 0; i < N; i++)
		big[i] = (double)(((long long)i * 7919) % 1000) / 1000.0;
	for (int j = 0; j <= 2 * R; j++)
		bw[j] = j + 1;
	ref_arg z[4] = { buf(big, N, "in"), buf(bw, 2 * R + 1, "w"), num(N), num(R) };
	err = NULL;
	CHECK(call("conv1d", z, bo, N, &err) == 0);
	int bad = 0;
	for (int i = 0; i < N; i += 997) {
		double acc = 0;
		for (int j = 0; j <= 2 * R; j++)
			if (i + j - R >= 0 && i + j - R < N)
				acc += bw[j] * big[i + j - R];
		bad += acc != bo[i];
	}
	CHECK(bad == 0);
	free(big);
	free(bo);
}

TEST(histogram)
{
	/* nbins = 4: in[i] mod 4 counted */
	double in[7] = { 0, 1, 5, 3, 4, 8, 11 }, out[4];
	char *err = NULL;
	ref_arg x[2] = { buf(in, 7, "in"), num(4) };
	CHECK(call("histogram", x, out, 4, &err) == 0);
	CHECK(out[0] == 3 && out[1] == 2 && out[2] == 0 && out[3] == 2);
	/* the output must hold nbins counts */
	CHECK(call("histogram", x, out, 3, &err) == -1 && err && strstr(err, "nbins"));
	free(err);
	err = NULL;
	/* a negative or fractional value is not a bin */
	double neg[2] = { 1, -2 }, frac[2] = { 1.5, 0 };
	ref_arg y[2] = { buf(neg, 2, "in"), num(4) };
	CHECK(call("histogram", y, out, 4, &err) == -1 && err && strstr(err, "'in'[1] = -2"));
	free(err);
	err = NULL;
	y[0] = buf(frac, 2, "in");
	CHECK(call("histogram", y, out, 4, &err) == -1 && err && strstr(err, "not a non-negative integer"));
	free(err);
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
	ref_arg x[6] = { buf(A, M * K, "A"), buf(B, K * N, "B"), num(M), num(N), num(K), num(0) };
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

/* ---- parallel compare, conversion, fill; signatures; the cache ---- */

/* The comparison as one plain serial loop (ref_compare before it ran in
 * chunks), to hold the chunked one to. */
static void serial_compare(const double *got, const double *want, uint64_t n, double tol, cmp_result *r)
{
	memset(r, 0, sizeof *r);
	r->bad_index = -1;
	if (!(tol > 0))
		tol = 0;
	double ss_want = 0, ss_diff = 0;
	uint64_t nfin = 0, nf_mismatch = 0;
	for (uint64_t i = 0; i < n; i++) {
		double g = got[i], w = want[i];
		if (!isfinite(w)) {
			if (!((isnan(w) && isnan(g)) || g == w)) {
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
		ss_diff += (g - w) * (g - w);
		nfin++;
	}
	double scale = nfin ? sqrt(ss_want / (double)nfin) : 0;
	if (!(scale > 0) || !isfinite(scale))
		scale = 1;
	r->rel_err = nfin ? sqrt(ss_diff / (double)nfin) / scale : 0;
	if (!isfinite(r->rel_err))
		r->rel_err = HUGE_VAL;
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

/* rel_err as ref_compare computes it: sums over chunks of 64 Ki elements
 * (n below 2^30), added in chunk order. */
static double chunked_rel_err(const double *got, const double *want, uint64_t n)
{
	const uint64_t C = 65536;
	double ss_want = 0, ss_diff = 0;
	uint64_t nfin = 0;
	for (uint64_t lo = 0; lo < n; lo += C) {
		double cw = 0, cd = 0;
		for (uint64_t i = lo; i < n && i < lo + C; i++)
			if (isfinite(want[i]) && isfinite(got[i])) {
				cw += want[i] * want[i];
				cd += (got[i] - want[i]) * (got[i] - want[i]);
				nfin++;
			}
		ss_want += cw;
		ss_diff += cd;
	}
	double scale = nfin ? sqrt(ss_want / (double)nfin) : 0;
	if (!(scale > 0) || !isfinite(scale))
		scale = 1;
	double e = nfin ? sqrt(ss_diff / (double)nfin) / scale : 0;
	return isfinite(e) ? e : HUGE_VAL;
}

static int same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static int same_cmp(const cmp_result *a, const cmp_result *b)
{
	return a->ok == b->ok && a->bad_index == b->bad_index && a->nonfinite == b->nonfinite &&
	       same_double(a->rel_err, b->rel_err) && same_double(a->got, b->got) &&
	       same_double(a->want, b->want);
}

/* Everything but rel_err equal; rel_err to the rounding of a sum. */
static int close_cmp(const cmp_result *a, const cmp_result *b)
{
	int same_err = a->rel_err == b->rel_err ||
	               fabs(a->rel_err - b->rel_err) <= 1e-12 * fabs(b->rel_err);
	return a->ok == b->ok && a->bad_index == b->bad_index && a->nonfinite == b->nonfinite &&
	       same_err && (same_double(a->got, b->got) || (isnan(a->got) && isnan(b->got))) &&
	       (same_double(a->want, b->want) || (isnan(a->want) && isnan(b->want)));
}

/* Compares with 1, 2, 3, 7 and 16 threads: every result bit for bit the
 * same, and the serial loop's (rel_err to rounding). */
static int cmp_all_ways(const double *got, const double *want, uint64_t n, double tol, cmp_result *out)
{
	static const int threads[] = { 1, 2, 3, 7, 16 };
	cmp_result first, r, s;
	int ok = 1;
	for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
		ref_set_threads(threads[t]);
		ref_compare(got, want, n, tol, &r);
		if (t == 0)
			first = r;
		else if (!same_cmp(&r, &first))
			ok = 0;
	}
	ref_set_threads(0);
	serial_compare(got, want, n, tol, &s);
	if (!close_cmp(&first, &s))
		ok = 0;
	if (!same_double(first.rel_err, chunked_rel_err(got, want, n)))
		ok = 0;
	if (n <= 65536 && !same_cmp(&first, &s)) /* one chunk: the serial loop exactly */
		ok = 0;
	*out = first;
	return ok;
}

TEST(compare_parallel)
{
	enum { N = 1000003 }; /* 16 chunks of 64 Ki, the last one short */
	const uint64_t C = 65536;
	double *want = malloc(sizeof(double) * N), *got = malloc(sizeof(double) * N);
	buffer_fill(want, DT_DOUBLE, N, INIT_RANDOM, 0, 5);
	for (int i = 0; i < N; i++)
		got[i] = want[i] + want[i] * 1e-9;
	cmp_result r;

	/* close everywhere: ok, no bad index */
	CHECK(cmp_all_ways(got, want, N, 1e-5, &r));
	CHECK(r.ok && r.bad_index == -1 && r.nonfinite == 0);
	CHECK(r.rel_err > 0 && r.rel_err < 1e-8);

	/* two bad elements in different chunks: the first is reported */
	got[5 * C + 7] += 1;
	got[3 * C + 5] -= 1;
	CHECK(cmp_all_ways(got, want, N, 1e-5, &r));
	CHECK(!r.ok && r.bad_index == (int64_t)(3 * C + 5));
	CHECK(r.want == want[3 * C + 5] && r.got == got[3 * C + 5]);

	/* at the last element of a chunk, then the first of the next */
	got[C - 1] += 0.5;
	CHECK(cmp_all_ways(got, want, N, 1e-5, &r));
	CHECK(r.bad_index == (int64_t)(C - 1));
	got[C - 1] = want[C - 1];
	got[C] += 0.5;
	CHECK(cmp_all_ways(got, want, N, 1e-5, &r));
	CHECK(r.bad_index == (int64_t)C);
	got[C] = want[C];

	/* a NaN in a later chunk than a finite error: the earlier one; then
	 * a NaN before it */
	got[7 * C] = NAN;
	CHECK(cmp_all_ways(got, want, N, 1e-5, &r));
	CHECK(!r.ok && r.bad_index == (int64_t)(3 * C + 5) && r.nonfinite == 1);
	got[2 * C + 1] = INFINITY;
	CHECK(cmp_all_ways(got, want, N, 1e-5, &r));
	CHECK(!r.ok && r.bad_index == (int64_t)(2 * C + 1) && r.nonfinite == 2 && isinf(r.got));

	/* NaN wanted and got (a match) in every chunk; NaN wanted, a number
	 * got (a mismatch, not a non-finite got) in the last chunk */
	for (int i = 0; i < N; i++)
		got[i] = want[i];
	for (uint64_t i = 17; i < N; i += C) {
		want[i] = NAN;
		got[i] = NAN;
	}
	CHECK(cmp_all_ways(got, want, N, 1e-5, &r));
	CHECK(r.ok && r.bad_index == -1 && r.rel_err == 0);
	want[N - 2] = NAN;
	got[N - 2] = 1;
	CHECK(cmp_all_ways(got, want, N, 1e-5, &r));
	CHECK(!r.ok && r.bad_index == N - 2 && r.nonfinite == 0 && r.got == 1 && isnan(r.want));
	/* the tolerance does not hide a non-finite mismatch */
	CHECK(cmp_all_ways(got, want, N, 1e300, &r));
	CHECK(!r.ok && r.bad_index == N - 2);

	/* exact (tol 0) on integers: the first difference */
	for (int i = 0; i < N; i++)
		got[i] = want[i] = (double)(((int64_t)i * 7919) % 100003) - 50000;
	CHECK(cmp_all_ways(got, want, N, 0, &r));
	CHECK(r.ok && r.bad_index == -1);
	got[9 * C + 3] += 1;
	got[12 * C] -= 1;
	CHECK(cmp_all_ways(got, want, N, 0, &r));
	CHECK(!r.ok && r.bad_index == (int64_t)(9 * C + 3));

	/* random differences all over: the same as the serial loop */
	uint32_t *noise = malloc(sizeof(uint32_t) * N);
	buffer_fill(want, DT_DOUBLE, N, INIT_RANDOM, 0, 77);
	buffer_fill(noise, DT_UNSIGNED, N, INIT_RANDOM, 0, 78);
	for (int i = 0; i < N; i++)
		got[i] = want[i] + (double)noise[i] * 0x1p-32 * 2e-5;
	CHECK(cmp_all_ways(got, want, N, 1e-5, &r));
	CHECK(cmp_all_ways(got, want, N, 1e-4, &r));
	CHECK(r.ok && r.bad_index == -1);
	CHECK(cmp_all_ways(got, want, N, 1e-6, &r));
	CHECK(!r.ok && r.bad_index >= 0);

	/* marginal errors (just over the limit) before a large one: the first
	 * marginal one, wherever the chunks fall */
	for (int trial = 0; trial < 12; trial++) {
		buffer_fill(want, DT_DOUBLE, N, INIT_RANDOM, 0, 100 + (uint64_t)trial);
		memcpy(got, want, sizeof(double) * N);
		cmp_result s;
		serial_compare(got, want, N, 1e-5, &s);
		double lim = 1e-5 * 0.57735; /* about tol * rms(want) */
		buffer_fill(noise, DT_UNSIGNED, 64, INIT_RANDOM, 0, 200 + (uint64_t)trial);
		for (int k = 0; k < 8; k++) {
			uint64_t at = noise[k] % N;
			got[at] = want[at] + lim * (0.9 + 0.05 * (noise[8 + k] % 8)); /* 0.9 to 1.25 */
		}
		got[noise[20] % N] += 1;
		serial_compare(got, want, N, 1e-5, &s);
		CHECK(cmp_all_ways(got, want, N, 1e-5, &r));
		CHECK(r.bad_index == s.bad_index && r.bad_index >= 0);
	}

	/* a huge difference: rel_err overflows to HUGE_VAL either way */
	got[100] = 1e300;
	want[100] = -1e300;
	CHECK(cmp_all_ways(got, want, N, 1e-5, &r));
	CHECK(!r.ok && r.rel_err == HUGE_VAL);

	/* small and empty */
	CHECK(cmp_all_ways(got, want, 3, 1e-5, &r));
	CHECK(cmp_all_ways(got, want, 0, 1e-5, &r) && r.ok);
	free(noise);
	free(got);
	free(want);
}

TEST(compare_typed)
{
	enum { N = 200001 };
	float *gf = malloc(sizeof(float) * N), *wf = malloc(sizeof(float) * N);
	double *gd = malloc(sizeof(double) * N), *wd = malloc(sizeof(double) * N);
	buffer_fill(wf, DT_FLOAT, N, INIT_RANDOM, 0, 3);
	for (int i = 0; i < N; i++)
		gf[i] = wf[(i * 31) % N] * 0.5f + wf[i];
	buffer_to_double(gf, DT_FLOAT, N, gd);
	buffer_to_double(wf, DT_FLOAT, N, wd);
	gf[150000] = NAN;
	gd[150000] = NAN;
	cmp_result a, b, c;
	ref_compare_typed(gf, DT_FLOAT, wf, DT_FLOAT, N, 1e-3, &a);
	ref_compare_typed(gf, DT_FLOAT, wd, DT_DOUBLE, N, 1e-3, &b);
	ref_compare(gd, wd, N, 1e-3, &c);
	CHECK(same_cmp(&a, &c) && same_cmp(&b, &c));
	CHECK(!c.ok && c.nonfinite == 1 && c.bad_index == 0);

	int32_t *gi = malloc(sizeof(int32_t) * N), *wi = malloc(sizeof(int32_t) * N);
	buffer_fill(wi, DT_INT, N, INIT_RANDOM, 0, 4);
	memcpy(gi, wi, sizeof(int32_t) * N);
	gi[N - 1] ^= 1;
	buffer_to_double(gi, DT_INT, N, gd);
	buffer_to_double(wi, DT_INT, N, wd);
	ref_compare_typed(gi, DT_INT, wi, DT_INT, N, 0, &a);
	ref_compare(gd, wd, N, 0, &c);
	CHECK(same_cmp(&a, &c) && !a.ok && a.bad_index == N - 1);

	uint32_t u[3] = { 0xffffffffu, 1, 2 };
	double ud[3] = { 4294967295.0, 1, 2 };
	ref_compare_typed(u, DT_UNSIGNED, ud, DT_DOUBLE, 3, 0, &a);
	CHECK(a.ok);
	int64_t l[2] = { -((int64_t)1 << 40), 5 };
	double ld[2] = { -1099511627776.0, 6 };
	ref_compare_typed(l, DT_LONG, ld, DT_DOUBLE, 2, 0, &a);
	CHECK(!a.ok && a.bad_index == 1 && a.got == 5 && a.want == 6);
	free(gf);
	free(wf);
	free(gd);
	free(wd);
	free(gi);
	free(wi);
}

TEST(narrow_exact)
{
	double d[6] = { 1.5, -0.0, NAN, INFINITY, 0.1, 3 };
	float f[6];
	CHECK(buffer_from_double_exact(d, 4, DT_FLOAT, f) == 1);
	CHECK(f[0] == 1.5f && f[1] == 0 && signbit(f[1]) && isnan(f[2]) && isinf(f[3]));
	CHECK(buffer_from_double_exact(d, 5, DT_FLOAT, f) == 0); /* 0.1 is no float */
	double big[1] = { 1e39 };
	CHECK(buffer_from_double_exact(big, 1, DT_FLOAT, f) == 0);
	double fl[1] = { (double)0.1f };
	CHECK(buffer_from_double_exact(fl, 1, DT_FLOAT, f) == 1 && f[0] == 0.1f);

	int32_t i[4];
	double di[4] = { -2147483648.0, 2147483647.0, 0, -5 };
	CHECK(buffer_from_double_exact(di, 4, DT_INT, i) == 1);
	CHECK(i[0] == INT32_MIN && i[1] == INT32_MAX && i[3] == -5);
	double bad_i[][1] = { { 2147483648.0 }, { 0.5 }, { NAN }, { -0.0 }, { INFINITY } };
	for (size_t k = 0; k < sizeof bad_i / sizeof bad_i[0]; k++)
		CHECK(buffer_from_double_exact(bad_i[k], 1, DT_INT, i) == 0);
	uint32_t u[2];
	double du[2] = { 4294967295.0, 0 };
	CHECK(buffer_from_double_exact(du, 2, DT_UNSIGNED, u) == 1 && u[0] == 0xffffffffu);
	double neg[1] = { -1 };
	CHECK(buffer_from_double_exact(neg, 1, DT_UNSIGNED, u) == 0);
	CHECK(buffer_from_double_exact(d, 1, DT_DOUBLE, f) == 0); /* not a narrowing */
	CHECK(buffer_from_double_exact(d, 0, DT_FLOAT, f) == 1);

	/* large: chunks on threads, one inexact value anywhere is found */
	enum { N = 300007 };
	float *src = malloc(sizeof(float) * N), *dst = malloc(sizeof(float) * N);
	double *wide = malloc(sizeof(double) * N);
	buffer_fill(src, DT_FLOAT, N, INIT_RANDOM, 0, 9);
	buffer_to_double(src, DT_FLOAT, N, wide);
	CHECK(buffer_from_double_exact(wide, N, DT_FLOAT, dst) == 1);
	CHECK(memcmp(src, dst, sizeof(float) * N) == 0);
	wide[N - 3] += 1e-12;
	CHECK(buffer_from_double_exact(wide, N, DT_FLOAT, dst) == 0);
	free(src);
	free(dst);
	free(wide);
}

/* Filling and converting in chunks on threads: the same bytes as one thread. */
TEST(fill_threads)
{
	enum { N = 1 << 20 };
	static const dtype types[] = { DT_FLOAT, DT_DOUBLE, DT_INT, DT_UNSIGNED, DT_LONG };
	static const init_kind kinds[] = { INIT_RANDOM, INIT_IOTA, INIT_ZERO, INIT_POISON, INIT_ONE, INIT_VALUE };
	char *a = malloc(8 * (size_t)N + 8), *b = malloc(8 * (size_t)N + 8);
	double *da = malloc(sizeof(double) * N), *db = malloc(sizeof(double) * N);
	int same = 1, conv = 1;
	for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
		for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
			size_t bytes = dtype_size(types[t]) * (size_t)(N - 1);
			memset(a, 0x5a, 8 * (size_t)N + 8);
			memset(b, 0x5a, 8 * (size_t)N + 8);
			ref_set_threads(1);
			buffer_fill(a, types[t], N - 1, kinds[k], -3.25, 1234);
			buffer_to_double(a, types[t], N - 1, da);
			ref_set_threads(5);
			buffer_fill(b, types[t], N - 1, kinds[k], -3.25, 1234);
			buffer_to_double(b, types[t], N - 1, db);
			if (memcmp(a, b, 8 * (size_t)N + 8) != 0 || (unsigned char)a[bytes] != 0x5a)
				same = 0;
			if (memcmp(da, db, sizeof(double) * (N - 1)) != 0)
				conv = 0;
		}
	ref_set_threads(0);
	CHECK(same);
	CHECK(conv);
	/* element i of a random fill does not depend on the count */
	float x[10];
	buffer_fill(a, DT_FLOAT, N, INIT_RANDOM, 0, 8);
	buffer_fill(x, DT_FLOAT, 10, INIT_RANDOM, 0, 8);
	CHECK(memcmp(a, x, sizeof x) == 0);
	CHECK(ref_threads() >= 1 && ref_threads() <= 64);
	ref_set_threads(1000);
	CHECK(ref_threads() == 64);
	ref_set_threads(0);
	free(a);
	free(b);
	free(da);
	free(db);
}

/* The references that run in chunks: the same as plain loops. */
TEST(refs_threads)
{
	static const uint64_t shapes[][2] = { { 300, 1000 }, { 1000, 300 }, { 1, 70001 }, { 70001, 1 }, { 257, 255 } };
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		uint64_t rows = shapes[s][0], cols = shapes[s][1], n = rows * cols;
		double *in = malloc(sizeof(double) * n), *out = malloc(sizeof(double) * n);
		buffer_fill(in, DT_DOUBLE, n, INIT_IOTA, 0, 0);
		char *err = NULL;
		ref_arg x[3];
		x[0] = buf(in, n, "in");
		x[1] = num((double)rows);
		x[2] = num((double)cols);
		int good = 1;
		for (int t = 1; t <= 4; t += 3) {
			ref_set_threads(t);
			memset(out, 0, sizeof(double) * n);
			CHECK(call("transpose", x, out, n, &err) == 0);
			for (uint64_t r = 0; r < rows; r++)
				for (uint64_t c = 0; c < cols; c++)
					if (out[c * rows + r] != in[r * cols + c])
						good = 0;
		}
		ref_set_threads(0);
		CHECK(good);
		free(in);
		free(out);
	}

	enum { N = 200003 };
	double *a = malloc(sizeof(double) * N), *b = malloc(sizeof(double) * N), *o = malloc(sizeof(double) * N);
	buffer_fill(a, DT_DOUBLE, N, INIT_RANDOM, 0, 1);
	buffer_fill(b, DT_DOUBLE, N, INIT_RANDOM, 0, 2);
	char *err = NULL;
	ref_arg x[3];
	x[0] = buf(a, N, "a");
	x[1] = buf(b, N, "b");
	int ok = 1;
	CHECK(call("add", x, o, N, &err) == 0);
	for (int i = 0; i < N; i++)
		ok &= o[i] == a[i] + b[i];
	CHECK(call("sub", x, o, N, &err) == 0);
	for (int i = 0; i < N; i++)
		ok &= o[i] == a[i] - b[i];
	CHECK(call("mul", x, o, N, &err) == 0);
	for (int i = 0; i < N; i++)
		ok &= o[i] == a[i] * b[i];
	CHECK(call("copy", x, o, N, &err) == 0);
	ok &= memcmp(o, a, sizeof(double) * N) == 0;
	CHECK(call("square", x, o, N, &err) == 0);
	for (int i = 0; i < N; i++)
		ok &= o[i] == a[i] * a[i];
	x[1] = num(-1.5);
	CHECK(call("scale", x, o, N, &err) == 0);
	for (int i = 0; i < N; i++)
		ok &= o[i] == -1.5 * a[i];
	x[0] = num(2);
	x[1] = buf(a, N, "x");
	x[2] = buf(b, N, "y");
	CHECK(call("saxpy", x, o, N, &err) == 0);
	for (int i = 0; i < N; i++)
		ok &= o[i] == 2 * a[i] + b[i];
	CHECK(ok);
	CHECK(err == NULL);
	free(a);
	free(b);
	free(o);
}

static buffer_sig sig(const char *name, dtype t, uint64_t n, init_kind k, double v, int managed, uint64_t seed)
{
	buffer_sig s;
	buffer_sig_make(&s, name, t, n, k, v, managed, seed);
	return s;
}

TEST(buffer_sigs)
{
	buffer_sig a = sig("a", DT_FLOAT, 100, INIT_RANDOM, 0, 0, 1);
	buffer_sig b = sig("a", DT_FLOAT, 100, INIT_RANDOM, 0, 0, 1);
	CHECK(buffer_sig_eq(&a, &b));
	CHECK(a.seed == buffer_seed(1, "a"));
	/* every field that changes the data matters */
	b = sig("b", DT_FLOAT, 100, INIT_RANDOM, 0, 0, 1);
	CHECK(!buffer_sig_eq(&a, &b));
	b = sig("a", DT_INT, 100, INIT_RANDOM, 0, 0, 1);
	CHECK(!buffer_sig_eq(&a, &b));
	b = sig("a", DT_FLOAT, 101, INIT_RANDOM, 0, 0, 1);
	CHECK(!buffer_sig_eq(&a, &b));
	b = sig("a", DT_FLOAT, 100, INIT_IOTA, 0, 0, 1);
	CHECK(!buffer_sig_eq(&a, &b));
	b = sig("a", DT_FLOAT, 100, INIT_RANDOM, 0, 1, 1);
	CHECK(!buffer_sig_eq(&a, &b));
	b = sig("a", DT_FLOAT, 100, INIT_RANDOM, 0, 0, 2);
	CHECK(!buffer_sig_eq(&a, &b));
	/* the value counts for value() only, by its bits; the seed for random only */
	a = sig("v", DT_FLOAT, 8, INIT_VALUE, 2.5, 0, 1);
	b = sig("v", DT_FLOAT, 8, INIT_VALUE, 2.5, 0, 2);
	CHECK(buffer_sig_eq(&a, &b));
	b = sig("v", DT_FLOAT, 8, INIT_VALUE, 2.75, 0, 1);
	CHECK(!buffer_sig_eq(&a, &b));
	a = sig("v", DT_FLOAT, 8, INIT_VALUE, 0.0, 0, 1);
	b = sig("v", DT_FLOAT, 8, INIT_VALUE, -0.0, 0, 1);
	CHECK(!buffer_sig_eq(&a, &b));
	a = sig("v", DT_FLOAT, 8, INIT_VALUE, NAN, 0, 1);
	b = sig("v", DT_FLOAT, 8, INIT_VALUE, NAN, 0, 1);
	CHECK(buffer_sig_eq(&a, &b));
	a = sig("z", DT_FLOAT, 8, INIT_ZERO, 1, 0, 1);
	b = sig("z", DT_FLOAT, 8, INIT_ZERO, 7, 0, 99);
	CHECK(buffer_sig_eq(&a, &b));
	/* a long name is cut, not overrun */
	char lng[100];
	memset(lng, 'x', sizeof lng - 1);
	lng[99] = 0;
	a = sig(lng, DT_FLOAT, 1, INIT_ZERO, 0, 0, 0);
	CHECK(strlen(a.name) == 63);
	a = sig(NULL, DT_FLOAT, 1, INIT_ZERO, 0, 0, 0);
	CHECK(a.name[0] == 0);
}

TEST(buffer_sig_matching)
{
	buffer_sig have[4] = {
		sig("in", DT_FLOAT, 64, INIT_RANDOM, 0, 0, 1),
		sig("out", DT_FLOAT, 64, INIT_POISON, 0, 0, 1),
		sig("tmp", DT_INT, 8, INIT_ZERO, 0, 0, 1),
		sig("in", DT_FLOAT, 64, INIT_RANDOM, 0, 0, 1), /* a twin */
	};
	int m[5];
	/* the same plan again: every buffer found, in its order */
	buffer_sig_match(have, 3, have, 3, m);
	CHECK(m[0] == 0 && m[1] == 1 && m[2] == 2);
	/* another order, one buffer changed, one new */
	buffer_sig want[4] = {
		sig("out", DT_FLOAT, 64, INIT_POISON, 0, 0, 1),
		sig("in", DT_FLOAT, 128, INIT_RANDOM, 0, 0, 1),
		sig("tmp", DT_INT, 8, INIT_ZERO, 0, 0, 1),
		sig("new", DT_FLOAT, 64, INIT_ONE, 0, 0, 1),
	};
	buffer_sig_match(have, 3, want, 4, m);
	CHECK(m[0] == 1 && m[1] == -1 && m[2] == 2 && m[3] == -1);
	/* two equal wants never share one pooled buffer */
	buffer_sig twice[3] = { have[0], have[0], have[0] };
	buffer_sig_match(have, 4, twice, 3, m);
	CHECK(m[0] == 0 && m[1] == 3 && m[2] == -1);
	buffer_sig_match(have, 3, twice, 2, m);
	CHECK(m[0] == 0 && m[1] == -1);
	/* an empty pool, an empty plan */
	buffer_sig_match(NULL, 0, want, 2, m);
	CHECK(m[0] == -1 && m[1] == -1);
	m[0] = 42;
	buffer_sig_match(have, 4, NULL, 0, m);
	CHECK(m[0] == 42);
	/* a new seed changes random buffers only */
	buffer_sig seeded[3] = {
		sig("in", DT_FLOAT, 64, INIT_RANDOM, 0, 0, 2),
		sig("out", DT_FLOAT, 64, INIT_POISON, 0, 0, 2),
		sig("tmp", DT_INT, 8, INIT_ZERO, 0, 0, 2),
	};
	buffer_sig_match(have, 3, seeded, 3, m);
	CHECK(m[0] == -1 && m[1] == 1 && m[2] == 2);
}

static void *dup_doubles(uint64_t n, double v)
{
	double *d = malloc(sizeof(double) * (n ? n : 1));
	for (uint64_t i = 0; i < n; i++)
		d[i] = v;
	return d;
}

static ref_key key_of(const char *ref, const buffer_sig *in, double scalar, uint64_t n)
{
	ref_key k;
	ref_key_init(&k, ref, DT_FLOAT, n);
	ref_key_add_buf(&k, in);
	ref_key_add_scalar(&k, (int64_t)scalar, scalar);
	return k;
}

TEST(ref_keys)
{
	buffer_sig in = sig("in", DT_FLOAT, 64, INIT_RANDOM, 0, 0, 1);
	buffer_sig in2 = sig("in", DT_FLOAT, 64, INIT_RANDOM, 0, 0, 2);
	ref_key a = key_of("scale", &in, 2, 64), b = key_of("scale", &in, 2, 64);
	CHECK(ref_key_eq(&a, &b));
	b = key_of("copy", &in, 2, 64);
	CHECK(!ref_key_eq(&a, &b));
	b = key_of("scale", &in2, 2, 64);
	CHECK(!ref_key_eq(&a, &b));
	b = key_of("scale", &in, 2.5, 64);
	CHECK(!ref_key_eq(&a, &b));
	b = key_of("scale", &in, 2, 65);
	CHECK(!ref_key_eq(&a, &b));
	b = a;
	b.out_type = DT_DOUBLE;
	CHECK(!ref_key_eq(&a, &b));
	/* a buffer and a scalar in the same place differ */
	ref_key c, d;
	ref_key_init(&c, "x", DT_FLOAT, 1);
	ref_key_init(&d, "x", DT_FLOAT, 1);
	ref_key_add_buf(&c, &in);
	ref_key_add_scalar(&d, 0, 0);
	CHECK(!ref_key_eq(&c, &d));
	ref_key_init(&c, "x", DT_FLOAT, 1);
	for (int i = 0; i < REF_MAX_ARGS; i++)
		CHECK(ref_key_add_scalar(&c, i, i) == 0);
	CHECK(ref_key_add_scalar(&c, 9, 9) == -1 && ref_key_add_buf(&c, &in) == -1);
	CHECK(c.nargs == REF_MAX_ARGS);
}

TEST(ref_cache_lru)
{
	ref_cache c;
	memset(&c, 0, sizeof c);
	ref_cache_init(&c, 3, 1000 * sizeof(double));
	buffer_sig in = sig("in", DT_FLOAT, 64, INIT_RANDOM, 0, 0, 1);
	ref_key k[6];
	for (int i = 0; i < 6; i++)
		k[i] = key_of("scale", &in, i, 100);
	dtype t;
	uint64_t n;
	CHECK(ref_cache_get(&c, &k[0], &t, &n) == NULL);
	CHECK(ref_cache_put(&c, &k[0], dup_doubles(100, 0), DT_DOUBLE, 100) == 1);
	CHECK(ref_cache_put(&c, &k[1], dup_doubles(100, 1), DT_DOUBLE, 100) == 1);
	CHECK(ref_cache_put(&c, &k[2], dup_doubles(100, 2), DT_DOUBLE, 100) == 1);
	const double *d = ref_cache_get(&c, &k[1], &t, &n);
	CHECK(d && d[99] == 1 && t == DT_DOUBLE && n == 100);
	/* k[0] is the least recently used: the fourth entry evicts it */
	d = ref_cache_get(&c, &k[2], &t, &n);
	CHECK(ref_cache_put(&c, &k[3], dup_doubles(100, 3), DT_DOUBLE, 100) == 1);
	CHECK(c.n == 3);
	CHECK(ref_cache_get(&c, &k[0], &t, &n) == NULL);
	CHECK(ref_cache_get(&c, &k[1], &t, &n) && ref_cache_get(&c, &k[3], &t, &n));
	/* 850 doubles: the oldest (k[2]) goes for the entry limit, the next
	 * (k[1]) for the byte limit */
	CHECK(ref_cache_put(&c, &k[4], dup_doubles(850, 4), DT_DOUBLE, 850) == 1);
	CHECK(c.n == 2 && c.bytes == 950 * sizeof(double));
	CHECK(ref_cache_get(&c, &k[2], &t, &n) == NULL && ref_cache_get(&c, &k[1], &t, &n) == NULL);
	d = ref_cache_get(&c, &k[4], &t, &n);
	CHECK(d && n == 850 && d[0] == 4);
	/* larger than the whole cache: not kept (and freed), the rest stays */
	CHECK(ref_cache_put(&c, &k[5], dup_doubles(1001, 5), DT_DOUBLE, 1001) == 0);
	CHECK(c.n == 2 && ref_cache_get(&c, &k[5], &t, &n) == NULL);
	/* the same key again replaces; a float array counts 4 bytes an element */
	float *f = malloc(sizeof(float) * 100);
	f[0] = 7;
	CHECK(ref_cache_put(&c, &k[3], f, DT_FLOAT, 100) == 1);
	CHECK(c.n == 2 && c.bytes == 850 * sizeof(double) + 100 * sizeof(float));
	const float *g = ref_cache_get(&c, &k[3], &t, &n);
	CHECK(g && g[0] == 7 && t == DT_FLOAT && n == 100);
	CHECK(c.hits > 0 && c.misses > 0);
	ref_cache_clear(&c);
	CHECK(c.n == 0 && c.bytes == 0 && ref_cache_get(&c, &k[4], &t, &n) == NULL);
	/* no entries allowed: nothing kept */
	ref_cache_init(&c, 0, 1000);
	CHECK(ref_cache_put(&c, &k[0], dup_doubles(1, 0), DT_DOUBLE, 1) == 0);
	ref_cache_clear(&c);
}

int main(void)
{
	RUN(table);
	RUN(tolerances);
	RUN(elementwise);
	RUN(shape);
	RUN(conv1d);
	RUN(histogram);
	RUN(matmul_threads);
	RUN(reductions);
	RUN(argument_errors);
	RUN(compare);
	RUN(fill_float);
	RUN(fill_other_types);
	RUN(seeds_and_conversion);
	RUN(compare_parallel);
	RUN(compare_typed);
	RUN(narrow_exact);
	RUN(fill_threads);
	RUN(refs_threads);
	RUN(buffer_sigs);
	RUN(buffer_sig_matching);
	RUN(ref_keys);
	RUN(ref_cache_lru);
	return test_report("ref");
}
