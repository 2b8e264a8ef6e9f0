/* test_explain.c: the verdict, the limiter, the headroom and the rules on
 * counter sets recorded on an H100 (figures as `metrics` and ncu read them;
 * the roofs as `roof` measured them), and the rendered record against
 * tests/golden/explain/NAME.{txt,csv,json} (UPDATE=1 rewrites them; run
 * from the repository's root, as tests/run.sh does). */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "tensor.h"
#include "util.h"

#define ROOF_GBPS 3300.0     /* the best of the copy and the streaming kernels */
#define ROOF_GFLOPS 51000.0  /* the FMA kernel */
#define EMPTY_MS 0.0029      /* an empty launch */
#define N26 67108864.0       /* square_*: 2^26 floats */

static void base(explain_in *in)
{
	explain_in_init(in);
	in->roof_gbps = ROOF_GBPS;
	in->roof_gflops = ROOF_GFLOPS;
	in->empty_ms = EMPTY_MS;
	in->counters = 1;
}

/* square_coalesced: 4 sectors per request, DRAM near its peak */
static void coalesced(explain_in *in)
{
	base(in);
	in->median_ms = 0.175;
	in->bytes = 2 * N26 * 4;
	in->threads = N26;
	in->blocks = N26 / 256;
	double sol[] = { 90.5, 46.1, 31.7, 19.8 };
	memcpy(in->sol, sol, sizeof sol);
	in->dram_bytes = 2 * N26 * 4;
	in->ld_sectors_per_req = 4;
	in->st_sectors_per_req = 4;
	in->ld_width = in->st_width = 4;
	in->ld_sectors = N26 * 4 / 32;
	in->bank_ld = in->bank_st = 0;
	in->l1_hit = 0;
	in->l2_hit = 50.1;
	in->occupancy = 86.0;
	in->occ_theory = 1.0;
	in->threads_per_inst = 32;
	in->atomics = 0;
}

/* square_uncoalesced: each thread walks 4 consecutive floats, so a warp's
 * load spans 512 bytes: 16 sectors where 4 would do */
static void uncoalesced(explain_in *in)
{
	coalesced(in);
	in->median_ms = 0.62;
	in->threads = N26 / 4;
	in->blocks = N26 / 4 / 256;
	double sol[] = { 28.9, 79.4, 87.6, 24.3 };
	memcpy(in->sol, sol, sizeof sol);
	in->ld_sectors_per_req = 16;
	in->st_sectors_per_req = 16;
	in->ld_sectors = N26 * 16 / 32;
	in->l1_hit = 74.6;
	in->l2_hit = 79.8;
}

/* transpose_tiled at PAD=0 (N=8192): a warp reads a column of the 32x32
 * tile, every thread in the same bank */
static void bank_conflicted(explain_in *in, int pad)
{
	base(in);
	double n = 8192.0 * 8192;
	in->bytes = 2 * n * 4;
	in->threads = n / 4;
	in->blocks = n / 1024;
	in->dram_bytes = 2 * n * 4;
	in->ld_sectors_per_req = 4;
	in->st_sectors_per_req = 4;
	in->ld_width = in->st_width = 4;
	in->ld_sectors = n * 4 / 32;
	in->shared_ld = n / 32;
	in->shared_st = n / 32;
	in->bank_st = 0.02e6;
	in->l1_hit = 0;
	in->l2_hit = 50.3;
	in->occupancy = 88.1;
	in->occ_theory = 1.0;
	in->threads_per_inst = 32;
	in->atomics = 0;
	if (pad) {
		in->median_ms = 0.181;
		in->bank_ld = 0.23e6;
		double sol[] = { 89.2, 44.0, 52.3, 38.5 };
		memcpy(in->sol, sol, sizeof sol);
	} else {
		in->median_ms = 0.294;
		in->bank_ld = 65.9e6;
		double sol[] = { 54.9, 27.1, 93.8, 47.2 };
		memcpy(in->sol, sol, sizeof sol);
	}
}

