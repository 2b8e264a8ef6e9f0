/* timer.c: what every timed thing in the worker shares: the event pair,
 * and the L2 flush that makes a cold cache before a timed launch. */
#include "timer.h"

CUresult timer_events(wtimer *tm)
{
	CUresult e = cu.EventCreate(&tm->ev0, CU_EVENT_DEFAULT);
	if (e == CUDA_SUCCESS)
		e = cu.EventCreate(&tm->ev1, CU_EVENT_DEFAULT);
	return e;
}

void timer_free(wtimer *tm)
{
	if (tm->flush)
		cu.MemFree(tm->flush);
	if (tm->have_flush_fn)
		cu.ModuleUnload(tm->flush_mod);
	if (tm->ev0)
		cu.EventDestroy(tm->ev0);
	if (tm->ev1)
		cu.EventDestroy(tm->ev1);
	tm->flush = 0;
	tm->ev0 = tm->ev1 = NULL;
}

/* The flush kernel: each thread reads 16-byte words of the buffer in a
 * grid-stride loop; the xor of them decides a store that never happens
 * (the buffer is all zeros), so the loads cannot be dropped and nothing is
 * written. Vector loads and a full SM of threads keep enough bytes in
 * flight to read at the memory's speed. */
static const char flush_ptx[] =
	".version 7.0\n.target sm_70\n.address_size 64\n"
	".visible .entry cuplay_flush(.param .u64 buf, .param .u64 nvec)\n{\n"
	"\t.reg .pred %p<3>;\n\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<8>;\n"
	"\tld.param.u64 %rd1, [buf];\n\tld.param.u64 %rd2, [nvec];\n"
	"\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %ntid.x;\n\tmov.u32 %r3, %tid.x;\n\tmov.u32 %r4, %nctaid.x;\n"
	"\tmad.lo.s32 %r5, %r1, %r2, %r3;\n\tcvt.u64.u32 %rd3, %r5;\n\tmul.wide.u32 %rd4, %r4, %r2;\n"
	"\tmov.u32 %r6, 0;\n\tsetp.ge.u64 %p1, %rd3, %rd2;\n\t@%p1 bra DONE;\n"
	"LOOP:\n\tshl.b64 %rd5, %rd3, 4;\n\tadd.s64 %rd6, %rd1, %rd5;\n"
	"\tld.global.v4.u32 {%r7, %r8, %r9, %r10}, [%rd6];\n"
	"\txor.b32 %r6, %r6, %r7;\n\txor.b32 %r6, %r6, %r8;\n\txor.b32 %r6, %r6, %r9;\n\txor.b32 %r6, %r6, %r10;\n"
	"\tadd.s64 %rd3, %rd3, %rd4;\n\tsetp.lt.u64 %p1, %rd3, %rd2;\n\t@%p1 bra LOOP;\n"
	"DONE:\n\tsetp.ne.u32 %p2, %r6, 2143294004;\n\t@%p2 bra END;\n\tst.global.u32 [%rd1], %r6;\n"
	"END:\n\tret;\n}\n";

int ensure_flush(wrun *r, wtimer *tm)
{
	if (tm->flush)
		return 0;
	uint64_t want = 2 * (uint64_t)(tm->l2_bytes > 0 ? tm->l2_bytes : 0);
	if (want < 8 * MiB)
		want = 8 * MiB;
	want = (want + 15) & ~(uint64_t)15; /* whole 16-byte words */
	if (w_dalloc(r, &tm->flush, (size_t)want, 0, "the L2 flush buffer") != 0)
		return -1;
	tm->flush_bytes = (size_t)want;
	/* written once; after that the flush only reads it (flush_l2) */
	if (w_ck(r, cu.MemsetD8(tm->flush, 0, tm->flush_bytes), "cuMemsetD8") != 0)
		return -1;
	if (cu.ModuleLoadData(&tm->flush_mod, flush_ptx) == CUDA_SUCCESS) {
		if (cu.ModuleGetFunction(&tm->flush_fn, tm->flush_mod, "cuplay_flush") == CUDA_SUCCESS)
			tm->have_flush_fn = 1;
		else
			cu.ModuleUnload(tm->flush_mod);
	}
	return 0;
}

/* A cold L2 before a timed launch: read a buffer twice the L2's size. A read
 * evicts everything, and writes back what earlier kernels left dirty now,
 * not during the next kernel (a memset would leave the L2 full of dirty
 * lines whose write-back lands in the measured kernel: ~19 MB more DRAM
 * writes than Nsight Compute counts, on an H100). Memset if PTX fails. */
CUresult flush_l2(wtimer *tm, int n)
{
	if (!tm->have_flush_fn)
		return cu.MemsetD8Async(tm->flush, (unsigned char)(n & 1), tm->flush_bytes, NULL);
	unsigned long long nvec = tm->flush_bytes / 16;
	void *args[] = { &tm->flush, &nvec };
	unsigned int blocks = (unsigned int)(tm->sm_count > 0 ? tm->sm_count * 8 : 1024);
	return cu.LaunchKernel(tm->flush_fn, blocks, 1, 1, 256, 1, 1, 0, NULL, args, NULL);
}
