/* clockcal.h: the kernel clock checked against an independent one. At a
 * device's first use a calibration kernel (a spin of a known 4 us on every
 * SM) is timed by the kernel clock (CUPTI's kernel records, as every run
 * is) and by the profiler's own duration (gpu__time_duration, what Nsight
 * Compute reports), and the difference is kept beside the roofs. Where it
 * is more than 1% of a 4 us kernel, `device`, `roof` and results under
 * 50 us say so, with the offset in microseconds; the data formats carry it
 * as a field. Nothing is subtracted: the offset is the calibration
 * kernel's, and no test has shown that it holds for kernels of other
 * sizes. This file: the record, its text in the cache, and its words. */
#ifndef CUPLAY_CLOCKCAL_H
#define CUPLAY_CLOCKCAL_H

#define CLOCKCAL_LIMIT_US 0.04   /* 1% of a 4 us kernel */
#define CLOCKCAL_SHORT_MS 0.05   /* results under 50 us say so */

typedef struct clock_cal {
	int known;          /* 1: measured or loaded */
	double kernel_us;   /* the calibration kernel by the kernel clock (median of its samples) */
	double ref_us;      /* by the profiler's gpu__time_duration (median of its readings) */
	double offset_us;   /* kernel_us - ref_us */
	int nref;           /* the profiler's readings */
} clock_cal;

/* Fills the offset from the two readings: 0, or -1 when either is not a
 * positive time (the record is then unknown). */
int clockcal_set(clock_cal *c, double kernel_us, double ref_us, int nref);

/* 1 when known and the two clocks differ by more than CLOCKCAL_LIMIT_US. */
int clockcal_disagrees(const clock_cal *c);

/* The cache entry's text: "cuplay clock 1\nkernel_us ...\nref_us ...\nnref N\n". */
char *clockcal_format(const clock_cal *c);
/* Reads an entry: 0 and *c known, or -1 (not one this version wrote in
 * full, a value out of range, figures that do not add up): measured again. */
int clockcal_parse(const char *text, clock_cal *c);

/* For `device` and `roof`: "kernel clock: +0.92 us against the
 * profiler's duration (a 4 us kernel: 5.01 against 4.09 us, 5 readings);
 * times under 50 us include it, not subtracted", or "... within 1% of a
 * 4 us kernel". Caller frees. */
char *clockcal_text(const clock_cal *c);

/* For a result of median_ms timed by the kernel clock: "+0.92 us of
 * 9.21 us (+11%)" when the calibration disagrees and the result is under
 * 50 us, else NULL. Caller frees. */
char *clockcal_result(const clock_cal *c, double median_ms);

#endif
