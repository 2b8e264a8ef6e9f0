/* roofline.h: kernels placed by arithmetic intensity (flops per byte of
 * device memory) and achieved GFLOP/s under their roofs: the memory roof's
 * slope (GB/s x intensity) and a flat top per pipe, the FP32 roof's and
 * one per tensor precision a placed kernel runs on, on log-log axes; each
 * kernel under the roof of its own pipe.
 * A coarse chart in the terminal and an SVG file. Pure: it draws what it
 * is given. */
#ifndef CUPLAY_ROOFLINE_H
#define CUPLAY_ROOFLINE_H

#include "tensor.h"

struct sbuf;
struct measurement;

typedef struct roof_point {
	char *label;        /* "matmul_tiled [N=4096]" */
	double intensity;   /* flops / DRAM bytes */
	double gflops;
	int declared;       /* the bytes are the file's declared ones, not the counters' */
	int pipe;           /* tensor.h's tensor_prec, or PIPE_FP32 */
} roof_point;

typedef struct roofline {
	char *title;
	double mem_gbps;    /* the memory roof; 0 unknown */
	double fp32_gflops; /* the FMA roof; 0 unknown */
	double tensor[TP_N]; /* the tensor roofs by precision; 0 unknown */
	int n;
	roof_point *pts;
} roofline;

void roofline_init(roofline *r, const char *title, double mem_gbps, double fp32_gflops);
void roofline_add(roofline *r, const char *label, double intensity, double gflops, int declared);
/* The same for a kernel on pipe `pipe` (a tensor precision: under that
 * precision's roof where it is known, else the FP32 roof's). */
void roofline_add_on(roofline *r, const char *label, double intensity, double gflops, int declared, int pipe);
/* The tensor roof of precision p (GFLOP/s). */
void roofline_set_tensor(roofline *r, int p, double gflops);
/* The flat top over a kernel of pipe p: its tensor roof, else FP32's; 0 unknown. */
double roofline_top(const roofline *r, int pipe);
/* The roof at intensity x over a kernel of pipe p: min(mem x, its top). */
double roofline_roof_on(const roofline *r, double x, int pipe);
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
