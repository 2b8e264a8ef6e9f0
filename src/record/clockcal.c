/* clockcal.c: the kernel clock's calibration record, its cache text and
 * its words. */
#include "clockcal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const cal_name[CAL_N] = { "spin", "copy" };

static int positive_time(double us)
{
	return us > 0 && us < 1e6 && isfinite(us);
}

double clockcal_offset(const clock_cal *c, int i)
{
	return c->kernel_us[i] - c->ref_us[i];
}

int clockcal_set(clock_cal *c, const double *kernel_us, const double *ref_us, int nref)
{
	memset(c, 0, sizeof *c);
	for (int i = 0; i < CAL_N; i++)
		if (!positive_time(kernel_us[i]) || !positive_time(ref_us[i]))
			return -1;
	if (nref < 1)
		return -1;
	memcpy(c->kernel_us, kernel_us, sizeof c->kernel_us);
	memcpy(c->ref_us, ref_us, sizeof c->ref_us);
	c->nref = nref;
	double a = clockcal_offset(c, CAL_SPIN), b = clockcal_offset(c, CAL_COPY);
	c->offset_us = (a > 0) == (b > 0) ? (fabs(a) < fabs(b) ? a : b) : 0;
	c->known = 1;
	return 0;
}

int clockcal_disagrees(const clock_cal *c)
{
	return c->known && fabs(c->offset_us) > CLOCKCAL_LIMIT_US;
}

char *clockcal_format(const clock_cal *c)
{
	sbuf b = { 0 };
	sb_puts(&b, "cuplay clock 2\n");
	for (int i = 0; i < CAL_N; i++)
		sb_printf(&b, "%s_us %.17g %.17g\n", cal_name[i], c->kernel_us[i], c->ref_us[i]);
	sb_printf(&b, "nref %d\n", c->nref);
	return sb_steal(&b);
}

int clockcal_parse(const char *text, clock_cal *c)
{
	memset(c, 0, sizeof *c);
	double k[CAL_N], r[CAL_N];
	int n = 0, used = 0;
	if (!text || sscanf(text, "cuplay clock 2\nspin_us %lf %lf\ncopy_us %lf %lf\nnref %d\n%n", &k[0], &r[0], &k[1],
	                    &r[1], &n, &used) != 5 ||
	    used == 0 || text[used] != 0)
		return -1;
	return clockcal_set(c, k, r, n);
}

char *clockcal_text(const clock_cal *c)
{
	if (!c->known)
		return xstrdup("kernel clock: not checked");
	sbuf b = { 0 };
	sb_puts(&b, "kernel clock against the profiler's duration (gpu__time_duration):");
	for (int i = 0; i < CAL_N; i++)
		sb_printf(&b, "%s %+.2f us for a %s (%.2f against %.2f us)", i ? "," : "", clockcal_offset(c, i),
		          i == CAL_SPIN ? "4 us spin" : "copy of 4 MiB", c->kernel_us[i], c->ref_us[i]);
	if (clockcal_disagrees(c))
		sb_printf(&b, ": times under 50 us include about %+.2f us, not subtracted", c->offset_us);
	else
		sb_puts(&b, ": within 1% of a 4 us kernel for one of them at least; results are not flagged");
	return sb_steal(&b);
}

char *clockcal_result(const clock_cal *c, double median_ms)
{
	if (!clockcal_disagrees(c) || !(median_ms > 0) || median_ms >= CLOCKCAL_SHORT_MS)
		return NULL;
	double us = median_ms * 1e3;
	return xasprintf("%+.2f us of %.2f us (%+.0f%%)", c->offset_us, us, 100 * c->offset_us / us);
}
