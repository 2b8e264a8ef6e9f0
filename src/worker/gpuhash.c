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

/* The comparison of the last timed launch's output with the checked one
 * (outhash.h's recmp_sums): thread t takes elements t, t + threads, ...;
 * LOAD puts element %rd5 of got in %fd1 and of want in %fd2, and %p2 when
 * their bits differ. The sums are added across each warp (BFLY) and lane 0
 * adds them to out[0..5]: the counts and the complement of the first index
 * exactly in any order, the squares as doubles. */
#define RECMP_BFLY(reg, off, op)                                                         \
	"\tmov.b64 {%r10, %r11}, " reg ";\n"                                                \
	"\tshfl.sync.bfly.b32 %r12, %r10, " #off ", 31, -1;\n"                              \
	"\tshfl.sync.bfly.b32 %r13, %r11, " #off ", 31, -1;\n" op

#define RECMP_U64(reg, off, ins) RECMP_BFLY(reg, off, "\tmov.b64 %rd20, {%r12, %r13};\n\t" ins " " reg ", " reg ", %rd20;\n")
#define RECMP_F64(reg, off) RECMP_BFLY(reg, off, "\tmov.b64 %fd20, {%r12, %r13};\n\tadd.rn.f64 " reg ", " reg ", %fd20;\n")
#define RECMP_ALL(off)                                                                   \
	RECMP_U64("%rd7", off, "add.s64") RECMP_U64("%rd8", off, "max.u64")                  \
	RECMP_U64("%rd9", off, "add.s64") RECMP_U64("%rd10", off, "add.s64")                 \
	RECMP_F64("%fd10", off) RECMP_F64("%fd11", off)

#define RECMP_ENTRY(name, load)                                                                        \
	".visible .entry cuplay_recmp_" name "(.param .u64 got, .param .u64 want, .param .u64 n, .param .u64 out)\n{\n" \
	"\t.reg .pred %p<8>;\n\t.reg .b32 %r<24>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<32>;\n\t.reg .f64 %fd<24>;\n" \
	"\tld.param.u64 %rd1, [got];\n\tld.param.u64 %rd2, [want];\n\tld.param.u64 %rd3, [n];\n\tld.param.u64 %rd4, [out];\n" \
	"\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %ntid.x;\n\tmov.u32 %r3, %tid.x;\n\tmov.u32 %r4, %nctaid.x;\n" \
	"\tmul.wide.u32 %rd5, %r1, %r2;\n\tcvt.u64.u32 %rd11, %r3;\n\tadd.s64 %rd5, %rd5, %rd11;\n"       \
	"\tmul.wide.u32 %rd6, %r4, %r2;\n"                                                                 \
	"\tmov.u64 %rd7, 0;\n\tmov.u64 %rd8, 0;\n\tmov.u64 %rd9, 0;\n\tmov.u64 %rd10, 0;\n"              \
	"\tmov.f64 %fd10, 0d0000000000000000;\n\tmov.f64 %fd11, 0d0000000000000000;\n"                    \
	"\tsetp.ge.u64 %p1, %rd5, %rd3;\n\t@%p1 bra RC_DONE_" name ";\n"                                   \
	"RC_LOOP_" name ":\n" load                                                                          \
	"\t@%p2 add.s64 %rd7, %rd7, 1;\n\tnot.b64 %rd11, %rd5;\n\t@%p2 max.u64 %rd8, %rd8, %rd11;\n"      \
	"\ttestp.finite.f64 %p3, %fd2;\n\t@%p3 bra RC_WFIN_" name ";\n"                                    \
	"\ttestp.notanumber.f64 %p4, %fd2;\n\ttestp.notanumber.f64 %p5, %fd1;\n\tand.pred %p4, %p4, %p5;\n"             \
	"\tsetp.eq.f64 %p5, %fd1, %fd2;\n\tor.pred %p4, %p4, %p5;\n\t@!%p4 add.s64 %rd10, %rd10, 1;\n"    \
	"\tbra RC_NEXT_" name ";\n"                                                                         \
	"RC_WFIN_" name ":\n"                                                                               \
	"\ttestp.finite.f64 %p4, %fd1;\n\t@!%p4 add.s64 %rd10, %rd10, 1;\n\t@!%p4 bra RC_NEXT_" name ";\n" \
	"\tadd.s64 %rd9, %rd9, 1;\n\tmul.rn.f64 %fd3, %fd2, %fd2;\n\tadd.rn.f64 %fd11, %fd11, %fd3;\n"     \
	"\tsub.rn.f64 %fd3, %fd1, %fd2;\n\tmul.rn.f64 %fd3, %fd3, %fd3;\n\tadd.rn.f64 %fd10, %fd10, %fd3;\n" \
	"RC_NEXT_" name ":\n"                                                                               \
	"\tadd.s64 %rd5, %rd5, %rd6;\n\tsetp.lt.u64 %p1, %rd5, %rd3;\n\t@%p1 bra RC_LOOP_" name ";\n"     \
	"RC_DONE_" name ":\n"                                                                               \
	RECMP_ALL(16) RECMP_ALL(8) RECMP_ALL(4) RECMP_ALL(2) RECMP_ALL(1)                                  \
	"\tand.b32 %r14, %r3, 31;\n\tsetp.ne.u32 %p6, %r14, 0;\n\t@%p6 bra RC_END_" name ";\n"              \
	"\tred.global.add.u64 [%rd4], %rd7;\n\tred.global.max.u64 [%rd4+8], %rd8;\n"                      \
	"\tred.global.add.u64 [%rd4+16], %rd9;\n\tred.global.add.u64 [%rd4+24], %rd10;\n"                 \
	"\tred.global.add.f64 [%rd4+32], %fd10;\n\tred.global.add.f64 [%rd4+40], %fd11;\n"                \
	"RC_END_" name ":\n\tret;\n}\n"

