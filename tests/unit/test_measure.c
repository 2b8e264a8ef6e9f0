/* test_measure.c: a measurement's row: the median with its interval
 * (146 us ±0.2%) for people; the interval's ends, the noise and what
 * stopped the samples for csv and json. */
#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure.h"
#include "util.h"

static char *render(const measurement *m, out_format f, int mask)
{
	table t;
	measure_table_init(&t, 0, 0, NULL, NULL);
	int r = table_row(&t);
	measure_row(&t, r, 0, m, mask);
	char *buf = NULL;
	size_t len = 0;
	FILE *s = open_memstream(&buf, &len);
	table_print(&t, s, f, 0, 0);
	fclose(s);
	table_free(&t);
	return buf;
}

TEST(row)
{
	measurement m;
	memset(&m, 0, sizeof m);
	m.file = xstrdup("t.cu");
	m.kernel = xstrdup("k");
	m.values = xstrdup("N=1");
	m.launched = 1;
	double x[50];
	for (int i = 0; i < 50; i++)
		x[i] = 0.146 * (1 + 0.001 * ((i % 5) - 2)); /* 146 us, +-0.2% */
	measure_set_samples(&m, x, 50);
	m.stop = STOP_INTERVAL;
	CHECK(m.st.has_ci && m.st.ci_lo < m.st.median && m.st.median < m.st.ci_hi);

	char *h = render(&m, FMT_TABLE, 0);
	CHECK(strstr(h, "±95%") != NULL);
	CHECK(strstr(h, "146 us  ±0.1%") != NULL || strstr(h, "146 us  ±0.2%") != NULL);
	CHECK(strstr(h, "noise") == NULL); /* the spread is for csv and json */
	if (!strstr(h, "146 us  ±0."))
		fprintf(stderr, "%s", h);
	free(h);

	char *c = render(&m, FMT_CSV, 0);
	char *nl = strchr(c, '\n');
	CHECK(nl != NULL);
	if (nl) {
		*nl = 0;
		CHECK(strstr(c, "median_ms,min_ms,max_ms,noise_frac,samples") != NULL);
		CHECK(strstr(c, ",ci_lo_ms,ci_hi_ms,stop") != NULL);
		CHECK(strstr(nl + 1, ",interval") != NULL);
	}
	free(c);

	char *mk = render(&m, FMT_TABLE, 1);
	CHECK(strstr(mk, "<t>") != NULL && strstr(mk, "±0.") == NULL);
	free(mk);

	/* five samples: no interval, an empty cell */
	measure_set_samples(&m, x, 5);
	CHECK(!m.st.has_ci && m.stop == STOP_NOT);
	h = render(&m, FMT_TABLE, 0);
	CHECK(strstr(h, "±0.") == NULL);
	free(h);
	measure_free(&m);
}

/* A better memory roof measured after the record was made: the fraction
 * divides by it, and a kernel above the copy is below the best. */
TEST(roof)
{
	measurement m;
	memset(&m, 0, sizeof m);
	m.bytes = 2.0 * 268435456;
	m.roof_gbps = 3000; /* the copy */
	double x[20];
	for (int i = 0; i < 20; i++)
		x[i] = 0.164; /* 536.9 MB in 164 us: 3274 GB/s, 109% of the copy */
	measure_set_samples(&m, x, 20);
	CHECK(m.roof_frac > 1.05);
	measure_set_roof(&m, 3300); /* the streaming copy */
	CHECK_NEAR(m.roof_gbps, 3300, 1e-9);
	CHECK_NEAR(m.roof_frac, m.gbps / 3300, 1e-12);
	CHECK(m.roof_frac < 1.0 && m.roof_frac > 0.95);
	measure_set_roof(&m, 0);
	CHECK(m.roof_frac == 0);
	measure_free(&m);
}

/* One kernel, one roof fraction: a record made as `run` makes it and one
 * made as `compare` does (its samples pooled from rounds afterwards) both
 * divide by the device's measured roof (what `roof` prints), not by the
 * worker's copy that comes with the result, even where that copy is the
 * higher; a run on host data keeps the link's roof. */
