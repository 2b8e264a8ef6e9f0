/* wreply.c: stage 6 of a request: the run's end and its RESULT. */
#include "wreply.h"

#include <stdlib.h>
#include <string.h>

#include "wlock.h"

void reply_stage(wrun *r, wpool *pool, wprintf *pf, wkernels *k, wstaging *sg, const wroofs *rf)
{
	result *res = r->res;
	pool_early_free(pool); /* those no buffer took: the run failed before its buffers */
	w_gpu_unlock();
	pf_finish(r, pf);
	if (k->have_mod)
		cu.ModuleUnload(k->mod);
	if (k->have_first)
		cu.ModuleUnload(k->first_mod);
	k->have_mod = k->have_first = 0;
	stage_trim(sg);
	res->roof_gbps = rf->roof_gbps;
	memcpy(res->link_gbps, rf->link_gbps, sizeof res->link_gbps);
	res->launch_ms = ms_since(r->t0);
	w_trace(r, "request done");
}

int reply_send(wchan *c, const result *res)
{
	int rc = wire_send(c->wfd, MSG_RESULT, res, sizeof *res, c->extra, c->extra_len) == 0 ? 0 : -1;
	free(c->extra);
	c->extra = NULL;
	c->extra_len = 0;
	return rc;
}
