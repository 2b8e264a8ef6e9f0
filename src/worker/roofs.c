/* roofs.c: the figures a run is measured against, once per worker: the
 * device's copy roof and the host link's bandwidths. */
#include "roofs.h"

#include <stdlib.h>
#include <string.h>

/* The device-to-device copy roof, once per worker: 2 warm-ups, the median
 * of 5 timed copies, bytes read + written. A failure that is not sticky
 * leaves the roof at 0 and the run goes on. */
void measure_roof(wrun *r, wroofs *rf, const wtimer *tm)
{
	if (rf->roof_done)
		return;
	size_t fr = 0, tot = 0;
	CUresult e = cu.MemGetInfo(&fr, &tot);
	if (e != CUDA_SUCCESS) {
		if (cu_is_sticky(e))
			w_ck(r, e, "cuMemGetInfo");
		return;
	}
	size_t bytes = (size_t)(256 * MiB);
	while (bytes > 16 * MiB && 2 * (uint64_t)bytes + 256 * MiB > fr)
		bytes /= 2;
	if (2 * (uint64_t)bytes + 64 * MiB > fr)
		return; /* not now: try again on the next run */
	rf->roof_done = 1;
	CUdeviceptr a = 0, b = 0;
	const char *call = "cuMemAlloc";
	float ms[5];
	int nms = 0;
	if ((e = cu.MemAlloc(&a, bytes)) != CUDA_SUCCESS)
		goto out;
	if ((e = cu.MemAlloc(&b, bytes)) != CUDA_SUCCESS)
		goto out;
	call = "cuMemsetD8";
	if ((e = cu.MemsetD8(a, 1, bytes)) != CUDA_SUCCESS)
		goto out;
	for (int i = 0; i < 7; i++) {
		int timed = i >= 2;
		call = "cuEventRecord";
		if (timed && (e = cu.EventRecord(tm->ev0, NULL)) != CUDA_SUCCESS)
			goto out;
		call = "cuMemcpyDtoDAsync";
		if ((e = cu.MemcpyDtoDAsync(b, a, bytes, NULL)) != CUDA_SUCCESS)
			goto out;
		if (!timed)
			continue;
		call = "cuEventRecord";
		if ((e = cu.EventRecord(tm->ev1, NULL)) != CUDA_SUCCESS)
			goto out;
		call = "cuEventSynchronize";
		if ((e = cu.EventSynchronize(tm->ev1)) != CUDA_SUCCESS)
			goto out;
		call = "cuEventElapsedTime";
		if ((e = cu.EventElapsedTime(&ms[nms], tm->ev0, tm->ev1)) != CUDA_SUCCESS)
			goto out;
		nms++;
	}
	/* median of 5 */
	for (int i = 1; i < nms; i++)
		for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
			float t = ms[j];
			ms[j] = ms[j - 1];
			ms[j - 1] = t;
		}
	if (nms > 0 && ms[nms / 2] > 0)
		rf->roof_gbps = 2.0 * (double)bytes / ((double)ms[nms / 2] * 1e-3) / 1e9;
	e = CUDA_SUCCESS;
out:
	if (e != CUDA_SUCCESS && cu_is_sticky(e))
		w_fail(r, W_FATAL, "measuring the copy roof: %s failed: %s", call, cu_errstr(e));
	if (a)
		cu.MemFree(a);
	if (b)
		cu.MemFree(b);
}

/* The host link's bandwidths, once per worker: 64 MiB each way, from
 * pageable and from page-locked memory. A failure that is not sticky
 * leaves a figure at 0. */
void measure_link(wrun *r, wroofs *rf, const wtimer *tm)
{
	if (rf->link_done)
		return;
	rf->link_done = 1;
	size_t bytes = (size_t)(64 * MiB);
	CUdeviceptr d = 0;
	void *pinned = NULL, *pageable = NULL;
	CUresult e = cu.MemAlloc(&d, bytes);
	const char *call = "cuMemAlloc";
	if (e != CUDA_SUCCESS)
		goto out;
	call = "cuMemHostAlloc";
	if ((e = cu.MemHostAlloc(&pinned, bytes, 0)) != CUDA_SUCCESS)
		goto out;
	pageable = malloc(bytes);
	if (!pageable)
		goto out;
	memset(pageable, 1, bytes); /* the pages exist before they are timed */
	memset(pinned, 1, bytes);
	for (int k = 0; k < LINK_N; k++) {
		int h2d = k == LINK_H2D_PAGEABLE || k == LINK_H2D_PINNED;
		void *h = k == LINK_H2D_PINNED || k == LINK_D2H_PINNED ? pinned : pageable;
		float ms[3];
		for (int i = 0; i < 4; i++) { /* one warm-up, 3 timed */
			call = "cuEventRecord";
			if ((e = cu.EventRecord(tm->ev0, NULL)) != CUDA_SUCCESS)
				goto out;
			call = h2d ? "cuMemcpyHtoDAsync" : "cuMemcpyDtoHAsync";
			e = h2d ? cu.MemcpyHtoDAsync(d, h, bytes, NULL) : cu.MemcpyDtoHAsync(h, d, bytes, NULL);
			if (e != CUDA_SUCCESS)
				goto out;
			call = "cuEventRecord";
			if ((e = cu.EventRecord(tm->ev1, NULL)) != CUDA_SUCCESS)
				goto out;
			call = "cuEventSynchronize";
			if ((e = cu.EventSynchronize(tm->ev1)) != CUDA_SUCCESS)
				goto out;
			call = "cuEventElapsedTime";
			if (i > 0 && (e = cu.EventElapsedTime(&ms[i - 1], tm->ev0, tm->ev1)) != CUDA_SUCCESS)
				goto out;
		}
		float lo = ms[0] < ms[1] ? ms[0] : ms[1], hi = ms[0] < ms[1] ? ms[1] : ms[0];
		float med = ms[2] < lo ? lo : ms[2] > hi ? hi : ms[2];
		rf->link_gbps[k] = med > 0 ? (double)bytes / (med * 1e-3) / 1e9 : 0;
	}
	e = CUDA_SUCCESS;
out:
	if (e != CUDA_SUCCESS && cu_is_sticky(e))
		w_fail(r, W_FATAL, "measuring the host link: %s failed: %s", call, cu_errstr(e));
	if (d)
		cu.MemFree(d);
	if (pinned)
		cu.MemFreeHost(pinned);
	free(pageable);
}
