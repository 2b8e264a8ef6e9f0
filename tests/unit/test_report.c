/* test_report.c: the table writers, the SVG chart and human figures. With WRITERS_OUT=DIR the files are left there
 * for tests/run.sh to parse with real JSON and XML parsers. */
#include "test.h"
#include "chart.h"
#include "report.h"
#include "svgfit.h"
#include "util.h"

#include <stdlib.h>

static char *render(const table *t, out_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	table_print(t, m, f, 0, 0);
	fclose(m);
	return buf;
}

static void sample_table(table *t)
{
	const char *head[] = { "kernel", "note", "median" };
	table_init(t, 3, head, "llr");
	table_kind(t, "run");
	table_col(t, 2, "median_ms", U_MS, COL_BOTH);
	int r = table_row(t);
	table_set(t, r, 0, "transpose_tiled");
	table_set(t, r, 1, "a \"quoted\", comma | pipe\\ <tag> & tab\there");
	table_num(t, r, 2, 0.194);
	r = table_row(t);
	table_set(t, r, 0, "transpose_naive");
	table_num(t, r, 2, 1.17);
}

TEST(text)
{
	table t;
	sample_table(&t);
	char *s = render(&t, FMT_TABLE);
	CHECK(strstr(s, "kernel           note") != NULL);
	CHECK(strstr(s, "median\n") != NULL);
	/* numbers in their unit, right-aligned: they line up at the right edge */
	CHECK(strstr(s, "   194 us\n") != NULL);
	CHECK(strstr(s, "  1.17 ms\n") != NULL);
	free(s);
	table_free(&t);
}

TEST(csv)
{
	table t;
	sample_table(&t);
	char *s = render(&t, FMT_CSV);
	CHECK_STREQ(s, "kernel,note,median_ms\n"
	               "transpose_tiled,\"a \"\"quoted\"\", comma | pipe\\ <tag> & tab\there\",0.194\n"
	               "transpose_naive,,1.17\n");
	free(s);
	table_free(&t);
}

/* Tables of the same columns, one after another, are one CSV: a header
 * once; a table of other columns a header of its own after a blank line. */
TEST(csv_stream)
{
	table t, u;
	sample_table(&t);
	const char *head[] = { "file", "kernels" };
	table_init(&u, 2, head, "lr");
	table_kind(&u, "file");
	table_col(&u, 1, NULL, U_INT, COL_BOTH);
	table_set(&u, table_row(&u), 0, "transpose");
	table_num(&u, 0, 1, 3);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	doc d;
	doc_open(&d, m, FMT_CSV, 0, "1.0");
	doc_table(&d, &t, 0);
	doc_table(&d, &t, 0);
	doc_table(&d, &u, 0);
	doc_table(&d, &t, 0);
	doc_close(&d);
	fclose(m);
	const char *row1 = "transpose_tiled,\"a \"\"quoted\"\", comma | pipe\\ <tag> & tab\there\",0.194\n";
	char *want = xasprintf("kernel,note,median_ms\n%stranspose_naive,,1.17\n%stranspose_naive,,1.17\n"
	                       "\nfile,kernels\ntranspose,3\n\nkernel,note,median_ms\n%stranspose_naive,,1.17\n",
	                       row1, row1, row1);
	CHECK_STREQ(buf, want);
	free(want);
	free(buf);
	table_free(&u);
	table_free(&t);
}

TEST(json)
{
	table t;
	sample_table(&t);
	char *s = render(&t, FMT_JSON);
	/* one document: numbers are numbers, an empty cell is null */
	CHECK_STREQ(s, "{\"cuplay\": \"\", \"format\": 1, \"records\": [\n"
	               "  {\"type\": \"run\", \"kernel\": \"transpose_tiled\", \"note\": \"a \\\"quoted\\\", comma | pipe\\\\ <tag> & tab\\there\", "
	               "\"median_ms\": 0.194},\n  {\"type\": \"run\", \"kernel\": \"transpose_naive\", \"note\": null, \"median_ms\": 1.17}\n]}\n");
	free(s);
	s = render(&t, FMT_JSONL);
	CHECK_STREQ(s, "{\"type\": \"run\", \"kernel\": \"transpose_tiled\", \"note\": \"a \\\"quoted\\\", comma | pipe\\\\ <tag> & tab\\there\", "
	               "\"median_ms\": 0.194}\n{\"type\": \"run\", \"kernel\": \"transpose_naive\", \"note\": null, \"median_ms\": 1.17}\n");
	free(s);
	table_free(&t);
}

/* JSON is UTF-8: a byte of no character (a .cu file's Latin-1, a cut
 * sequence, an overlong form, a surrogate) is U+FFFD; characters stay. */