TEST(one_roof)
{
	plan *p = xcalloc(1, sizeof *p);
	snprintf(p->launch.name, sizeof p->launch.name, "transposeCoalesced");
	p->bytes = 2.0 * 268435456;
	result *res = xcalloc(1, sizeof *res);
	res->roof_gbps = 4000; /* the worker's device-to-device copy */
	res->nsamples = 20;
	for (int i = 0; i < 20; i++)
		res->samples_ms[i] = 0.383; /* 1402 GB/s */
	const double roof = 4496; /* `roof`'s memory line */
	measurement run, cmp;
	measure_make(&run, "t.cu", p, res, "N=8192", 1);
	measure_use_roof(&run, roof);
	measure_make(&cmp, "t.cu", p, res, "N=8192", 1);
	measure_use_roof(&cmp, roof);
	double pooled[40];
	for (int i = 0; i < 40; i++)
		pooled[i] = 0.383 * (1 + 0.0001 * (i % 3));
	measure_set_samples(&cmp, pooled, 40);
	CHECK_NEAR(run.roof_gbps, roof, 1e-9);
	CHECK_NEAR(cmp.roof_gbps, roof, 1e-9);
	CHECK_NEAR(run.roof_frac, run.gbps / roof, 1e-12);
	CHECK_NEAR(cmp.roof_frac, cmp.gbps / roof, 1e-12);
	CHECK(fabs(run.roof_frac - cmp.roof_frac) < 0.001);
	/* a device roof under the worker's copy is still the one */
	measure_use_roof(&run, 3900);
	CHECK_NEAR(run.roof_frac, run.gbps / 3900, 1e-12);
	/* not measured: the worker's copy stays */
	measurement none;
	measure_make(&none, "t.cu", p, res, "N=8192", 1);
	measure_use_roof(&none, 0);
	CHECK_NEAR(none.roof_gbps, 4000, 1e-9);
	/* on host data: the link's roof, not the device's */
	measurement host;
	measure_make(&host, "t.cu", p, res, "N=8192", 1);
	snprintf(host.link, sizeof host.link, "H2D+D2H pinned");
	double before = host.roof_gbps;
	measure_use_roof(&host, roof);
	CHECK_NEAR(host.roof_gbps, before, 1e-9);
	measure_free(&run);
	measure_free(&cmp);
	measure_free(&none);
	measure_free(&host);
	free(res);
	free(p);
}

/* Declared figures over a roof are flagged: bytes over the memory roof,
 * flops over the compute roof of the kernel's pipe; under it, nothing. */
TEST(over_roof)
{
	measurement m;
	memset(&m, 0, sizeof m);
	m.bytes = 1e6;
	m.flops = 2e9;
	m.roof_gbps = 3000;
	double x[20];
	for (int i = 0; i < 20; i++)
		x[i] = 0.040; /* 25 GB/s; 50 TFLOP/s */
	measure_set_samples(&m, x, 20);
	CHECK(m.over_roof[0] == 0);
	measure_set_flops_roof(&m, 60000); /* under the FMA roof */
	CHECK(m.over_roof[0] == 0);
	measure_set_flops_roof(&m, 40000); /* 125% of it: flagged */
	CHECK(strstr(m.over_roof, "125% of the compute roof") != NULL);
	CHECK(strstr(m.over_roof, "//@ flops counts more") != NULL);
	measure_set_flops_roof(&m, 0); /* no roof known: no flag */
	CHECK(m.over_roof[0] == 0);
	/* bytes over the memory roof win: that is the figure the row shows */
	m.bytes = 200e6; /* 5000 GB/s */
	measure_set_samples(&m, x, 20);
	measure_set_flops_roof(&m, 40000);
	CHECK(strstr(m.over_roof, "of the memory roof: //@ bytes counts more") != NULL);
	measure_free(&m);
}

/* The timed launches' last against the checked one: other values fail the
 * check and say why in the row and the data; other bits within the
 * tolerance (float atomics), or the same bits, keep it ok. */
