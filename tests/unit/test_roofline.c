/* test_roofline.c: the roofline of the tiling lesson (figures of an H100:
 * matmul at N=4096, DRAM bytes from the counters; a dot product with its
 * declared bytes), as text and as SVG against tests/golden/roofline/
 * (UPDATE=1 rewrites them; tests/run.sh parses the SVG with Python's XML
 * parser). */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "lab.h"
#include "measure.h"
#include "roofline.h"
#include "svgfit.h"
#include "util.h"

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
	CHECK_GOLDEN("tests/golden/roofline/tiling.txt", b.s);
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
	CHECK_GOLDEN("tests/golden/roofline/tiling.svg", b.s);
	sb_free(&b);
	/* a title with XML's specials is escaped */
	roofline_free(&r);
	roofline_init(&r, "a < b & \"c\"", 100, 1000);
	roofline_svg_text(&r, &b, 0);
	CHECK(strstr(b.s, "a &lt; b &amp; &quot;c&quot;") != NULL);
	sb_free(&b);
	roofline_free(&r);
}

/* The four tensor-core kernels of a Hopper GPU under their roofs: every
 * legend line inside the picture, the axes in units a person reads
 * ("1 PFLOP/s", never "1e+06"). */
TEST(svg_fits)
{
	roofline r;
	roofline_init(&r, "roofline: kernels_src/tensor.cu and tests/tensor/wmma_gemm.cu", 4496, 67000);
	roofline_set_tensor(&r, TP_FP16, 989000);
	roofline_set_tensor(&r, TP_BF16, 989000);
	roofline_set_tensor(&r, TP_TF32, 494000);
	roofline_set_tensor(&r, TP_INT8, 1979000);
	roofline_add_on(&r, "wmma_gemm [M=4096 N=4096 K=4096 BLOCK_M=128 BLOCK_N=128]", 140, 28000, 0, TP_FP16);
	roofline_add_on(&r, "mma_bf16_gemm [M=8192 N=8192 K=8192 STAGES=3]", 420, 310000, 0, TP_BF16);
	roofline_add_on(&r, "tf32_gemm [M=8192 N=8192 K=8192]", 300, 150000, 1, TP_TF32);
	roofline_add_on(&r, "int8_gemm [M=16384 N=16384 K=16384 SPLIT_K=4]", 900, 600000, 0, TP_INT8);
	sbuf b = {0};
	roofline_svg_text(&r, &b, 1);
	char why[512] = "";
	int fit = svg_texts_fit(b.s, why, sizeof why);
	CHECK(fit);
	if (!fit)
		fprintf(stderr, "  %s\n", why);
	CHECK(strstr(b.s, "e+") == NULL);
	CHECK(strstr(b.s, ">1 PFLOP/s</text>") != NULL && strstr(b.s, ">10 TFLOP/s</text>") != NULL);
	CHECK(strstr(b.s, "FP16 tensor 989 TFLOP/s") != NULL);
	const char *dir = getenv("WRITERS_OUT");
	if (dir && *dir) {
		char *path = xasprintf("%s/tensor_roofline.svg", dir);
		CHECK(write_file_atomic(path, b.s, b.len) == 0);
		free(path);
	}
	sb_free(&b);
	roofline_free(&r);
}

/* A record of matmul_tiled timed at 9 TFLOP/s with its DRAM bytes read by
 * the counters and explained; the lab report shows the diagnosis and the
 * roofline (SVG in HTML, text in Markdown). */
static void record(measurement *m, int counters)
{
	memset(m, 0, sizeof *m);
	m->file = xstrdup("matmul.cu");
	m->kernel = xstrdup("matmul_tiled");
	m->values = xstrdup("N=4096");
	m->launched = 1;
	m->flops = 2.0 * 4096 * 4096 * 4096;
	m->bytes = 3.0 * 4096 * 4096 * 4;
	double x[20];
	for (int i = 0; i < 20; i++)
		x[i] = m->flops / 9000e9 * 1e3;
	measure_set_samples(m, x, 20);
	if (counters) {
		m->nmet = 2;
		m->met_names = xcalloc(3, sizeof *m->met_names);
		m->met_values = xcalloc(3, sizeof *m->met_values);
		m->met_names[0] = xstrdup("dram_read");
		m->met_names[1] = xstrdup("dram_write");
		m->met_values[0] = 0.5e9;
		m->met_values[1] = 0.1e9;
	}
	explain_in in;
	explain_in_init(&in);
	in.counters = counters;
	in.median_ms = m->st.median;
	in.flops = m->flops;
	in.bytes = m->bytes;
	in.roof_gbps = 3300;
	in.roof_gflops = 51000;
	double sol[] = { 20, 40, 71, 55 };
	memcpy(in.sol, sol, sizeof sol);
	m->why = xcalloc(1, sizeof *m->why);
	explain_compute(&in, m->why);
}

TEST(place_and_report)
{
	measurement m;
	record(&m, 1);
	double ai = 0;
	int declared = -1;
	CHECK(roofline_place(&m, &ai, &declared) == 0);
	CHECK(declared == 0 && fabs(ai - m.flops / 0.6e9) < 1e-6);
	measure_free(&m);
	record(&m, 0); /* no counters: the declared bytes, said so */
	CHECK(roofline_place(&m, &ai, &declared) == 0);
	CHECK(declared == 1 && fabs(ai - m.flops / m.bytes) < 1e-6);
	m.flops = 0;
	CHECK(roofline_place(&m, &ai, &declared) == -1);
	measure_free(&m);

	record(&m, 1);
	lab_input in = { &m, 1, NULL, 0, "x", "now", NULL, 0, NULL, 3300, 51000, NULL, 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	lab_write(f, LAB_HTML, &in);
	fclose(f);
	CHECK(strstr(buf, "What limits each kernel") != NULL);
	CHECK(strstr(buf, "memory-bound: l1 at 71% of its peak") != NULL);
	CHECK(strstr(buf, "<polyline") != NULL && strstr(buf, "matmul_tiled: 5.73e+03 FLOP/B") == NULL);
	CHECK(strstr(buf, "A  matmul_tiled: 229 FLOP/B, 9000 GFLOP/s") != NULL);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	lab_write(f, LAB_MARKDOWN, &in);
	fclose(f);
	CHECK(strstr(buf, "### Roofline") != NULL && strstr(buf, "  A  matmul_tiled") != NULL);
	free(buf);
	measure_free(&m);
}

int main(void)
{
	RUN(place_and_report);
	RUN(roof);
	RUN(text);
	RUN(svg);
	RUN(svg_fits);
	return test_report("roofline");
}