/* matmul_register_tiled (N=4096): 8x8 outputs per thread, ~40 TFLOP/s */
static void compute_bound(explain_in *in)
{
	base(in);
	double n = 4096;
	in->flops = 2 * n * n * n;
	in->bytes = 3 * n * n * 4;
	in->median_ms = 3.40;
	in->threads = (n / 128) * (n / 128) * 256;
	in->blocks = (n / 128) * (n / 128);
	double sol[] = { 6.2, 18.5, 61.0, 83.4 };
	memcpy(in->sol, sol, sizeof sol);
	in->dram_bytes = 3 * n * n * 4 * 1.3;
	in->ld_sectors_per_req = 16;
	in->st_sectors_per_req = 8;
	in->ld_width = 16;
	in->st_width = 16;
	in->ld_sectors = 2.2e8;
	in->shared_ld = 3.4e7;
	in->shared_st = 4.2e6;
	in->bank_ld = 0;
	in->bank_st = 1.1e6;
	in->l1_hit = 1.2;
	in->l2_hit = 88.0;
	in->occupancy = 24.6;
	in->occ_theory = 0.25;
	in->occ_limiter = "registers";
	in->threads_per_inst = 32;
	in->atomics = 0;
}

/* empty_launch: one block of 32 threads that does nothing */
static void launch_bound(explain_in *in)
{
	base(in);
	in->median_ms = 0.0031;
	in->threads = 32;
	in->blocks = 1;
	double sol[] = { 0.1, 0.4, 0.0, 0.2 };
	memcpy(in->sol, sol, sizeof sol);
	in->dram_bytes = 2048;
	in->threads_per_inst = 32;
	in->atomics = 0;
	in->occ_theory = 0.5;
}

/* reduce_interleaved-like: tid % (2*s) halves the active threads each
 * step, and every warp adds its sum with an atomic */
static void divergent_atomics(explain_in *in)
{
	base(in);
	in->median_ms = 0.41;
	in->bytes = N26 * 4;
	in->threads = N26;
	in->blocks = N26 / 256;
	double sol[] = { 38.1, 17.0, 41.3, 45.6 };
	memcpy(in->sol, sol, sizeof sol);
	in->dram_bytes = N26 * 4;
	in->ld_sectors_per_req = 4;
	in->ld_width = 4;
	in->ld_sectors = N26 * 4 / 32;
	in->shared_ld = N26 / 32 * 8;
	in->shared_st = N26 / 32 * 8;
	in->bank_ld = in->bank_st = 0;
	in->l1_hit = 0;
	in->occupancy = 80.2;
	in->occ_theory = 1.0;
	in->threads_per_inst = 11.2;
	in->atomics = N26 / 32;
}

/* Latency: a small grid with a register-limited block */
static void latency_bound(explain_in *in)
{
	base(in);
	in->median_ms = 0.052;
	in->bytes = 16.0e6;
	in->threads = 132 * 128;
	in->blocks = 132;
	double sol[] = { 9.8, 12.2, 21.0, 33.0 };
	memcpy(in->sol, sol, sizeof sol);
	in->occupancy = 12.3;
	in->occ_theory = 0.1875;
	in->occ_limiter = "registers";
	in->threads_per_inst = 31.0;
}

