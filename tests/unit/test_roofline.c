/* test_roofline.c: the roofline of the tiling lesson (figures of an H100:
 * matmul at N=4096, DRAM bytes from the counters; a dot product with its
 * declared bytes), as text and as SVG against tests/golden/roofline/
 * (UPDATE=1 rewrites them; tests/run.sh parses the SVG with Python's XML
 * parser). */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "roofline.h"
#include "util.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	sbuf b = {0};
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		sb_printf(&b, "%.*s", (int)n, chunk);
	fclose(f);
	return sb_steal(&b);
}

static void golden(const char *path, const char *got)
{
	const char *up = getenv("UPDATE");
	if (up && strcmp(up, "1") == 0) {
		FILE *f = fopen(path, "w");
		CHECK(f != NULL);
		if (f) {
			fputs(got, f);
			fclose(f);
		}
	}
	char *want = slurp(path);
	CHECK(want != NULL);
	if (want && strcmp(got, want) != 0) {
		fprintf(stderr, "%s differs; got:\n%s", path, got);
		CHECK(0);
	}
	free(want);
}

static void tiling(roofline *r)
{
	roofline_init(r, "matmul.cu: roofline (NVIDIA H100 80GB HBM3)", 3300, 51000);
	double f = 2.0 * 4096 * 4096 * 4096;
	roofline_add(r, "matmul_naive", f / 1.2e9, 2500, 0);
	roofline_add(r, "matmul_tiled", f / 0.6e9, 9000, 0);
	roofline_add(r, "matmul_register_tiled", f / 0.26e9, 40400, 0);
	roofline_add(r, "dot_product", 0.25, 780, 1);
}

TEST(roof)
{
	roofline r;
	tiling(&r);
	CHECK(r.n == 4);
	CHECK_NEAR(roofline_roof(&r, 1), 3300, 1e-9);       /* on the slope */
	CHECK_NEAR(roofline_roof(&r, 1000), 51000, 1e-9);   /* under the flat top */
	CHECK_NEAR(roofline_roof(&r, 51000.0 / 3300), 51000, 1e-6); /* the ridge */
	/* a point that cannot be placed is left out */
	roofline_add(&r, "no flops", 0, 10, 0);
	roofline_add(&r, "no time", 1, NAN, 0);
	CHECK(r.n == 4);
	roofline_free(&r);
	roofline_init(&r, "none", 0, 0);
	CHECK(roofline_roof(&r, 1) == 0);
	roofline_free(&r);
}

TEST(text)
{
	roofline r;
	tiling(&r);
	sbuf b = {0};
	roofline_text(&r, &b, 60, 14);
	/* the letters in the order given, each in the legend with its share */
	CHECK(strstr(b.s, "A  matmul_naive") != NULL);
	CHECK(strstr(b.s, "D  dot_product: 0.25 FLOP/B (declared bytes), 780 GFLOP/s, 95% of the memory roof") != NULL);
	CHECK(strstr(b.s, "C  matmul_register_tiled") != NULL && strstr(b.s, "79% of the FP32 roof") != NULL);
	CHECK(strstr(b.s, "ridge at 15.5 FLOP/B") != NULL);
	golden("tests/golden/roofline/tiling.txt", b.s);
	sb_free(&b);
	/* the register-tiled point is above and right of the naive one */
	double an = r.pts[0].intensity, ar = r.pts[2].intensity;
	CHECK(ar > an && r.pts[2].gflops > r.pts[0].gflops);
	roofline_free(&r);
}

TEST(svg)
{
	roofline r;
	tiling(&r);
	sbuf b = {0};
	roofline_svg_text(&r, &b, 1);
	CHECK(strncmp(b.s, "<?xml", 5) == 0);
	CHECK(strstr(b.s, "<polyline") != NULL);
	int circles = 0;
	for (const char *p = b.s; (p = strstr(p, "<circle")); p++)
		circles++;
	CHECK(circles == 4);
	golden("tests/golden/roofline/tiling.svg", b.s);
	sb_free(&b);
	/* a title with XML's specials is escaped */
	roofline_free(&r);
	roofline_init(&r, "a < b & \"c\"", 100, 1000);
	roofline_svg_text(&r, &b, 0);
	CHECK(strstr(b.s, "a &lt; b &amp; &quot;c&quot;") != NULL);
	sb_free(&b);
	roofline_free(&r);
}

int main(void)
{
	RUN(roof);
	RUN(text);
	RUN(svg);
	return test_report("roofline");
}