static const char recmp_ptx[] =
	".version 7.0\n.target sm_70\n.address_size 64\n"
	RECMP_ENTRY("f32",
		"\tshl.b64 %rd12, %rd5, 2;\n\tadd.s64 %rd13, %rd1, %rd12;\n\tadd.s64 %rd14, %rd2, %rd12;\n"
		"\tld.global.nc.b32 %r20, [%rd13];\n\tld.global.nc.b32 %r21, [%rd14];\n"
		"\tsetp.ne.b32 %p2, %r20, %r21;\n"
		"\tmov.b32 %f1, %r20;\n\tcvt.f64.f32 %fd1, %f1;\n\tmov.b32 %f2, %r21;\n\tcvt.f64.f32 %fd2, %f2;\n")
	RECMP_ENTRY("f64",
		"\tshl.b64 %rd12, %rd5, 3;\n\tadd.s64 %rd13, %rd1, %rd12;\n\tadd.s64 %rd14, %rd2, %rd12;\n"
		"\tld.global.nc.b64 %rd21, [%rd13];\n\tld.global.nc.b64 %rd22, [%rd14];\n"
		"\tsetp.ne.b64 %p2, %rd21, %rd22;\n"
		"\tmov.b64 %fd1, %rd21;\n\tmov.b64 %fd2, %rd22;\n");

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
	if (e == CUDA_SUCCESS && (e = cu.MemAlloc(&gh->out, 16 + GPU_SLOT_BYTES * GPU_SLOTS)) != CUDA_SUCCESS) {
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
	if (gh->cmp_mod)
		cu.ModuleUnload(gh->cmp_mod);
	for (int i = 0; i < GPU_SLOTS; i++)
		if (gh->spare[i])
			cu.MemFree(gh->spare[i]);
	memset(gh->spare, 0, sizeof gh->spare);
	memset(gh->spare_bytes, 0, sizeof gh->spare_bytes);
	gh->out = 0;
	gh->fn = NULL;
	gh->cmp_mod = NULL;
	gh->cmp_fn[0] = gh->cmp_fn[1] = NULL;
}

