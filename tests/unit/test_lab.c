/* test_lab.c: the lab report's results and counters tables: a row per timed
 * run (a `metrics` run adds its counters, not a row of empty times), each
 * counter once under its short name, its raw ncu metric as the tooltip (a
 * note in Markdown). */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "measure.h"
#include "util.h"

static void timed(measurement *m, const char *k, double ms)
{
	memset(m, 0, sizeof *m);
	m->file = xstrdup("kernels_src/reduce.cu");
	m->kernel = xstrdup(k);
	m->values = xstrdup("N=16777216");
	m->command = xstrdup("run");
	m->launched = 1;
	double x[12];
	for (int i = 0; i < 12; i++)
		x[i] = ms * (1 + 0.001 * (i % 3));
	measure_set_samples(m, x, 12);
}

/* as `metrics K dram_read reduction_requests` keeps it: the figures, then
 * the raw counters they came from */
static void counted(measurement *m, const char *k, double red)
{
	memset(m, 0, sizeof *m);
	m->file = xstrdup("kernels_src/reduce.cu");
	m->kernel = xstrdup(k);
	m->values = xstrdup("N=16777216");
	m->command = xstrdup("metrics reduce_global reduce_warp dram_read reduction_requests");
	m->launched = 1;
	const char *names[] = { "dram_read", "reduction_requests", "dram__bytes_read.sum",
		                "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum" };
	double vals[] = { 6.7e7, red, 6.7e7, red };
	m->nmet = 4;
	m->met_names = xcalloc(5, sizeof *m->met_names);
	m->met_values = xcalloc(5, sizeof *m->met_values);
	for (int i = 0; i < 4; i++) {
		m->met_names[i] = xstrdup(names[i]);
		m->met_values[i] = vals[i];
	}
}

static char *write(const measurement *r, int n, lab_format fmt)
{
	lab_input in = { r, n, NULL, 0, "x", "now", NULL, 0, NULL, 0, 0, NULL, 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	lab_write(f, fmt, &in);
	fclose(f);
	return buf;
}

static int count(const char *from, const char *to, const char *what)
{
	int n = 0;
	size_t l = strlen(what);
	for (const char *p = strstr(from, what); p && (!to || p < to); p = strstr(p + l, what))
		n++;
	return n;
}

TEST(rows_and_counters)
{
	measurement r[4];
	timed(&r[0], "reduce_global", 2.0);
	timed(&r[1], "reduce_warp", 0.5);
	counted(&r[2], "reduce_global", 1.6e7);
	counted(&r[3], "reduce_warp", 4096);
	char *h = write(r, 4, LAB_HTML);
	const char *res = strstr(h, "<h3>Results</h3>");
	CHECK(res != NULL);
	const char *end = res ? strstr(res, "</table>") : NULL;
	/* the header row and one row per timed run */
	CHECK(res && end && count(res, end, "<tr>") == 1 + 2);
	CHECK(res && end && count(res, end, "metrics reduce_global") == 0);
	const char *ctr = strstr(h, "<h3>Hardware counters</h3>");
	CHECK(ctr != NULL);
	if (ctr) {
		const char *cend = strstr(ctr, "</table>");
		CHECK(count(ctr, cend, "<tr>") == 1 + 2); /* dram_read, reduction_requests */
		CHECK(count(ctr, cend, "<td title=\"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum\">reduction_requests</td>") == 1);
		CHECK(count(ctr, cend, "<td title=\"dram__bytes_read.sum\">dram_read</td>") == 1);
		CHECK(count(ctr, cend, ">l1tex__") == 0 && count(ctr, cend, ">dram__") == 0);
		CHECK(count(ctr, cend, ">1.6e+07<") == 1 && count(ctr, cend, ">4096<") == 1);
	}
	free(h);
	char *m = write(r, 4, LAB_MARKDOWN);
	CHECK(strstr(m, "| reduction_requests | 1.6e+07 | 4096 |") != NULL);
	CHECK(strstr(m, "Raw ncu metrics: dram_read: dram__bytes_read.sum; reduction_requests: "
	                "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum.") != NULL);
	CHECK(count(m, NULL, "| metrics reduce_global") == 0);
	free(m);
	for (int i = 0; i < 4; i++)
		measure_free(&r[i]);
}

/* A raw name that no figure shows is a row of its own, by that name; one a
 * run typed by hand that a figure shows (an older record) comes under the
 * figure's short name. */
TEST(raw_names)
{
	measurement r[2];
	counted(&r[0], "reduce_global", 10);
	timed(&r[1], "reduce_warp", 0.5);
	measure_free(&r[1]);
	memset(&r[1], 0, sizeof r[1]);
	r[1].file = xstrdup("kernels_src/reduce.cu");
	r[1].kernel = xstrdup("reduce_warp");
	r[1].values = xstrdup("N=1");
	r[1].launched = 1;
	r[1].nmet = 2;
	r[1].met_names = xcalloc(3, sizeof *r[1].met_names);
	r[1].met_values = xcalloc(3, sizeof *r[1].met_values);
	r[1].met_names[0] = xstrdup("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum");
	r[1].met_names[1] = xstrdup("sm__cycles_elapsed.avg");
	r[1].met_values[0] = 7;
	r[1].met_values[1] = 99;
	char *h = write(r, 2, LAB_HTML);
	const char *ctr = strstr(h, "<h3>Hardware counters</h3>");
	CHECK(ctr != NULL);
	if (ctr) {
		const char *cend = strstr(ctr, "</table>");
		CHECK(count(ctr, cend, ">reduction_requests</td>") == 1);
		CHECK(count(ctr, cend, "<tr><td>sm__cycles_elapsed.avg</td>") == 1);
		CHECK(count(ctr, cend, ">7<") == 1 && count(ctr, cend, ">10<") == 1);
	}
	/* no timed run: no result rows, the header alone */
	const char *res = strstr(h, "<h3>Results</h3>");
	CHECK(res && count(res, strstr(res, "</table>"), "<tr>") == 1);
	free(h);
	for (int i = 0; i < 2; i++)
		measure_free(&r[i]);
}

/* The Markdown stays Markdown: a kernel's comment with backquotes never
 * closes its code block, a file name's marks and control bytes are
 * escaped in its heading. */
TEST(markdown_escapes)
{
	char dir[] = "/tmp/cuplay-lab-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *path = xasprintf("%s/a*b_c[x]\n<i>.cu", dir);
	const char *src = "__global__ void k(float *y)\n{\n\t// ```\n\t// ````` </code><script>x</script>\n"
	                  "\ty[0] = 1;\n}\n";
	CHECK(write_file_atomic(path, src, strlen(src)) == 0);
	measurement r;
	timed(&r, "k", 1.0);
	free(r.file);
	r.file = xstrdup(path);
	char *m = write(&r, 1, LAB_MARKDOWN);
	char *want = xasprintf("## %s/a\\*b_c\\[x\\]\\\\x0a\\<i\\>.cu\n", dir);
	CHECK(strstr(m, want) != NULL);
	free(want);
	/* six backquotes around a text whose longest run is five */
	CHECK(strstr(m, "\n``````cuda\n__global__ void k(float *y)\n") != NULL);
	CHECK(strstr(m, "\ty[0] = 1;\n}\n``````\n") != NULL);
	free(m);
	measure_free(&r);
	remove(path);
	remove(dir);
	free(path);
}

int main(void)
{
	RUN(rows_and_counters);
	RUN(raw_names);
	RUN(markdown_escapes);
	return test_report("lab");
}
