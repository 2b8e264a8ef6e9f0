/* ref_algo.c: CPU references of scans, softmax and a linear layer with ReLU. */
#include "ref_algo.h"
#include "util.h"

#include <inttypes.h>
#include <math.h>

static int buf_of(const char *fn, const ref_arg *a, const char *dflt, uint64_t want, const char *what, char **err)
{
	const char *name = a->name ? a->name : dflt;
	if (!a->is_buf)
		return fail(err, "%s: '%s' must be a buffer", fn, name);
	if (want && a->count != want)
		return fail(err, "%s: '%s' has %" PRIu64 " elements, but %s is %" PRIu64, fn, name, a->count, what, want);
	return 0;
}

static int dim_of(const char *fn, const ref_arg *a, const char *dflt, uint64_t *v, char **err)
{
	if (a->is_buf || a->i < 1)
		return fail(err, "%s: '%s' must be a number of at least 1", fn, a->name ? a->name : dflt);
	*v = (uint64_t)a->i;
	return 0;
}

static int scan(const char *fn, const ref_arg *a, double *out, uint64_t n, int exclusive, char **err)
{
	if (buf_of(fn, &a[0], "in", 0, "", err) != 0)
		return -1;
	if (n != a[0].count)
		return fail(err, "%s: the output has %" PRIu64 " elements, the input %" PRIu64, fn, n, a[0].count);
	double s = 0, c = 0; /* Neumaier's compensated sum */
	for (uint64_t i = 0; i < n; i++) {
		if (exclusive)
			out[i] = s + c;
		double x = a[0].data[i], t = s + x;
		c += fabs(s) >= fabs(x) ? (s - t) + x : (x - t) + s;
		s = t;
		if (!exclusive)
			out[i] = s + c;
	}
	return 0;
}

int ref_scan(const ref_arg *a, double *out, uint64_t n, char **err)
{
	return scan("scan", a, out, n, 0, err);
}

int ref_exscan(const ref_arg *a, double *out, uint64_t n, char **err)
{
	return scan("exscan", a, out, n, 1, err);
}

int ref_softmax(const ref_arg *a, double *out, uint64_t n, char **err)
{
	uint64_t rows = 0, cols = 0;
	if (dim_of("softmax", &a[1], "rows", &rows, err) || dim_of("softmax", &a[2], "cols", &cols, err))
		return -1;
	if (rows > UINT64_MAX / cols)
		return fail(err, "softmax: sizes overflow");
	if (buf_of("softmax", &a[0], "in", rows * cols, "rows * cols", err) != 0)
		return -1;
	if (n != rows * cols)
		return fail(err, "softmax: the output has %" PRIu64 " elements, rows * cols is %" PRIu64, n, rows * cols);
	for (uint64_t r = 0; r < rows; r++) {
		const double *x = a[0].data + r * cols;
		double *y = out + r * cols, m = -INFINITY, sum = 0;
		for (uint64_t j = 0; j < cols; j++)
			m = x[j] > m ? x[j] : m;
		for (uint64_t j = 0; j < cols; j++)
			sum += y[j] = exp(x[j] - m);
		for (uint64_t j = 0; j < cols; j++)
			y[j] /= sum;
	}
	return 0;
}

int ref_linear_relu(const ref_arg *a, double *out, uint64_t n, char **err)
{
	uint64_t M = 0, N = 0, K = 0;
	if (dim_of("linear_relu", &a[3], "M", &M, err) || dim_of("linear_relu", &a[4], "N", &N, err) ||
	    dim_of("linear_relu", &a[5], "K", &K, err))
		return -1;
	if (M > UINT32_MAX || N > UINT32_MAX || K > UINT32_MAX)
		return fail(err, "linear_relu: sizes overflow");
	if (buf_of("linear_relu", &a[0], "A", M * K, "M * K", err) ||
	    buf_of("linear_relu", &a[1], "B", K * N, "K * N", err) ||
	    buf_of("linear_relu", &a[2], "bias", N, "N", err))
		return -1;
	if (n != M * N)
		return fail(err, "linear_relu: the output has %" PRIu64 " elements, M * N is %" PRIu64, n, M * N);
	for (uint64_t i = 0; i < M; i++) {
		double *row = out + i * N;
		for (uint64_t j = 0; j < N; j++)
			row[j] = a[2].data[j];
		for (uint64_t k = 0; k < K; k++) {
			double v = a[0].data[i * K + k];
			const double *b = a[1].data + k * N;
			for (uint64_t j = 0; j < N; j++)
				row[j] += v * b[j];
		}
		for (uint64_t j = 0; j < N; j++)
			row[j] = row[j] > 0 ? row[j] : 0;
	}
	return 0;
}
