/* test_expect.c: `expect A faster B [by X]` decided by the ratio's 95%
 * interval, on records made from synthetic samples (no GPU). */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "expect.h"

/* A timed record of kernel k with values v: n samples around median m,
 * spread +-w (a repeating pattern, so the interval is known in advance). */
static void add_run(app *a, const char *k, const char *v, double m, double w, int n)
{
	measurement r;
	memset(&r, 0, sizeof r);
	r.file = xstrdup("t.cu");
	r.kernel = xstrdup(k);
	r.values = xstrdup(v);
	r.launched = 1;
	double *x = malloc(sizeof(double) * (size_t)n);
	for (int i = 0; i < n; i++)
		x[i] = m + w * ((i % 5) - 2) / 2;
	measure_set_samples(&r, x, n);
	free(x);
	keep_record(a, &r);
}

static int expect_line(app *a, const char *line)
{
	char *copy = xstrdup(line), *argv[16];
	int argc = 0;
	for (char *save = NULL, *t = strtok_r(copy, " ", &save); t && argc < 16; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	int rc = expect_run(a, argc, argv);
	free(copy);
	return rc;
}

TEST(faster_by_interval)
{
	app a;
	app_init(&a, "cuplay");
	a.gpu = 1;
	/* B 100 us, A1 98 us (2% faster), both +-0.1%; A2 99.8 (0.2% faster)
	 * with +-1% spread; A3 60 us */
	add_run(&a, "B", "N=1", 100, 0.2, 50);
	add_run(&a, "A1", "N=1", 98, 0.2, 50);
	add_run(&a, "A2", "N=1", 99.8, 2, 50);
	add_run(&a, "A3", "N=1", 60, 0.2, 50);
	CHECK(expect_line(&a, "expect A1 faster B") == 0);           /* interval above 1 */
	CHECK(expect_line(&a, "expect A2 faster B") == -1);          /* interval holds 1: cannot tell */
	CHECK(expect_line(&a, "expect B faster A2") == -1);
	CHECK(expect_line(&a, "expect A3 faster B by 1.6") == 0);    /* 1.667x, interval well above */
	CHECK(expect_line(&a, "expect A3 faster B by 1.7") == -1);   /* interval all below 1.7 */
	CHECK(expect_line(&a, "expect A3 faster B by 1.667") == -1); /* holds the bound */
	CHECK(expect_line(&a, "expect B slower A1") == 0);
	CHECK(expect_line(&a, "expect B faster A1") == -1);
	CHECK(a.expect_held == 3 && a.expect_failed == 5);
	app_free(&a);
}

int main(void)
{
	RUN(faster_by_interval);
	return test_report("expect");
}
