/* roofs.h: the copy roof and the host link, measured once per worker. */
#ifndef CUPLAY_ROOFS_H
#define CUPLAY_ROOFS_H

#include "timer.h"

typedef struct wroofs {
	int roof_done;
	double roof_gbps;
	int link_done;         /* the host link measured (link_gbps) */
	double link_gbps[LINK_N];
} wroofs;

/* The device-to-device copy roof: 2 warm-ups, the median of 5 timed
 * copies. A failure that is not sticky leaves it at 0. */
void measure_roof(wrun *r, wroofs *rf, const wtimer *tm);
void measure_link(wrun *r, wroofs *rf, const wtimer *tm);

#endif