TEST(json_utf8)
{
	const char *head[] = { "kernel" };
	static const struct { const char *in, *out; } c[] = {
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "caf\xe9", "caf\\ufffd" },
		{ "\xff\xfe", "\\ufffd\\ufffd" },
		{ "x\xc3", "x\\ufffd" },
		{ "\xc0\xaf", "\\ufffd\\ufffd" },
		{ "\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd" },
		{ "\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd" },
		{ "\xe2\x82", "\\ufffd\\ufffd" },
	};
	for (size_t i = 0; i < ARRAY_LEN(c); i++) {
		table t;
		table_init(&t, 1, head, "l");
		table_kind(&t, "run");
		table_set(&t, table_row(&t), 0, c[i].in);
		char *s = render(&t, FMT_JSONL);
		char *want = xasprintf("{\"type\": \"run\", \"kernel\": \"%s\"}\n", c[i].out);
		CHECK_STREQ(s, want);
		free(want);
		free(s);
		table_free(&t);
	}
}

TEST(markdown)
{
	table t;
	sample_table(&t);
	char *s = render(&t, FMT_MARKDOWN);
	CHECK(strncmp(s, "| kernel | note | median_ms |\n| --- | --- | ---: |\n", 48) == 0);
	CHECK(strstr(s, "comma \\| pipe") != NULL); /* a | in a cell is escaped */
	free(s);
	table_free(&t);
}

TEST(figures)
{
	char b[32];
	fmt_time_ms(0.000812, b, sizeof b);
	CHECK_STREQ(b, "812 ns");
	fmt_time_ms(0.0123, b, sizeof b);
	CHECK_STREQ(b, "12.3 us");
	fmt_time_ms(0.194, b, sizeof b);
	CHECK_STREQ(b, "194 us");
	fmt_time_ms(3.456, b, sizeof b);
	CHECK_STREQ(b, "3.46 ms");
	fmt_time_ms(2500, b, sizeof b);
	CHECK_STREQ(b, "2.50 s");
	fmt_bytes(4224, b, sizeof b);
	CHECK_STREQ(b, "4.1 KiB");
	fmt_bytes(268435456.0, b, sizeof b);
	CHECK_STREQ(b, "256.0 MiB");
	uint32_t d1[3] = { 256, 1, 1 }, d2[3] = { 32, 8, 1 }, d3[3] = { 4, 1, 2 };
	fmt_dims(b, sizeof b, d1);
	CHECK_STREQ(b, "256");
	fmt_dims(b, sizeof b, d2);
	CHECK_STREQ(b, "32x8");
	fmt_dims(b, sizeof b, d3);
	CHECK_STREQ(b, "4x1x2");
	out_format f;
	CHECK(format_parse("markdown", &f) == 0 && f == FMT_MARKDOWN);
	CHECK(format_parse("xml", &f) != 0);
}

TEST(chart)
{
	chart c;
	chart_init(&c, "speedup over reduce_global <v1> & co", "x");
	chart_add(&c, "reduce_global", 1.0, "baseline");
	chart_add(&c, "reduce_warp", 5.3, "faster");
	chart_add(&c, "broken \"one\"", 0.5, "FAIL");
	c.best = 1;
	c.baseline = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	chart_print(&c, m, 0, 0, 20);
	fclose(m);
	/* ASCII bars scaled to the largest: 20 cells for 5.3 */
	CHECK(strstr(buf, "reduce_warp    ####################  5.30 x  faster  <- best") != NULL);
	CHECK(strstr(buf, "reduce_global  ####                  1.00 x  baseline") != NULL);
	free(buf);
	const char *dir = getenv("WRITERS_OUT");
	char *path = xasprintf("%s/chart.svg", dir && *dir ? dir : "/tmp");
	char *err = NULL;
	CHECK(chart_svg(&c, path, &err) == 0);
	char *svg = NULL;
	CHECK(read_file(path, &svg, NULL) == 0);
	CHECK(svg && strncmp(svg, "<?xml", 5) == 0);
	CHECK(svg && strstr(svg, "&lt;v1&gt; &amp; co") != NULL);
	CHECK(svg && strstr(svg, "broken &quot;one&quot;") != NULL);
	CHECK(svg && strstr(svg, "(best)") != NULL);
	CHECK(svg && strstr(svg, "</svg>\n") != NULL);
	free(svg);
	if (!(dir && *dir))
		remove(path);
	free(path);
	chart_free(&c);
	/* a path that cannot be written is an error, not a crash */
	chart_init(&c, "t", "x");
	CHECK(chart_svg(&c, "/nonexistent-dir/x.svg", &err) != 0);
	CHECK(err && strstr(err, "cannot write '/nonexistent-dir/x.svg'") != NULL);
	free(err);
	chart_free(&c);
}

