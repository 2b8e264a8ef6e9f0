/* gpuhash.c: the output hash of src/check/outhash.h computed on the
 * GPU, so that a check can tell an output it compared before without
 * downloading it. */
#include "gpuhash.h"

#include "outhash.h"

#include <stdio.h>
#include <string.h>

/* Thread t of the grid hashes words t, t + threads, ...; the two sums are
 * added across each warp with shuffles, and lane 0 adds them to out[0..1]
 * (addition modulo 2^64 in any order gives the same value). The constants
 * are those of outhash.c. */
#define HASH_BFLY(off)                                                                  \
	"\tmov.b64 {%r10, %r11}, %rd6;\n"                                                   \
	"\tshfl.sync.bfly.b32 %r12, %r10, " #off ", 31, -1;\n"                              \
	"\tshfl.sync.bfly.b32 %r13, %r11, " #off ", 31, -1;\n"                              \
	"\tmov.b64 %rd20, {%r12, %r13};\n\tadd.s64 %rd6, %rd6, %rd20;\n"                   \
	"\tmov.b64 {%r10, %r11}, %rd7;\n"                                                   \
	"\tshfl.sync.bfly.b32 %r12, %r10, " #off ", 31, -1;\n"                              \
	"\tshfl.sync.bfly.b32 %r13, %r11, " #off ", 31, -1;\n"                              \
	"\tmov.b64 %rd20, {%r12, %r13};\n\tadd.s64 %rd7, %rd7, %rd20;\n"

static const char hash_ptx[] =
	".version 7.0\n.target sm_70\n.address_size 64\n"
	".visible .entry cuplay_hash(.param .u64 buf, .param .u64 nw, .param .u64 out)\n{\n"
	"\t.reg .pred %p<3>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<24>;\n"
	"\tld.param.u64 %rd1, [buf];\n\tld.param.u64 %rd2, [nw];\n\tld.param.u64 %rd3, [out];\n"
	"\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %ntid.x;\n\tmov.u32 %r3, %tid.x;\n\tmov.u32 %r4, %nctaid.x;\n"
	"\tmad.lo.s32 %r5, %r1, %r2, %r3;\n\tcvt.u64.u32 %rd4, %r5;\n\tmul.wide.u32 %rd5, %r4, %r2;\n"
	"\tmov.u64 %rd6, 0;\n\tmov.u64 %rd7, 0;\n"
	"\tsetp.ge.u64 %p1, %rd4, %rd2;\n\t@%p1 bra DONE;\n"
	"LOOP:\n"
	"\tshl.b64 %rd8, %rd4, 3;\n\tadd.s64 %rd9, %rd1, %rd8;\n\tld.global.nc.u64 %rd10, [%rd9];\n"
	"\tmul.lo.u64 %rd11, %rd4, 0x9E3779B97F4A7C15;\n\txor.b64 %rd12, %rd10, %rd11;\n"
	/* mix_a */
	"\tshr.u64 %rd13, %rd12, 30;\n\txor.b64 %rd12, %rd12, %rd13;\n\tmul.lo.u64 %rd12, %rd12, 0xBF58476D1CE4E5B9;\n"
	"\tshr.u64 %rd13, %rd12, 27;\n\txor.b64 %rd12, %rd12, %rd13;\n\tmul.lo.u64 %rd12, %rd12, 0x94D049BB133111EB;\n"
	"\tshr.u64 %rd13, %rd12, 31;\n\txor.b64 %rd12, %rd12, %rd13;\n"
	"\tadd.s64 %rd6, %rd6, %rd12;\n"
	/* mix_b(a + i) */
	"\tadd.s64 %rd14, %rd12, %rd4;\n"
	"\tshr.u64 %rd15, %rd14, 33;\n\txor.b64 %rd14, %rd14, %rd15;\n\tmul.lo.u64 %rd14, %rd14, 0xFF51AFD7ED558CCD;\n"
	"\tshr.u64 %rd15, %rd14, 33;\n\txor.b64 %rd14, %rd14, %rd15;\n\tmul.lo.u64 %rd14, %rd14, 0xC4CEB9FE1A85EC53;\n"
	"\tshr.u64 %rd15, %rd14, 33;\n\txor.b64 %rd14, %rd14, %rd15;\n"
	"\tadd.s64 %rd7, %rd7, %rd14;\n"
	"\tadd.s64 %rd4, %rd4, %rd5;\n\tsetp.lt.u64 %p1, %rd4, %rd2;\n\t@%p1 bra LOOP;\n"
	"DONE:\n"
	HASH_BFLY(16) HASH_BFLY(8) HASH_BFLY(4) HASH_BFLY(2) HASH_BFLY(1)
	"\tand.b32 %r14, %r3, 31;\n\tsetp.ne.u32 %p2, %r14, 0;\n\t@%p2 bra END;\n"
	"\tred.global.add.u64 [%rd3], %rd6;\n\tred.global.add.u64 [%rd3+8], %rd7;\n"
	"END:\n\tret;\n}\n";

