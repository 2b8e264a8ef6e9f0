/* test_metrics.c: the metric catalogue, user lists, derived figures, tables. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "report.h"

static int raw_index(const metric_sel *s, const char *name)
{
	for (int i = 0; i < s->nraw; i++)
		if (strcmp(s->raw[i], name) == 0)
			return i;
	return -1;
}

static int fig_index(const metric_sel *s, const char *name)
{
	for (int i = 0; i < s->nfig; i++)
		if (strcmp(s->fig[i].name, name) == 0)
			return i;
	return -1;
}

TEST(catalogue)
{
	int n = 0;
	const metric_def *c = metrics_catalogue(&n);
	CHECK(n >= 12);
	for (int i = 0; i < n; i++) {
		CHECK(c[i].name && c[i].meaning && c[i].raw[0]);
		CHECK(strchr(c[i].name, ' ') == NULL);
		CHECK(strstr(c[i].raw[0], "__") != NULL);
		if (c[i].kind == MK_RATIO)
			CHECK(c[i].raw[1] != NULL && c[i].raw[2] == NULL);
		if (c[i].kind == MK_PER_TIME)
			CHECK(c[i].raw[1] != NULL && c[i].raw[2] != NULL);
		CHECK(metrics_find(c[i].name) == &c[i]);
	}
	const metric_def *d = metrics_find("ld_sectors_per_req");
	CHECK(d && d->kind == MK_RATIO);
	CHECK_STREQ(d->raw[0], "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
	CHECK_STREQ(d->raw[1], "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
	CHECK(d->ideal && strncmp(d->ideal, "4", 1) == 0);
	CHECK_STREQ(metrics_find("bank_conflicts_ld")->ideal, "0");
	CHECK_STREQ(metrics_find("bank_conflicts_st")->raw[0], "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum");
	CHECK_STREQ(metrics_find("occupancy")->raw[0], "sm__warps_active.avg.pct_of_peak_sustained_active");
	CHECK_STREQ(metrics_find("l2_hit")->raw[0], "lts__t_sector_hit_rate.pct");
	CHECK(metrics_find("nope") == NULL);
	/* every set names catalogue figures only */
	const char *const *sets = metrics_set_names();
	int nsets = 0;
	for (; sets[nsets]; nsets++) {
		metric_sel s;
		char *err = NULL;
		CHECK(metrics_parse(sets[nsets], &s, &err) == 0);
		CHECK(err == NULL);
		for (int i = 0; i < s.nfig; i++)
			CHECK(s.fig[i].def >= 0);
	}
	CHECK(nsets == 7);
	/* explain's set: the speed of light as ncu names it, within one request */
	metric_sel e;
	CHECK(metrics_parse("explain", &e, NULL) == 0);
	CHECK(e.nraw <= METRICS_MAX_RAW);
	int sol = 0;
	for (int i = 0; i < e.nraw; i++)
		sol += strcmp(e.raw[i], "sm__throughput.avg.pct_of_peak_sustained_elapsed") == 0 ||
		       strcmp(e.raw[i], "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed") == 0 ||
		       strcmp(e.raw[i], "lts__throughput.avg.pct_of_peak_sustained_elapsed") == 0 ||
		       strcmp(e.raw[i], "l1tex__throughput.avg.pct_of_peak_sustained_active") == 0 ||
		       strcmp(e.raw[i], "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed") == 0;
	CHECK(sol == 5);
}