/* The comparison's kernels, loaded on first use: 0, or 1 when they cannot
 * be had (the caller hashes), -1 on an error that ends the run. */
static int ensure_recmp(wrun *r, gpuhash *gh)
{
	if (gh->cmp_fn[0])
		return 0;
	if (gh->cmp_failed)
		return 1;
	CUresult e = cu.ModuleLoadData(&gh->cmp_mod, recmp_ptx);
	if (e == CUDA_SUCCESS && ((e = cu.ModuleGetFunction(&gh->cmp_fn[0], gh->cmp_mod, "cuplay_recmp_f32")) != CUDA_SUCCESS ||
	                          (e = cu.ModuleGetFunction(&gh->cmp_fn[1], gh->cmp_mod, "cuplay_recmp_f64")) != CUDA_SUCCESS)) {
		cu.ModuleUnload(gh->cmp_mod);
		gh->cmp_mod = NULL;
	}
	if (e != CUDA_SUCCESS) {
		gh->cmp_fn[0] = gh->cmp_fn[1] = NULL;
		if (cu_is_sticky(e))
			return w_ck(r, e, "loading the output comparison kernel");
		w_trace(r, "output comparison kernel not loaded (%s): outputs are hashed", cu_errstr(e));
		gh->cmp_failed = 1;
		return 1;
	}
	return 0;
}

int gpu_slots_clear(wrun *r, gpuhash *gh)
{
	int k = ensure_hash(r, gh);
	if (k != 0)
		return k;
	return w_ck(r, cu.MemsetD8Async(gh->out + 16, 0, GPU_SLOT_BYTES * GPU_SLOTS, NULL), "cuMemsetD8Async");
}

int gpu_outhash_queue(wrun *r, gpuhash *gh, CUdeviceptr d, uint64_t bytes, int slot)
{
	if (bytes % 8)
		return 1;
	unsigned long long nw = bytes / 8;
	CUdeviceptr out = gh->out + 16 + (CUdeviceptr)slot * GPU_SLOT_BYTES + 48;
	void *args[] = { &d, &nw, &out };
	unsigned int blocks = (unsigned int)(gh->sm_count > 0 ? gh->sm_count * 8 : 1024);
	return w_ck(r, cu.LaunchKernel(gh->fn, blocks, 1, 1, 256, 1, 1, 0, NULL, args, NULL), "the output hash");
}

int gpu_recmp_queue(wrun *r, gpuhash *gh, CUdeviceptr got, CUdeviceptr want, uint64_t n, dtype t, int slot)
{
	dtype s = dtype_scalar(t);
	if (s != DT_FLOAT && s != DT_DOUBLE)
		return 1;
	int k = ensure_recmp(r, gh);
	if (k != 0)
		return k;
	unsigned long long nn = n;
	CUdeviceptr out = gh->out + 16 + (CUdeviceptr)slot * GPU_SLOT_BYTES;
	void *args[] = { &got, &want, &nn, &out };
	unsigned int blocks = (unsigned int)(gh->sm_count > 0 ? gh->sm_count * 4 : 512);
	return w_ck(r, cu.LaunchKernel(gh->cmp_fn[s == DT_DOUBLE], blocks, 1, 1, 256, 1, 1, 0, NULL, args, NULL),
	            "the output comparison");
}

int gpu_slots_take(wrun *r, gpuhash *gh, uint64_t slots[GPU_SLOTS][GPU_SLOT_BYTES / 8])
{
	return w_ck(r, cu.MemcpyDtoH(slots, gh->out + 16, GPU_SLOT_BYTES * GPU_SLOTS), "cuMemcpyDtoH");
}

