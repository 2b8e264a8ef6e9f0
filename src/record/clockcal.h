/* clockcal.h: the kernel clock checked against an independent one. At a
 * device's first use two calibration kernels of about 4 us, a spin on
 * every SM (time alone) and a copy (memory), are timed by the kernel clock
 * (CUPTI's kernel records, as every run is) and by the profiler's own
 * duration (gpu__time_duration, what Nsight Compute reports), and the
 * differences are kept beside the roofs. Where both kernels differ by more
 * than 1% of a 4 us kernel in the same direction, `device`, `roof` and
 * results under 50 us say so, with the smaller of the two offsets in
 * microseconds; the data formats carry it as a field. Nothing is
 * subtracted: the two kernels are not every kernel. This file: the record,
 * its text in the cache, and its words. */
#ifndef CUPLAY_CLOCKCAL_H
#define CUPLAY_CLOCKCAL_H

#define CLOCKCAL_LIMIT_US 0.04   /* 1% of a 4 us kernel */
#define CLOCKCAL_SHORT_MS 0.05   /* results under 50 us say so */

enum { CAL_SPIN, CAL_COPY, CAL_N };

typedef struct clock_cal {
	int known;                /* 1: measured or loaded */
	double kernel_us[CAL_N];  /* each calibration kernel by the kernel clock (median of its samples) */
	double ref_us[CAL_N];     /* by the profiler's gpu__time_duration (median of its readings) */
	int nref;                 /* the profiler's readings of each */
	double offset_us;         /* what both showed: the smaller offset where they agree in
	                             sign, else 0 (clockcal_set) */
} clock_cal;

/* Fills the record from the readings (kernel clock and profiler, us, of
 * the spin and the copy): 0, or -1 when one is not a positive time (the
 * record is then unknown). */
int clockcal_set(clock_cal *c, const double *kernel_us, const double *ref_us, int nref);

/* The kernel clock less the profiler for calibration kernel i. */
double clockcal_offset(const clock_cal *c, int i);

/* 1 when known and both kernels read more than CLOCKCAL_LIMIT_US apart
 * from the profiler, in the same direction. */
int clockcal_disagrees(const clock_cal *c);

/* The cache entry's text: "cuplay clock 2\nspin_us K R\ncopy_us K R\nnref N\n". */
char *clockcal_format(const clock_cal *c);
/* Reads an entry: 0 and *c known, or -1 (not one this version wrote in
 * full, a value out of range): measured again. */
int clockcal_parse(const char *text, clock_cal *c);

/* For `device` and `roof`: "kernel clock against the profiler's duration:
 * +0.92 us for a 4 us spin (5.01 against 4.09 us), +0.90 us for a copy
 * (...): times under 50 us include about +0.90 us, not subtracted", or
 * "...: within 1% of a 4 us kernel for the copy: results are not flagged".
 * Caller frees. */
char *clockcal_text(const clock_cal *c);

/* For a result of median_ms timed by the kernel clock: "+0.90 us of
 * 9.21 us (+10%)" when the calibration disagrees and the result is under
 * 50 us, else NULL. Caller frees. */
char *clockcal_result(const clock_cal *c, double median_ms);

#endif