static char *render(const char *kernel, const explain_out *o, out_format f)
{
	table t;
	explain_table(&t, kernel, o, f == FMT_TABLE, 0, 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *s = open_memstream(&buf, &len);
	table_print(&t, s, f, 0, 0);
	fclose(s);
	table_free(&t);
	return buf;
}

/* The rendering of the diagnosis against its golden file. */
static void golden(const char *name, const char *kernel, const explain_out *o)
{
	const struct { out_format f; const char *ext; } fs[] = {
		{ FMT_TABLE, "txt" }, { FMT_CSV, "csv" }, { FMT_JSON, "json" } };
	for (size_t i = 0; i < ARRAY_LEN(fs); i++) {
		char path[256];
		snprintf(path, sizeof path, "tests/golden/explain/%s.%s", name, fs[i].ext);
		char *got = render(kernel, o, fs[i].f);
		CHECK_GOLDEN(path, got);
		free(got);
	}
}

TEST(coalesced)
{
	explain_in in;
	explain_out o;
	coalesced(&in);
	explain_compute(&in, &o);
	CHECK(o.bound == BOUND_MEMORY);
	CHECK(o.limiter == EXPLAIN_DRAM);
	CHECK_NEAR(o.headroom, 0.175 / (2 * N26 * 4 / (ROOF_GBPS * 1e9) * 1e3), 1e-9);
	CHECK(o.headroom < EXPLAIN_AT_ROOF);
	CHECK(strstr(o.headroom_text, "only fewer bytes can help") != NULL);
	CHECK(o.nrules == 0);
	golden("coalesced", "square_coalesced", &o);
}

TEST(uncoalesced)
{
	explain_in in;
	explain_out o;
	uncoalesced(&in);
	explain_compute(&in, &o);
	CHECK(o.bound == BOUND_MEMORY);
	CHECK(o.limiter == EXPLAIN_L1);
	CHECK(explain_has_rule(&o, "uncoalesced"));
	CHECK(!explain_has_rule(&o, "bank_conflicts"));
	CHECK(o.headroom > 3 && o.headroom < 4);
	CHECK(strstr(o.headroom_text, "3.8x left") != NULL);
	CHECK(strstr(o.rules[0].text, "16.0 sectors per global load request where 4 would do") != NULL);
	/* the same sectors from 16-byte accesses are coalesced */
	in.ld_width = in.st_width = 16;
	explain_compute(&in, &o);
	CHECK(!explain_has_rule(&o, "uncoalesced"));
	/* width unknown: 16 could be a float4's; 32 cannot */
	in.ld_width = in.st_width = 0;
	explain_compute(&in, &o);
	CHECK(!explain_has_rule(&o, "uncoalesced"));
	in.ld_sectors_per_req = 32;
	explain_compute(&in, &o);
	CHECK(explain_has_rule(&o, "uncoalesced"));
	uncoalesced(&in);
	explain_compute(&in, &o);
	golden("uncoalesced", "square_uncoalesced", &o);
}

TEST(bank_conflicts)
{
	explain_in in;
	explain_out o;
	bank_conflicted(&in, 0);
	explain_compute(&in, &o);
	CHECK(o.bound == BOUND_MEMORY);
	CHECK(o.limiter == EXPLAIN_L1);
	CHECK(explain_has_rule(&o, "bank_conflicts"));
	CHECK(o.nrules == 1 && o.rules[0].evidence > 31 && o.rules[0].evidence < 33); /* 32-way */
	CHECK(strstr(o.rules[0].text, "32.4-way") != NULL);
	golden("bank_conflicts_pad0", "transpose_tiled", &o);
	bank_conflicted(&in, 1);
	explain_compute(&in, &o);
	CHECK(o.bound == BOUND_MEMORY && o.limiter == EXPLAIN_DRAM);
	CHECK(!explain_has_rule(&o, "bank_conflicts")); /* 1.1-way: noise */
	/* float4 shared loads take 4 wavefronts a warp at best; the counter
	 * counts those beyond: 4 more a request is 2-way, 1 more is 1.25-way */
	bank_conflicted(&in, 0);
	in.shared_ld_width = 16;
	in.bank_ld = 4 * in.shared_ld;
	explain_compute(&in, &o);
	CHECK(explain_has_rule(&o, "bank_conflicts") && fabs(o.rules[0].evidence - 2.0) < 1e-9);
	in.bank_ld = in.shared_ld;
	explain_compute(&in, &o);
	CHECK(!explain_has_rule(&o, "bank_conflicts"));
	in.shared_ld_width = 0; /* the width unknown: read as 4-byte words, 2-way */
	explain_compute(&in, &o);
	CHECK(explain_has_rule(&o, "bank_conflicts"));
	/* without the request counts no way can be told: no rule */
	bank_conflicted(&in, 0);
	in.shared_ld = in.shared_st = NAN;
	explain_compute(&in, &o);
	CHECK(!explain_has_rule(&o, "bank_conflicts"));
}

TEST(compute)
{
	explain_in in;
	explain_out o;
	compute_bound(&in);
	explain_compute(&in, &o);
	CHECK(o.bound == BOUND_COMPUTE);
	CHECK(o.limiter == EXPLAIN_SM);
	CHECK_STREQ(o.headroom_roof, "FP32");
	/* 137.4 GFLOP in 3.40 ms: 40.4 TFLOP/s of 51: 1.26x */
	CHECK_NEAR(o.headroom, 1.262, 0.01);
	CHECK(strstr(o.headroom_text, "1.3x left") != NULL);
	/* 16-byte loads at 16 sectors: coalesced; the occupancy rule waits
	 * for a latency-bound kernel */
	CHECK(!explain_has_rule(&o, "uncoalesced"));
	CHECK(!explain_has_rule(&o, "occupancy"));
	CHECK(o.nrules == 0);
	golden("compute_bound", "matmul_register_tiled", &o);
	/* no flops declared: the headroom is unknown, said so */
	in.flops = 0;
	explain_compute(&in, &o);
	CHECK(o.bound == BOUND_COMPUTE);
	CHECK(isnan(o.headroom));
	CHECK(strstr(o.headroom_text, "unknown") != NULL);
}

TEST(launch)
{
	explain_in in;
	explain_out o;
	launch_bound(&in);
	explain_compute(&in, &o);
	CHECK(o.bound == BOUND_LAUNCH);
	CHECK(strstr(o.verdict, "launch-bound") != NULL);
	CHECK(o.nrules == 0);
	golden("launch_bound", "empty_launch", &o);
	/* an empty kernel's L1 "of peak sustained active" (783% seen on an
	 * H100: a few active cycles): unknown, and not the limiter */
	in.sol[EXPLAIN_L1] = 783.05;
	explain_compute(&in, &o);
	CHECK(isnan(o.sol[EXPLAIN_L1]) && o.limiter != EXPLAIN_L1 && o.bound == BOUND_LAUNCH);
	in.sol[EXPLAIN_L1] = 0.0;
	/* twice the launch is no longer launch-bound */
	in.median_ms = 2.5 * EMPTY_MS;
	explain_compute(&in, &o);
	CHECK(o.bound == BOUND_LATENCY);
}

TEST(divergence_atomics)
{
	explain_in in;
	explain_out o;
	divergent_atomics(&in);
	explain_compute(&in, &o);
	CHECK(o.bound == BOUND_LATENCY);
	CHECK(explain_has_rule(&o, "divergence"));
	CHECK(explain_has_rule(&o, "atomics"));
	CHECK(!explain_has_rule(&o, "uncoalesced"));
	golden("divergence_atomics", "reduce_interleaved", &o);
	/* local memory: the rule names the sectors; none read, no rule */
	CHECK(!explain_has_rule(&o, "local_memory"));
	in.local_sectors = 2097152;
	explain_compute(&in, &o);
	CHECK(explain_has_rule(&o, "local_memory"));
	for (int i = 0; i < o.nrules; i++)
		if (strcmp(o.rules[i].name, "local_memory") == 0)
			CHECK(o.rules[i].evidence == 2097152 && strstr(o.rules[i].text, "2.1M sectors read from local memory"));
	in.local_sectors = 0;
	/* one atomic per block: no rule */
	in.atomics = in.blocks;
	in.threads_per_inst = 31.5;
	explain_compute(&in, &o);
	CHECK(!explain_has_rule(&o, "atomics"));
	CHECK(!explain_has_rule(&o, "divergence"));
}

TEST(latency)
{
	explain_in in;
	explain_out o;
	latency_bound(&in);
	explain_compute(&in, &o);
	CHECK(o.bound == BOUND_LATENCY);
	CHECK(o.limiter == EXPLAIN_SM);
	CHECK(explain_has_rule(&o, "occupancy"));
	CHECK(strstr(o.rules[0].text, "limited by registers") != NULL);
	CHECK(strstr(o.rules[0].fix, "__launch_bounds__") != NULL);
	golden("latency_bound", "small_grid", &o);
	/* a matrix product below both roofs: the headroom is to the FP32 roof,
	 * which it is nearer than to its declared bytes' memory time */
	compute_bound(&in);
	double sol[] = { 8.0, 41.0, 52.0, 44.0 };
	memcpy(in.sol, sol, sizeof sol);
	in.median_ms = 22.4; /* matmul_naive: 6.1 TFLOP/s */
	explain_compute(&in, &o);
	CHECK(o.bound == BOUND_LATENCY);
	CHECK_STREQ(o.headroom_roof, "FP32");
	CHECK(o.headroom > 8 && o.headroom < 9);
	/* bound by L1 rather than DRAM, it is still the FP32 roof that says
	 * how far it can go, not its declared bytes (a floor) */
	in.sol[EXPLAIN_L1] = 88.5;
	explain_compute(&in, &o);
	CHECK(o.bound == BOUND_MEMORY && o.limiter == EXPLAIN_L1);
	CHECK_STREQ(o.headroom_roof, "FP32");
	latency_bound(&in);
	/* low L1 hit where the loads reuse what DRAM gave */
	in.ld_sectors = 4 * in.bytes / 32;
	in.dram_bytes = in.bytes;
	in.l1_hit = 12;
	explain_compute(&in, &o);
	CHECK(explain_has_rule(&o, "low_l1_hit"));
	/* ... but not where a tiled kernel's reuse goes through shared memory */
	in.shared_ld = 1e6;
	explain_compute(&in, &o);
	CHECK(!explain_has_rule(&o, "low_l1_hit"));
	/* strided loads whose lines L1 lost: the rule, with the sectors said */
	uncoalesced(&in);
	in.l1_hit = 20;
	explain_compute(&in, &o);
	CHECK(explain_has_rule(&o, "low_l1_hit") && explain_has_rule(&o, "uncoalesced"));
}

/* Without counters: what timing alone supports, and what needs them. */
TEST(timing_only)
{
	explain_in in;
	explain_out o;
	coalesced(&in);
	in.counters = 0;
	explain_compute(&in, &o);
	CHECK(o.bound == BOUND_MEMORY);
	CHECK(o.limiter == -1);
	CHECK(strstr(o.verdict, "from timing alone") != NULL);
	CHECK(o.nrules == 0 && o.needs[0]);
	golden("timing_only_coalesced", "square_coalesced", &o);
	uncoalesced(&in);
	in.counters = 0;
	explain_compute(&in, &o);
	CHECK(o.bound == BOUND_UNKNOWN);
	CHECK(strstr(o.verdict, "cannot tell") != NULL);
	CHECK(o.nrules == 0); /* the rules need counters */
	golden("timing_only_uncoalesced", "square_uncoalesced", &o);
	launch_bound(&in);
	in.counters = 0;
	explain_compute(&in, &o);
	CHECK(o.bound == BOUND_LAUNCH);
}

TEST(names)
{
	CHECK_STREQ(explain_unit_name(EXPLAIN_L2), "l2");
	CHECK_STREQ(explain_unit_name(-1), "-");
	CHECK_STREQ(explain_bound_name(BOUND_COMPUTE), "compute");
	int n = 0;
	for (const char *const *r = explain_rule_names(); *r; r++)
		n++;
	CHECK(n == 11);
	/* every rule a test fires is a name `expect K rule` takes */
	const char *fired[] = { "uncoalesced", "bank_conflicts", "low_l1_hit", "occupancy", "divergence", "atomics",
	                        "local_memory" };
	for (size_t i = 0; i < ARRAY_LEN(fired); i++) {
		int found = 0;
		for (const char *const *r = explain_rule_names(); *r; r++)
			found |= strcmp(*r, fired[i]) == 0;
		CHECK(found);
	}
}

/* The WMMA GEMM of tests/tensor/wmma_gemm.cu at 4096 (the figures of
 * tests/golden/explain_tensor.txt): on the tensor cores, the headroom
 * against the FP16 tensor roof, not the FMA roof. */
static void wmma(explain_in *in)
{
	base(in);
	in->median_ms = 4.894;
	in->flops = 2.0 * 4096 * 4096 * 4096;
	in->bytes = (2.0 * 4096 * 4096) * 2 + 4096.0 * 4096 * 4;
	double sol[] = { 5.855, 22.44, 99.85, 17.06 };
	memcpy(in->sol, sol, sizeof sol);
	in->pipe = TP_FP16;
	in->tensor_kind = TK_WMMA;
	snprintf(in->tensor_sass, sizeof in->tensor_sass, "HMMA");
	in->sm = 90;
	in->pipe_roof = 981000;
	in->mma_roof = 648000;
	in->wgmma_roof = 981000;
	in->spill_bytes = 0;
	in->tensor_active = 4.394;
	double st[EXPLAIN_NSTALLS] = { 39.74, 0, 12.13, 37.72, 3.110, 0.0464, 1.743 };
	memcpy(in->stall, st, sizeof st);
	in->bank_ld = in->bank_st = in->shared_ld = in->shared_st = 0;
}

TEST(tensor)
{
	explain_in in;
	explain_out o;
	wmma(&in);
	explain_compute(&in, &o);
	CHECK(o.pipe == TP_FP16 && o.bound == BOUND_MEMORY && o.limiter == EXPLAIN_L1);
	CHECK_STREQ(o.headroom_roof, "FP16");
	/* 981 TFLOP/s against 2*4096^3 flops in 4.894 ms: 28.1 TFLOP/s */
	CHECK_NEAR(o.headroom, 981000 / (in.flops / 4.894e-3 / 1e9), 1e-6);
	CHECK(strstr(o.pipe_text, "FP16 through wmma (HMMA)") && strstr(o.pipe_text, "busy 4.4%"));
	CHECK(explain_has_rule(&o, "no_wgmma") && explain_has_rule(&o, "loads_mma_turns"));
	CHECK(!explain_has_rule(&o, "accumulator_spills") && !explain_has_rule(&o, "ldmatrix_conflicts"));
	CHECK(strstr(o.headroom_text, "FP16 tensor roof (981 TFLOP/s)"));

	/* the same kernel through wgmma, or on sm_80: the last factor is not wgmma's */
	wmma(&in);
	in.tensor_kind = TK_WGMMA;
	explain_compute(&in, &o);
	CHECK(!explain_has_rule(&o, "no_wgmma"));
	wmma(&in);
	in.sm = 80;
	in.wgmma_roof = NAN;
	explain_compute(&in, &o);
	CHECK(!explain_has_rule(&o, "no_wgmma"));

	/* copies ahead (cp.async or TMA): the loads do not take turns with the MMAs */
	wmma(&in);
	in.async_copy = 1;
	explain_compute(&in, &o);
	CHECK(!explain_has_rule(&o, "loads_mma_turns"));
	/* a busy tensor pipe: neither */
	wmma(&in);
	in.tensor_active = 75;
	explain_compute(&in, &o);
	CHECK(!explain_has_rule(&o, "loads_mma_turns"));

	/* spills, and ldmatrix loads 4-way conflicted (over the 4 wavefronts of an x4) */
	wmma(&in);
	in.spill_bytes = 96;
	in.ldmatrix = 1;
	in.shared_ld = 1e6;
	in.bank_ld = 12e6;
	explain_compute(&in, &o);
	CHECK(explain_has_rule(&o, "accumulator_spills") && explain_has_rule(&o, "ldmatrix_conflicts"));
	CHECK(!explain_has_rule(&o, "bank_conflicts")); /* said once, as ldmatrix's */
	for (int i = 0; i < o.nrules; i++)
		if (strcmp(o.rules[i].name, "ldmatrix_conflicts") == 0)
			CHECK_NEAR(o.rules[i].evidence, 4.0, 1e-9);
	/* conflict-free ldmatrix: 4 wavefronts a request are its fewest */
	in.bank_ld = 0.2e6;
	explain_compute(&in, &o);
	CHECK(!explain_has_rule(&o, "ldmatrix_conflicts"));

	/* a tensor kernel whose roof is not measured: the FMA roof, said so */
	wmma(&in);
	in.pipe_roof = NAN;
	explain_compute(&in, &o);
	CHECK_STREQ(o.headroom_roof, "FP32");
	/* an FP32 kernel: no pipe row */
	wmma(&in);
	in.pipe = PIPE_FP32;
	explain_compute(&in, &o);
	CHECK(o.pipe_text[0] == 0 && !explain_has_rule(&o, "no_wgmma"));
}

int main(void)
{
	RUN(coalesced);
	RUN(tensor);
	RUN(uncoalesced);
	RUN(bank_conflicts);
	RUN(compute);
	RUN(launch);
	RUN(divergence_atomics);
	RUN(latency);
	RUN(timing_only);
	RUN(names);
	return test_report("explain");
}
