/* test_timeline.c: the timeline renderer on activity data: spans as CUPTI's
 * memcpy and concurrent-kernel records give them (the GPU's ns timestamps,
 * stream ids, bytes), in tests/unit/timeline/NAME.spans, one a line:
 * KIND STREAM START END BYTES, KIND one of K (kernel), H (copy in), D (copy
 * out), C (another copy). The text drawn is compared with NAME.txt there
 * (UPDATE=1 rewrites it); with WRITERS_OUT set, the SVG of each is written
 * there for tests/run.sh to parse with Python's XML parser. */
#include "lab.h"
#include "timeline.h"
#include "test.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

#define DIR "tests/unit/timeline/"

static int load(const char *name, tl_span *s, int max)
{
	char path[256];
	snprintf(path, sizeof path, DIR "%s.spans", name);
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	if (!f)
		return 0;
	int n = 0;
	char k;
	unsigned st;
	unsigned long long a, b, bytes;
	while (n < max && fscanf(f, " %c %u %llu %llu %llu", &k, &st, &a, &b, &bytes) == 5) {
		s[n] = (tl_span){ k == 'K' ? SPAN_KERNEL : k == 'H' ? SPAN_H2D : k == 'D' ? SPAN_D2H : SPAN_COPY, st, a, b,
		                  bytes };
		n++;
	}
	fclose(f);
	return n;
}

/* The text of NAME against its golden file; its SVG written for run.sh. */
static void golden(const char *name, const tl_span *s, int n)
{
	sbuf b = {0};
	tl_text(s, n, name, 80, &b);
	char path[256];
	snprintf(path, sizeof path, DIR "%s.txt", name);
	CHECK_GOLDEN(path, b.s);
	/* every line fits 80 columns */
	int col = 0, widest = 0;
	for (const char *p = b.s; *p; p++) {
		col = *p == '\n' ? 0 : col + 1;
		widest = col > widest ? col : widest;
	}
	CHECK(widest <= 80);
	sb_free(&b);
	const char *dir = getenv("WRITERS_OUT");
	if (dir) {
		sbuf svg = {0};
		tl_svg(s, n, name, 1, &svg);
		snprintf(path, sizeof path, "%s/timeline_%s.svg", dir, name);
		FILE *f = fopen(path, "w");
		CHECK(f != NULL);
		if (f) {
			fputs(svg.s, f);
			fclose(f);
		}
		sb_free(&svg);
	}
}

static tl_span spans[4096];

TEST(serial)
{
	int n = load("serial", spans, 4096);
	CHECK(n == 3);
	tl_stats st;
	tl_compute(spans, n, &st);
	/* copy in, kernel, copy out, one after the other: nothing hidden */
	CHECK(st.nstreams == 1 && st.nkernels == 1 && st.ncopies[0] == 1 && st.ncopies[1] == 1);
	CHECK_NEAR(st.overlap, 0, 1e-12);
	CHECK(st.ngaps == 2); /* between the copy in and the kernel, the kernel and the copy out */
	golden("serial", spans, n);
}

TEST(streams4)
{
	int n = load("streams4", spans, 4096);
	CHECK(n == 12);
	tl_stats st;
	tl_compute(spans, n, &st);
	CHECK(st.nstreams == 4 && st.nkernels == 4);
	/* the first copy in and the last copy out have no kernel beside them;
	 * most of the rest runs under one */
	CHECK(st.overlap > 0.5 && st.overlap < 0.9);
	CHECK(st.hidden_ms <= st.copy_ms);
	tl_stats serial;
	int ns = load("serial", spans + n, 4096 - n);
	tl_compute(spans + n, ns, &serial);
	CHECK(st.span_ms < 0.75 * serial.span_ms); /* the same work, overlapped */
	golden("streams4", spans, n);
}

TEST(vadd3)
{
	int n = load("vadd3", spans, 4096);
	CHECK(n == 12);
	tl_stats st;
	tl_compute(spans, n, &st);
	CHECK(st.nstreams == 3 && st.ncopies[0] == 6 && st.ncopies[1] == 3);
	CHECK_NEAR(st.bytes[0], 2.0 * 64 * 1048576 - 2 * (64 * 1048576 % 3), 1);
	golden("vadd3", spans, n);
}

TEST(batch)
{
	int n = load("batch20", spans, 4096);
	CHECK(n == 20);
	tl_stats st;
	tl_compute(spans, n, &st);
	/* back-to-back launches: 19 gaps between 20 kernels, no copies */
	CHECK(st.nkernels == 20 && st.ngaps == 19 && st.overlap == -1);
	CHECK_NEAR(st.gap_max_ms, 0.0017, 1e-9);
	CHECK_NEAR(st.idle_ms, 19 * 0.0017, 1e-9);
	golden("batch20", spans, n);
}

TEST(edges)
{
	tl_stats st;
	tl_compute(NULL, 0, &st);
	CHECK(st.nstreams == 0 && st.overlap == -1 && st.span_ms == 0);
	sbuf b = {0};
	tl_text(NULL, 0, "nothing", 80, &b);
	CHECK_STREQ(b.s, "timeline of nothing\n  nothing recorded\n");
	sb_free(&b);
	/* a copy entirely under a kernel of another stream, one half under */
	tl_span s[] = {
		{ SPAN_KERNEL, 1, 100, 200, 0 },
		{ SPAN_H2D, 2, 120, 180, 10 },
		{ SPAN_D2H, 3, 150, 250, 10 },
		{ SPAN_KERNEL, 1, 300, 301, 0 }, /* shorter than a column: still drawn */
	};
	tl_compute(s, 4, &st);
	CHECK_NEAR(st.hidden_ms, (60 + 50) * 1e-6, 1e-15);
	CHECK_NEAR(st.overlap, 110.0 / 160.0, 1e-12);
	CHECK(st.ngaps == 1);
	CHECK_NEAR(st.idle_ms, 50e-6, 1e-15);
	tl_text(s, 4, "a<b>", 60, &b);
	CHECK(strstr(b.s, "#|\n") != NULL); /* the last column holds the short kernel */
	sb_free(&b);
	tl_svg(s, 4, "a<b>&c", 1, &b);
	CHECK(strstr(b.s, "a&lt;b&gt;&amp;c") != NULL);
	sb_free(&b);
}

/* the lab report carries the last timeline: inline SVG in HTML, the text in Markdown */
TEST(lab_report)
{
	int n = load("streams4", spans, 4096);
	for (int html = 0; html < 2; html++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		lab_input in = { NULL, 0, NULL, 0, "0", "now", spans, n, "saxpy_iter STREAMS=4", 0, 0, NULL, 0 };
		lab_write(f, html ? LAB_HTML : LAB_MARKDOWN, &in);
		fclose(f);
		CHECK(buf && strstr(buf, "Timeline") != NULL);
		if (html) {
			CHECK(strstr(buf, "<figure>\n<svg xmlns") != NULL && strstr(buf, "<?xml") == NULL);
			CHECK(strstr(buf, "timeline of saxpy_iter STREAMS=4") != NULL);
		} else {
			CHECK(strstr(buf, "  stream 13 |>>>") != NULL && strstr(buf, "overlap: 73%") != NULL);
		}
		free(buf);
	}
}

int main(void)
{
	RUN(serial);
	RUN(streams4);
	RUN(vadd3);
	RUN(batch);
	RUN(edges);
	RUN(lab_report);
	return test_report("timeline");
}
