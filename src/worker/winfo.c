/* winfo.c: an info-only request's stage, in place of buffers, fill, check
 * and time. */
#include "winfo.h"

#include <string.h>

/* `info`: the function's attributes and the occupancy API's answers for the
 * planned launch. A query the driver does not offer stays unknown. */
int info_stage(wrun *r, const wkernels *k, nvml_dev *nvml)
{
	const plan_launch *l = &r->p->launch;
	func_info *fi = &r->res->fn;
	memset(fi, 0, sizeof *fi);
	fi->occ_blocks = -1;
	if (cu.FuncGetAttribute) {
		static const int attrs[] = { CU_FUNC_ATTRIBUTE_NUM_REGS, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
		                             CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,
		                             CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK };
		int32_t *dst[] = { &fi->regs, &fi->static_smem, &fi->local_bytes, &fi->const_bytes, &fi->max_threads };
		for (size_t i = 0; i < ARRAY_LEN(attrs); i++) {
			int v = 0;
			if (w_ck(r, cu.FuncGetAttribute(&v, attrs[i], k->fn), "cuFuncGetAttribute") != 0)
				return -1;
			*dst[i] = v;
		}
		fi->known = 1;
	}
	int threads = (int)(l->block[0] * l->block[1] * l->block[2]);
	if (cu.OccupancyMaxActiveBlocksPerMultiprocessor) {
		int blocks = 0;
		CUresult e = cu.OccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k->fn, threads, l->smem);
		if (e == CUDA_SUCCESS)
			fi->occ_blocks = blocks;
		else if (cu_is_sticky(e))
			w_ck(r, e, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
	}
	if (cu.OccupancyMaxPotentialBlockSize) {
		int grid = 0, block = 0;
		CUresult e = cu.OccupancyMaxPotentialBlockSize(&grid, &block, k->fn, NULL, l->smem, 0);
		if (e == CUDA_SUCCESS) {
			fi->suggest_block = block;
			fi->suggest_grid = grid;
		} else if (cu_is_sticky(e)) {
			w_ck(r, e, "cuOccupancyMaxPotentialBlockSize");
		}
	}
	nvml_now(nvml, &r->res->cond);
	return r->res->status == RES_OK ? 0 : -1;
}
