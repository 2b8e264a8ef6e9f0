/* roofline.h: kernels placed by arithmetic intensity (flops per byte of
 * device memory) and achieved GFLOP/s under two roofs: the memory roof's
 * slope (GB/s x intensity) and the FP32 roof's flat top, on log-log axes.
 * A coarse chart in the terminal and an SVG file. Pure: it draws what it
 * is given. */
#ifndef CUPLAY_ROOFLINE_H
#define CUPLAY_ROOFLINE_H

struct sbuf;
struct measurement;

typedef struct roof_point {
	char *label;        /* "matmul_tiled [N=4096]" */
	double intensity;   /* flops / DRAM bytes */
	double gflops;
	int declared;       /* the bytes are the file's declared ones, not the counters' */
} roof_point;

typedef struct roofline {
	char *title;
	double mem_gbps;    /* the memory roof; 0 unknown */
	double fp32_gflops; /* the FMA roof; 0 unknown */
	int n;
	roof_point *pts;
} roofline;

void roofline_init(roofline *r, const char *title, double mem_gbps, double fp32_gflops);
void roofline_add(roofline *r, const char *label, double intensity, double gflops, int declared);
void roofline_free(roofline *r);

/* Where a record goes: its arithmetic intensity (declared flops over the
 * DRAM bytes its counters read, else over its declared bytes: *declared
 * 1). 0 when it can be placed (timed, flops and bytes known), else -1. */
int roofline_place(const struct measurement *m, double *intensity, int *declared);

/* The roof at intensity x: min(mem x, fp32); 0 unknown. */
double roofline_roof(const roofline *r, double x);

/* A width x height character chart (axes and labels around it) with the
 * points lettered A, B, ... and a legend: each point's intensity, GFLOP/s
 * and share of the roof above it. */
void roofline_text(const roofline *r, struct sbuf *b, int width, int height);
/* The SVG text: with the XML declaration (a file of its own) or without
 * (inline, in an HTML page). */
void roofline_svg_text(const roofline *r, struct sbuf *b, int standalone);
/* Writes the SVG file. 0, or -1 with *err. */
int roofline_svg(const roofline *r, const char *path, char **err);

#endif