TEST(timed_check)
{
	plan *p = xcalloc(1, sizeof *p);
	snprintf(p->launch.name, sizeof p->launch.name, "once");
	result *res = xcalloc(1, sizeof *res);
	res->nchecks = 1;
	res->checks[0].ok = 1;
	res->checks[0].rel_err = 1e-7;
	double x[20];
	for (int i = 0; i < 20; i++)
		x[i] = 0.042;
	res->nsamples = 20;
	memcpy(res->samples_ms, x, sizeof x);
	for (int st = TIMED_NOT; st <= TIMED_DIFFERS; st++) {
		res->timed_check = st;
		snprintf(res->timed_buf, sizeof res->timed_buf, "y");
		res->timed_err = 0.5;
		res->timed_index = -1;
		measurement m;
		measure_make(&m, "once.cu", p, res, "N=16", 1);
		CHECK(m.check == (st == TIMED_DIFFERS ? MCHECK_FAIL : MCHECK_OK));
		CHECK((m.timed_bad[0] != 0) == (st == TIMED_DIFFERS));
		char *c = render(&m, FMT_CSV, 0);
		CHECK(strstr(c, "timed_check") != NULL);
		CHECK((strstr(c, "did not compute what the checked launch did: a kernel that keeps state across "
		                 "launches? ('y', relative error 5.00e-01)") != NULL) == (st == TIMED_DIFFERS));
		free(c);
		char *h = render(&m, FMT_TABLE, 0);
		CHECK((strstr(h, "FAIL") != NULL) == (st == TIMED_DIFFERS));
		CHECK((strstr(h, "timed launches") != NULL && strstr(h, "keeps state across launches?") != NULL) ==
		      (st == TIMED_DIFFERS));
		free(h);
		measure_free(&m);
	}
	free(res);
	free(p);
}

/* The flag's text says what was found, in one line: an element left
 * unwritten (its initial contents), an element with another value and the
 * one wanted, or the output's error where no element was named. */
TEST(timed_says)
{
	plan *p = xcalloc(1, sizeof *p);
	snprintf(p->launch.name, sizeof p->launch.name, "once");
	result *res = xcalloc(1, sizeof *res);
	res->nchecks = 1;
	res->checks[0].ok = 1;
	res->timed_check = TIMED_DIFFERS;
	snprintf(res->timed_buf, sizeof res->timed_buf, "y");
	static const struct {
		int64_t index;
		int unwritten;
		double got, want, err;
		const char *says;
	} cases[] = {
		{ 0, 1, NAN, 2, 0, "('y'[0] left unwritten: it holds its initial contents, nan, where 2 is wanted)" },
		/* poison is a negative NaN: its sign is not shown */
		{ 3, 1, -NAN, 2, 0, "('y'[3] left unwritten: it holds its initial contents, nan, where 2 is wanted)" },
		{ 12, 0, 3, 1.5, 129.0, "('y'[12] is 3 where 1.5 is wanted; relative error 1.29e+02)" },
		{ -1, 0, 0, 0, 0.25, "('y', relative error 2.50e-01)" },
		{ 7, 0, 4, 9, NAN, "('y'[7] is 4 where 9 is wanted)" },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		res->timed_index = cases[k].index;
		res->timed_unwritten = cases[k].unwritten;
		res->timed_got = cases[k].got;
		res->timed_want = cases[k].want;
		res->timed_err = cases[k].err;
		measurement m;
		measure_make(&m, "once.cu", p, res, "N=16", 1);
		CHECK(m.check == MCHECK_FAIL);
		CHECK(strstr(m.timed_bad, "a kernel that keeps state across launches? ") == strstr(m.timed_bad, "a kernel"));
		CHECK(strstr(m.timed_bad, cases[k].says) != NULL);
		CHECK(strchr(m.timed_bad, '\n') == NULL);
		CHECK(strstr(m.timed_bad, "relative error 0.00e+00") == NULL);
		if (!strstr(m.timed_bad, cases[k].says))
			fprintf(stderr, "got: %s\n", m.timed_bad);
		measure_free(&m);
	}
	free(res);
	free(p);
}

int main(void)
{
	RUN(row);
	RUN(roof);
	RUN(one_roof);
	RUN(over_roof);
	RUN(timed_check);
	RUN(timed_says);
	return test_report("measure");
}