TEST(writers_to_files)
{
	const char *dir = getenv("WRITERS_OUT");
	if (!dir || !*dir)
		return;
	table t;
	sample_table(&t);
	static const struct { out_format f; const char *name; } w[] = {
		{ FMT_CSV, "t.csv" }, { FMT_JSON, "t.json" }, { FMT_MARKDOWN, "t.md" }, { FMT_JSONL, "t.jsonl" },
	};
	for (size_t i = 0; i < ARRAY_LEN(w); i++) {
		char *s = render(&t, w[i].f);
		char *path = xasprintf("%s/%s", dir, w[i].name);
		CHECK(write_file_atomic(path, s, strlen(s)) == 0);
		free(path);
		free(s);
	}
	/* two tables of two kinds in one document */
	table u;
	const char *head[] = { "file", "kernels" };
	table_init(&u, 2, head, "lr");
	table_kind(&u, "file");
	table_col(&u, 1, NULL, U_INT, COL_BOTH);
	table_set(&u, table_row(&u), 0, "transpose");
	table_num(&u, 0, 1, 3);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	doc d;
	doc_open(&d, m, FMT_JSON, 0, "1.0");
	doc_table(&d, &t, 0);
	doc_table(&d, &u, 0);
	doc_close(&d);
	fclose(m);
	char *path = xasprintf("%s/two.json", dir);
	CHECK(write_file_atomic(path, buf, len) == 0);
	free(path);
	free(buf);
	table_free(&u);
	table_free(&t);
}

/* A sweep's chart with long labels (a kernel and its values) and a best
 * within the noise of another: every word inside the picture; the tie said
 * on both bars, in the SVG and in the terminal. */
TEST(chart_fits)
{
	chart c;
	chart_init(&c, "kernels_src/transpose.cu: sweep of 6 configurations", "GB/s");
	const double gbps[] = { 2210, 3647, 3649, 1480, 2954, 2961 };
	const double noise[] = { 0.003, 0.003, 0.003, 0.003, 0.003, 0 };
	for (int i = 0; i < 6; i++) {
		char *l = xasprintf("transpose_tiled [TILE_SIZE=%d BLOCK_ROWS=8 PAD=%d N=8192]", i < 3 ? 32 : 16, i % 3);
		chart_add(&c, l, gbps[i], NULL);
		chart_noise(&c, noise[i]);
		free(l);
	}
	c.best = 2;
	CHECK(chart_tie(&c, 1) && !chart_tie(&c, 0) && !chart_tie(&c, 4) && !chart_tie(&c, 5) && !chart_tie(&c, 2));
	CHECK(chart_ties(&c) == 1);
	sbuf b = { 0 };
	chart_svg_text(&c, &b, 1);
	char why[512] = "";
	int fit = svg_texts_fit(b.s, why, sizeof why);
	CHECK(fit);
	if (!fit)
		fprintf(stderr, "  %s\n", why);
	CHECK(strstr(b.s, "3649 GB/s  (best, a tie)") != NULL);
	CHECK(strstr(b.s, "3647 GB/s  (tie for best: within the noise)") != NULL);
	const char *dir = getenv("WRITERS_OUT");
	if (dir && *dir) {
		char *path = xasprintf("%s/sweep.svg", dir);
		CHECK(write_file_atomic(path, b.s, b.len) == 0);
		free(path);
	}
	sb_free(&b);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	chart_print(&c, m, 0, 0, 20);
	fclose(m);
	CHECK(strstr(buf, "3649 GB/s  <- best, a tie\n") != NULL);
	CHECK(strstr(buf, "3647 GB/s  <- tie for best (within the noise)\n") != NULL);
	free(buf);
	/* apart by more than the noise: a best alone */
	c.values[1] = 3600;
	CHECK(chart_ties(&c) == 0);
	chart_free(&c);
	/* the estimate errs wide: capitals and W wider than digits, narrow letters narrowest */
	CHECK(svg_text_px("WWW", 10, 0) > svg_text_px("000", 10, 0));
	CHECK(svg_text_px("000", 10, 0) > svg_text_px("iii", 10, 0));
	CHECK(svg_text_px("ABC", 10, 1) > svg_text_px("ABC", 10, 0));
}

int main(void)
{
	RUN(text);
	RUN(csv);
	RUN(csv_stream);
	RUN(json);
	RUN(json_utf8);
	RUN(markdown);
	RUN(figures);
	RUN(chart);
	RUN(chart_fits);
	RUN(writers_to_files);
	return test_report("report");
}
