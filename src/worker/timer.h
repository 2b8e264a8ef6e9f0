/* timer.h: the event pair every timing uses, and the L2 flush. */
#ifndef CUPLAY_TIMER_H
#define CUPLAY_TIMER_H

#include "wrun.h"

typedef struct wtimer {
	CUevent ev0, ev1;      /* made with the context (timer_events) */
	CUdeviceptr flush;     /* L2 flush scratch, allocated on first need */
	size_t flush_bytes;
	CUmodule flush_mod;    /* the read-only flush kernel (flush_l2) */
	CUfunction flush_fn;
	int have_flush_fn;
	int sm_count, l2_bytes; /* the device's */
} wtimer;

/* The event pair, once the context is current. */
CUresult timer_events(wtimer *tm);
void timer_free(wtimer *tm);
/* The flush buffer (twice the L2) and its kernel, made once. */
int ensure_flush(wrun *r, wtimer *tm);
/* A cold L2: the flush buffer read (n: a memset's byte, if the kernel
 * cannot be had), queued on the legacy stream. */
CUresult flush_l2(wtimer *tm, int n);

#endif