void hash_spares_fit(gpuhash *gh, const plan *p)
{
	for (int i = 0; i < GPU_SLOTS; i++) {
		int b = i < PLAN_MAX_CHECKS ? (i < p->nchecks ? p->checks[i].out : -1)
		                            : (i - PLAN_MAX_CHECKS < p->nbufs && outsum_step(p, i - PLAN_MAX_CHECKS) ? i - PLAN_MAX_CHECKS : -1);
		size_t want = b >= 0 && b < p->nbufs ? (size_t)(p->bufs[b].count * dtype_size(p->bufs[b].type)) : 0;
		if (gh->spare[i] && gh->spare_bytes[i] != want) {
			(void)cu.MemFree(gh->spare[i]); /* a sticky error shows at the next call */
			gh->spare[i] = 0;
			gh->spare_bytes[i] = 0;
		}
	}
}

int gpu_spare(wrun *r, gpuhash *gh, int i, size_t bytes, CUdeviceptr *d)
{
	*d = 0;
	if (gh->spare[i] && gh->spare_bytes[i] != bytes) {
		CUresult e = cu.MemFree(gh->spare[i]);
		gh->spare[i] = 0;
		gh->spare_bytes[i] = 0;
		if (w_ck(r, e, "cuMemFree") != 0)
			return -1;
	}
	if (!gh->spare[i]) {
		CUresult e = w_dalloc_try(r, &gh->spare[i], bytes, 0, "a copy of a checked output");
		if (e == CUDA_ERROR_OUT_OF_MEMORY) {
			w_trace(r, "no device memory for a copy of a checked output: compared on the host");
			return 1;
		}
		if (e != CUDA_SUCCESS)
			return -1;
		gh->spare_bytes[i] = bytes;
	}
	*d = gh->spare[i];
	return 0;
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
	return p->nchunks <= 0 && c->out >= 0 && c->out < p->nbufs;
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
			int sp = gpu_spare(r, gh, i, ob->bytes, &s->copy[i]);
			if (sp < 0)
				return -1;
			if (sp > 0)
				continue; /* nothing to compare with */
			if (w_ck(r, cu.MemcpyDtoDAsync(s->copy[i], ob->d, ob->bytes, NULL), "cuMemcpyDtoDAsync") != 0)
				return -1;
		}
		s->have[i] = 1;
	}
	return 0;
}

int outsum_step(const plan *p, int b)
{
	if (p->nsteps <= 0 || p->nchunks > 0 || b < 0 || b >= p->nbufs || !p->bufs[b].output || p->bufs[b].global)
		return 0;
	for (int i = 0; i < p->nchecks; i++)
		if (p->checks[i].out == b)
			return 0;
	return 1;
}

int outsums_take_steps(wrun *r, gpuhash *gh, const wpool *pool, outsums *s)
{
	const plan *p = r->p;
	for (int b = 0; b < p->nbufs; b++) {
		const pbuf *ob = &pool->buf[b];
		s->step_have[b] = 0;
		if (!outsum_step(p, b) || !ob->d || !ob->bytes)
			continue;
		int k = gpu_outhash(r, gh, ob->d, ob->bytes, s->step_h[b]);
		if (k != 0)
			return k;
		s->step_copy[b] = 0;
		size_t esz = dtype_size(dtype_scalar(p->bufs[b].type));
		if (esz == 4 || esz == 8) { /* compared element by element (wrecheck.c) */
			int sp = gpu_spare(r, gh, PLAN_MAX_CHECKS + b, ob->bytes, &s->step_copy[b]);
			if (sp < 0 || (sp == 0 && w_ck(r, cu.MemcpyDtoDAsync(s->step_copy[b], ob->d, ob->bytes, NULL),
			                               "cuMemcpyDtoDAsync") != 0))
				return -1;
		}
		s->step_have[b] = 1;
	}
	return 0;
}

void outsums_clear(outsums *s)
{
	memset(s, 0, sizeof *s);
}
