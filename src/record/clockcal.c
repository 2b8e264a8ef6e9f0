/* clockcal.c: the kernel clock's calibration record, its cache text and
 * its words. */
#include "clockcal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int positive_time(double us)
{
	return us > 0 && us < 1e6 && isfinite(us);
}

int clockcal_set(clock_cal *c, double kernel_us, double ref_us, int nref)
{
	memset(c, 0, sizeof *c);
	if (!positive_time(kernel_us) || !positive_time(ref_us) || nref < 1)
		return -1;
	c->kernel_us = kernel_us;
	c->ref_us = ref_us;
	c->offset_us = kernel_us - ref_us;
	c->nref = nref;
	c->known = 1;
	return 0;
}

int clockcal_disagrees(const clock_cal *c)
{
	return c->known && fabs(c->offset_us) > CLOCKCAL_LIMIT_US;
}

char *clockcal_format(const clock_cal *c)
{
	return xasprintf("cuplay clock 1\nkernel_us %.17g\nref_us %.17g\nnref %d\n", c->kernel_us, c->ref_us, c->nref);
}

int clockcal_parse(const char *text, clock_cal *c)
{
	memset(c, 0, sizeof *c);
	double k = 0, r = 0;
	int n = 0, used = 0;
	if (!text || sscanf(text, "cuplay clock 1\nkernel_us %lf\nref_us %lf\nnref %d\n%n", &k, &r, &n, &used) != 3 ||
	    used == 0 || text[used] != 0)
		return -1;
	return clockcal_set(c, k, r, n);
}

char *clockcal_text(const clock_cal *c)
{
	if (!c->known)
		return xstrdup("kernel clock: not checked (the profiler's duration could not be read)");
	if (!clockcal_disagrees(c))
		return xasprintf("kernel clock: %+.2f us against the profiler's duration (gpu__time_duration) for a "
		                 "4 us kernel (%.2f against %.2f us): within 1%% of it", c->offset_us, c->kernel_us, c->ref_us);
	return xasprintf("kernel clock: %+.2f us against the profiler's duration (gpu__time_duration) for a 4 us "
	                 "kernel (%.2f against %.2f us, %d readings); times under 50 us include it, not subtracted",
	                 c->offset_us, c->kernel_us, c->ref_us, c->nref);
}

char *clockcal_result(const clock_cal *c, double median_ms)
{
	if (!clockcal_disagrees(c) || !(median_ms > 0) || median_ms >= CLOCKCAL_SHORT_MS)
		return NULL;
	double us = median_ms * 1e3;
	return xasprintf("%+.2f us of %.2f us (%+.0f%%)", c->offset_us, us, 100 * c->offset_us / us);
}