/* Loads the kernel on first use; 1 when it cannot be had (the caller
 * compares on the host as before), -1 on an error that ends the run. */
static int ensure_hash(wrun *r, gpuhash *gh)
{
	if (gh->fn)
		return 0;
	if (gh->failed)
		return 1;
	CUresult e = cu.ModuleLoadData(&gh->mod, hash_ptx);
	if (e == CUDA_SUCCESS && (e = cu.ModuleGetFunction(&gh->fn, gh->mod, "cuplay_hash")) != CUDA_SUCCESS)
		cu.ModuleUnload(gh->mod);
	if (e == CUDA_SUCCESS && (e = cu.MemAlloc(&gh->out, 16)) != CUDA_SUCCESS) {
		cu.ModuleUnload(gh->mod);
		gh->fn = NULL;
	}
	if (e != CUDA_SUCCESS) {
		gh->fn = NULL;
		if (cu_is_sticky(e))
			return w_ck(r, e, "loading the output hash kernel");
		w_trace(r, "output hash kernel not loaded (%s): outputs are compared on the host", cu_errstr(e));
		gh->failed = 1;
		return 1;
	}
	return 0;
}

void hash_free(gpuhash *gh)
{
	if (gh->out)
		cu.MemFree(gh->out);
	if (gh->fn)
		cu.ModuleUnload(gh->mod);
	gh->out = 0;
	gh->fn = NULL;
}

int gpu_outhash(wrun *r, gpuhash *gh, CUdeviceptr d, uint64_t bytes, uint64_t h[2])
{
	int k = ensure_hash(r, gh);
	if (k != 0)
		return k;
	unsigned long long nw = bytes / 8;
	void *args[] = { &d, &nw, &gh->out };
	unsigned int blocks = (unsigned int)(gh->sm_count > 0 ? gh->sm_count * 8 : 1024);
	uint64_t got[2];
	if (w_ck(r, cu.MemsetD8Async(gh->out, 0, 16, NULL), "cuMemsetD8Async") != 0 ||
	    w_ck(r, cu.LaunchKernel(gh->fn, blocks, 1, 1, 256, 1, 1, 0, NULL, args, NULL), "the output hash") != 0 ||
	    w_ck(r, cu.MemcpyDtoH(got, gh->out, 16), "cuMemcpyDtoH") != 0)
		return -1;
	h[0] = got[0];
	h[1] = got[1];
	if (bytes % 8) { /* the last bytes, a word padded with zeros */
		unsigned char tail[8] = { 0 };
		if (w_ck(r, cu.MemcpyDtoH(tail, d + nw * 8, bytes % 8), "cuMemcpyDtoH") != 0)
			return -1;
		uint64_t v = 0;
		for (int b = 7; b >= 0; b--)
			v = v << 8 | tail[b];
		outhash_words(&v, nw, nw + 1, h);
	}
	return 0;
}

int outsum_able(const plan *p, int i)
{
	const plan_check *c = &p->checks[i];
	return p->nchunks <= 0 && c->out >= 0 && c->out < p->nbufs && !p->bufs[c->out].managed;
}

int outsums_take(wrun *r, gpuhash *gh, const wpool *pool, outsums *s, int copy)
{
	const plan *p = r->p;
	for (int i = 0; i < p->nchecks; i++) {
		const pbuf *ob = &pool->buf[p->checks[i].out];
		s->have[i] = 0;
		if (!outsum_able(p, i) || !ob->d || !ob->bytes)
			continue;
		int k = gpu_outhash(r, gh, ob->d, ob->bytes, s->h[i]);
		if (k != 0)
			return k;
		if (copy) {
			char what[128];
			snprintf(what, sizeof what, "the first launch's copy of buffer '%s'", p->bufs[p->checks[i].out].name);
			if (!s->copy[i] && w_dalloc(r, &s->copy[i], ob->bytes, 0, what) != 0)
				return -1;
			if (w_ck(r, cu.MemcpyDtoD(s->copy[i], ob->d, ob->bytes), "cuMemcpyDtoD") != 0)
				return -1;
		}
		s->have[i] = 1;
	}
	return 0;
}

int outsums_clear(wrun *r, outsums *s)
{
	int rc = 0;
	for (int i = 0; i < PLAN_MAX_CHECKS; i++) {
		CUresult e = s->copy[i] ? cu.MemFree(s->copy[i]) : CUDA_SUCCESS;
		if (r && rc == 0 && w_ck(r, e, "cuMemFree") != 0)
			rc = -1;
	}
	memset(s, 0, sizeof *s);
	return rc;
}