TEST(default_set)
{
	metric_sel s;
	char *err = NULL;
	CHECK(metrics_parse(NULL, &s, &err) == 0);
	metric_sel s2;
	CHECK(metrics_parse("  ", &s2, &err) == 0);
	CHECK(s.nfig == s2.nfig && s.nraw == s2.nraw);
	metric_sel s3;
	CHECK(metrics_parse("default", &s3, &err) == 0);
	CHECK(s.nfig == s3.nfig && s.nraw == s3.nraw);

	/* the reference README's 11 counters plus the store sector/request pair */
	CHECK(s.nfig == 12);
	CHECK(s.nraw == 13);
	const char *want[] = {
		"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
		"dram__throughput.avg.pct_of_peak_sustained_elapsed",
		"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
		"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
		"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
		"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
		"sm__warps_active.avg.pct_of_peak_sustained_active", "l1tex__t_sector_hit_rate.pct",
		"lts__t_sector_hit_rate.pct",
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		CHECK(raw_index(&s, want[i]) >= 0);
	/* dram_bw reuses the bytes and the duration: no counter twice */
	int f = fig_index(&s, "dram_bw");
	CHECK(f >= 0);
	CHECK(s.fig[f].raw[0] == raw_index(&s, "dram__bytes_read.sum"));
	CHECK(s.fig[f].raw[1] == raw_index(&s, "dram__bytes_write.sum"));
	CHECK(s.fig[f].raw[2] == raw_index(&s, "gpu__time_duration.sum"));
	const char *names[METRICS_MAX_RAW];
	metrics_raw_names(&s, names);
	for (int i = 0; i < s.nraw; i++)
		CHECK(names[i] == s.raw[i]);
}

TEST(lists)
{
	metric_sel s;
	char *err = NULL;
	CHECK(metrics_parse("bank_conflicts_ld l2_hit", &s, &err) == 0);
	CHECK(s.nfig == 2 && s.nraw == 2);
	CHECK_STREQ(s.fig[0].name, "bank_conflicts_ld");
	CHECK_STREQ(s.fig[1].name, "l2_hit");
	CHECK_STREQ(s.raw[0], "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum");
	CHECK_STREQ(s.raw[1], "lts__t_sector_hit_rate.pct");

	/* commas, duplicates, a set and a figure it already holds */
	CHECK(metrics_parse("shared,bank_conflicts_ld, l2_hit l2_hit", &s, &err) == 0);
	CHECK(s.nfig == 4);
	CHECK_STREQ(s.fig[0].name, "duration");
	CHECK_STREQ(s.fig[3].name, "l2_hit");
	CHECK(s.nraw == 4);

	/* a raw name by hand that a figure shows as it is: that figure, under
	 * its short name, once */
	CHECK(metrics_parse("dram__bytes_read.sum dram_read", &s, &err) == 0);
	CHECK(s.nfig == 1 && s.nraw == 1);
	CHECK(s.fig[0].def >= 0 && s.fig[0].raw[0] == 0);
	CHECK_STREQ(s.fig[0].name, "dram_read");
	CHECK(metrics_parse("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", &s, &err) == 0);
	CHECK(s.nfig == 1 && strcmp(s.fig[0].name, "reduction_requests") == 0);
	CHECK(metrics_by_raw("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum") == metrics_find("local_ld_sectors"));
	CHECK(metrics_by_raw("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") == metrics_find("ld_sectors"));
	CHECK(metrics_by_raw("sm__cycles_elapsed.avg") == NULL);
	/* one no figure shows as it is: by its raw name; a ratio's input is
	 * one counter with the ratio */
	CHECK(metrics_parse("sm__cycles_elapsed.avg l1tex__t_requests_pipe_lsu_mem_global_op_st.sum st_sectors_per_req",
	                    &s, &err) == 0);
	CHECK(s.nfig == 3 && s.fig[0].def == -1 && s.nraw == 3);
	CHECK_STREQ(s.fig[1].name, "st_requests");

	/* memory: ratios bring both counters */
	CHECK(metrics_parse("memory", &s, &err) == 0);
	CHECK(fig_index(&s, "ld_sectors_per_req") >= 0 && fig_index(&s, "bank_conflicts_ld") < 0);
	CHECK(raw_index(&s, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum") >= 0);

	/* occupancy is a set: duration and the figure */
	CHECK(metrics_parse("occupancy", &s, &err) == 0);
	CHECK(s.nfig == 2 && fig_index(&s, "occupancy") == 1);

	/* words already split */
	const char *words[] = { "l1_hit", "", "sm__cycles_elapsed.avg" };
	CHECK(metrics_parse_words(words, 3, &s, &err) == 0);
	CHECK(s.nfig == 2 && s.nraw == 2);
	CHECK_STREQ(s.raw[1], "sm__cycles_elapsed.avg");
	CHECK(metrics_parse_words(words, 0, &s, &err) == 0);
	CHECK(s.nfig == 12);
	CHECK(err == NULL);
}

TEST(errors)
{
	metric_sel s;
	char *err = NULL;
	CHECK(metrics_parse("bank_conflict", &s, &err) == -1);
	CHECK_STREQ(err, "unknown metric 'bank_conflict' (did you mean 'bank_conflicts_ld'?)");
	free(err);
	err = NULL;
	CHECK(s.nfig == 0 && s.nraw == 0);

	CHECK(metrics_parse("l2_hti", &s, &err) == -1);
	CHECK_STREQ(err, "unknown metric 'l2_hti' (did you mean 'l2_hit'?)");
	free(err);
	err = NULL;

	CHECK(metrics_parse("memroy", &s, &err) == -1);
	CHECK_STREQ(err, "unknown metric 'memroy' (did you mean 'memory'?)");
	free(err);
	err = NULL;

	CHECK(metrics_parse("l2_hit zzzzzzzz", &s, &err) == -1);
	CHECK(err && strncmp(err, "unknown metric 'zzzzzzzz' (sets: ", 33) == 0);
	free(err);
	err = NULL;

	CHECK(metrics_parse("dram__bytes;rm", &s, &err) == -1);
	CHECK(err && strncmp(err, "bad metric name 'dram__bytes;rm'", 32) == 0);
	free(err);
	err = NULL;

	char longname[300];
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = 0;
	memcpy(longname + 10, "__", 2);
	CHECK(metrics_parse(longname, &s, &err) == -1);
	CHECK(err && strncmp(err, "metric name too long", 20) == 0);
	free(err);
	err = NULL;

	/* too many raw counters */
	char big[METRICS_MAX_RAW * 24 + 64];
	int len = 0;
	for (int i = 0; i <= METRICS_MAX_RAW; i++)
		len += snprintf(big + len, sizeof big - (size_t)len, "x__m%d.sum ", i);
	CHECK(metrics_parse(big, &s, &err) == -1);
	CHECK(err && strncmp(err, "too many metrics", 16) == 0);
	free(err);
}

TEST(compute)
{
	metric_sel s;
	char *err = NULL;
	CHECK(metrics_parse("default", &s, &err) == 0);
	double raw[METRICS_MAX_RAW];
	for (int i = 0; i < s.nraw; i++)
		raw[i] = 0;
#define SET(name, v) raw[raw_index(&s, name)] = (v)
	SET("gpu__time_duration.sum", 194000);          /* 194 us */
	SET("dram__bytes_read.sum", 268435456);         /* 256 MiB */
	SET("dram__bytes_write.sum", 268435456);
	SET("dram__throughput.avg.pct_of_peak_sustained_elapsed", 91.25);
	SET("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 8388608);
	SET("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 2097152);  /* 4 a request */
	SET("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 67108864);
	SET("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 2097152);  /* 32 a request */
	SET("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 0);
	SET("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 65011712);
	SET("sm__warps_active.avg.pct_of_peak_sustained_active", 87.5);
	SET("l1tex__t_sector_hit_rate.pct", 0);
	SET("lts__t_sector_hit_rate.pct", 50.5);
#undef SET
	double fig[METRICS_MAX_FIGS];
	metrics_compute(&s, raw, fig);
	CHECK_NEAR(fig[fig_index(&s, "duration")], 194000, 0);
	CHECK_NEAR(fig[fig_index(&s, "ld_sectors_per_req")], 4.0, 1e-12);
	CHECK_NEAR(fig[fig_index(&s, "st_sectors_per_req")], 32.0, 1e-12);
	/* (256 + 256) MiB / 194 us = 536870912 B / 194000 ns = 2767.4 GB/s */
	CHECK_NEAR(fig[fig_index(&s, "dram_bw")], 536870912.0 / 194000.0, 1e-9);
	CHECK_NEAR(fig[fig_index(&s, "bank_conflicts_st")], 65011712, 0);

	char buf[64];
	int i = fig_index(&s, "duration");
	metrics_format(&s, i, fig[i], buf, sizeof buf);
	CHECK_STREQ(buf, "194 us");
	i = fig_index(&s, "dram_read");
	metrics_format(&s, i, fig[i], buf, sizeof buf);
	CHECK_STREQ(buf, "256.0 MiB");
	metrics_format_raw(&s, i, fig[i], buf, sizeof buf);
	CHECK_STREQ(buf, "268435456");
	CHECK_STREQ(metrics_unit(&s, i), "bytes");
	i = fig_index(&s, "dram_bw");
	metrics_format(&s, i, fig[i], buf, sizeof buf);
	CHECK_STREQ(buf, "2767 GB/s");
	CHECK_STREQ(metrics_unit(&s, i), "GB/s");
	i = fig_index(&s, "ld_sectors_per_req");
	metrics_format(&s, i, fig[i], buf, sizeof buf);
	CHECK_STREQ(buf, "4.00");
	i = fig_index(&s, "occupancy");
	metrics_format(&s, i, fig[i], buf, sizeof buf);
	CHECK_STREQ(buf, "87.5%");
	CHECK_STREQ(metrics_unit(&s, i), "%");
	i = fig_index(&s, "bank_conflicts_st");
	metrics_format(&s, i, fig[i], buf, sizeof buf);
	CHECK_STREQ(buf, "65011712");

	/* no requests: the ratio is unknown, not 0 or inf */
	raw[raw_index(&s, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")] = 0;
	raw[raw_index(&s, "gpu__time_duration.sum")] = 0;
	metrics_compute(&s, raw, fig);
	i = fig_index(&s, "ld_sectors_per_req");
	CHECK(isnan(fig[i]));
	metrics_format(&s, i, fig[i], buf, sizeof buf);
	CHECK_STREQ(buf, "-");
	metrics_format_raw(&s, i, fig[i], buf, sizeof buf);
	CHECK_STREQ(buf, "");
	CHECK(isnan(fig[fig_index(&s, "dram_bw")]));
}

TEST(raw_units)
{
	metric_sel s;
	char *err = NULL;
	CHECK(metrics_parse("lts__t_bytes.sum sm__throughput.avg.pct_of_peak_sustained_elapsed "
	                    "smsp__inst_executed.sum gpu__time_duration.max dram__bytes.sum.per_second",
	                    &s, &err) == 0);
	CHECK(s.nfig == 5);
	char buf[64];
	metrics_format(&s, 0, 2048, buf, sizeof buf);
	CHECK_STREQ(buf, "2.0 KiB");
	metrics_format(&s, 1, 12.34, buf, sizeof buf);
	CHECK_STREQ(buf, "12.3%");
	metrics_format(&s, 2, 123456, buf, sizeof buf);
	CHECK_STREQ(buf, "123456");
	metrics_format(&s, 3, 1500, buf, sizeof buf);
	CHECK_STREQ(buf, "1.50 us");
	metrics_format(&s, 4, 1.5e12, buf, sizeof buf);
	CHECK_STREQ(buf, "1500000000000");
	metrics_format(&s, 4, 12345.678, buf, sizeof buf);
	CHECK_STREQ(buf, "1.235e+04");
	CHECK_STREQ(metrics_unit(&s, 2), "");
}

/* what a parser gets: the number raw (csv), else the text */
static const char *cell(const table *t, int r, int c)
{
	static char buf[8][64];
	static int next;
	int k = r * t->ncols + c;
	if (t->isnum[k]) {
		char *b = buf[next++ % 8];
		snprintf(b, 64, "%.10g", t->num[k]);
		return b;
	}
	const char *s = t->cells[k];
	return s ? s : "";
}

TEST(tables)
{
	metric_sel s;
	char *err = NULL;
	CHECK(metrics_parse("ld_sectors_per_req occupancy bank_conflicts_st", &s, &err) == 0);
	CHECK(s.nfig == 4); /* duration comes with the occupancy set... */
	CHECK(metrics_parse("ld_sectors_per_req bank_conflicts_st", &s, &err) == 0);
	CHECK(s.nfig == 2);
	double a[2] = { 4.0, 0 }, b[2] = { 32.0, 65011712 };
	const double *figs[2] = { a, b };
	const char *kernels[2] = { "transpose_tiled", "transpose_naive" };
	table t;
	metrics_table(&t, &s, 2, kernels, figs, NULL, 1, 0);
	CHECK(t.ncols == 5 && t.nrows == 2);
	CHECK_STREQ(t.head[0], "metric");
	CHECK_STREQ(t.head[1], "transpose_tiled");
	CHECK_STREQ(t.head[2], "transpose_naive");
	CHECK_STREQ(t.head[3], "ideal");
	CHECK_STREQ(t.head[4], "meaning");
	CHECK_STREQ(cell(&t, 0, 0), "ld_sectors_per_req");
	CHECK_STREQ(cell(&t, 0, 1), "4.00");
	CHECK_STREQ(cell(&t, 0, 2), "32.00");
	CHECK_STREQ(cell(&t, 0, 3), "4 (4-byte words)");
	CHECK_STREQ(cell(&t, 1, 2), "65011712");
	CHECK_STREQ(cell(&t, 1, 3), "0");
	table_free(&t);

	/* one kernel without a name: "value" */
	metrics_table(&t, &s, 1, NULL, figs, NULL, 1, 1);
	CHECK(t.ncols == 4);
	CHECK_STREQ(t.head[1], "value");
	CHECK_STREQ(cell(&t, 0, 1), "<m>");
	table_free(&t);

	/* csv/json: long form with raw numbers */
	metrics_table(&t, &s, 2, kernels, figs, NULL, 0, 0);
	CHECK(t.ncols == 6 && t.nrows == 4);
	CHECK_STREQ(cell(&t, 1, 0), "transpose_tiled");
	CHECK_STREQ(cell(&t, 1, 1), "bank_conflicts_st");
	CHECK_STREQ(cell(&t, 1, 2), "0");
	CHECK_STREQ(cell(&t, 2, 2), "32");
	CHECK_STREQ(cell(&t, 2, 5), "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / "
	                            "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
	table_free(&t);

	/* theoretical occupancy goes under the achieved one */
	CHECK(metrics_parse("occupancy", &s, &err) == 0);
	double c[2] = { 120000, 70.25 };
	const double *figs1[1] = { c };
	double theory[1] = { 0.75 };
	metrics_table(&t, &s, 1, kernels, figs1, theory, 1, 0);
	CHECK(t.nrows == 3);
	CHECK_STREQ(cell(&t, 1, 1), "70.2%");
	CHECK_STREQ(cell(&t, 2, 0), "occupancy_theory");
	CHECK_STREQ(cell(&t, 2, 1), "75.0%");
	table_free(&t);
	metrics_table(&t, &s, 1, kernels, figs1, theory, 0, 0);
	CHECK(t.nrows == 3);
	CHECK_STREQ(cell(&t, 2, 1), "occupancy_theory");
	CHECK_STREQ(cell(&t, 2, 2), "75");
	table_free(&t);

	metrics_catalogue_table(&t);
	int n = 0;
	metrics_catalogue(&n);
	CHECK(t.nrows == n + 7);
	CHECK_STREQ(cell(&t, 3, 3), "(dram__bytes_read.sum + dram__bytes_write.sum) / gpu__time_duration.sum");
	table_free(&t);
}

int main(void)
{
	RUN(catalogue);
	RUN(default_set);
	RUN(lists);
	RUN(errors);
	RUN(compute);
	RUN(raw_units);
	RUN(tables);
	return test_report("metrics");
}
