/* explain.c: the speed of light, the verdict, the headroom and the rules. */
#include "explain.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tensor.h"
#include "util.h"

static const char *const unit_names[] = { "dram", "l2", "l1", "sm", NULL };
static const char *const bound_names[] = { "memory", "compute", "latency", "launch", NULL };
static const char *const rule_names[] = { "uncoalesced", "bank_conflicts", "low_l1_hit", "occupancy",
	                                  "divergence", "atomics", "no_wgmma", "ldmatrix_conflicts",
	                                  "loads_mma_turns", "accumulator_spills", "local_memory", NULL };

const char *const *explain_unit_names(void) { return unit_names; }
const char *const *explain_bound_names(void) { return bound_names; }
const char *const *explain_rule_names(void) { return rule_names; }

const char *explain_unit_name(int u)
{
	return u >= 0 && u < EXPLAIN_NUNITS ? unit_names[u] : "-";
}

const char *explain_bound_name(explain_bound b)
{
	switch (b) {
	case BOUND_MEMORY: return "memory";
	case BOUND_COMPUTE: return "compute";
	case BOUND_LATENCY: return "latency";
	case BOUND_LAUNCH: return "launch";
	default: return "unknown";
	}
}

static int known(double v)
{
	return !isnan(v);
}

void explain_in_init(explain_in *in)
{
	memset(in, 0, sizeof *in);
	in->median_ms = in->empty_ms = in->roof_gbps = in->roof_gflops = NAN;
	in->threads = in->blocks = NAN;
	for (int i = 0; i < EXPLAIN_NUNITS; i++)
		in->sol[i] = NAN;
	in->dram_bytes = in->ld_sectors_per_req = in->st_sectors_per_req = NAN;
	in->bank_ld = in->bank_st = in->shared_ld = in->shared_st = in->ld_sectors = NAN;
	in->l1_hit = in->l2_hit = in->occupancy = in->atomics = in->threads_per_inst = NAN;
	in->occ_theory = NAN;
	in->pipe = -1;
	in->pipe_roof = in->pipe_datasheet = in->mma_roof = in->wgmma_roof = NAN;
	in->spill_bytes = in->tensor_active = in->tensor_inst = in->local_sectors = NAN;
	for (int i = 0; i < EXPLAIN_NSTALLS; i++)
		in->stall[i] = NAN;
}

/* The kernel runs its flops on the tensor cores. */
static int on_tensor(const explain_in *in)
{
	return in->pipe >= 0 && in->pipe < TP_N;
}

/* The roof its flops are held against: its tensor precision's where it
 * runs on the tensor cores and that roof is measured, else the FMA roof;
 * *name what it is ("FP16", "FP32"). NaN unknown. */
static double flop_roof(const explain_in *in, const char **name)
{
	if (on_tensor(in) && known(in->pipe_roof) && in->pipe_roof > 0) {
		*name = tensor_prec_name(in->pipe);
		return in->pipe_roof;
	}
	*name = "FP32";
	return in->roof_gflops;
}

int explain_has_rule(const explain_out *o, const char *name)
{
	for (int i = 0; i < o->nrules; i++)
		if (strcmp(o->rules[i].name, name) == 0)
			return 1;
	return 0;
}

static explain_rule *add_rule(explain_out *o, const char *name, double evidence, const char *unit)
{
	if (o->nrules >= EXPLAIN_MAX_RULES)
		return NULL;
	explain_rule *r = &o->rules[o->nrules++];
	memset(r, 0, sizeof *r);
	snprintf(r->name, sizeof r->name, "%s", name);
	r->evidence = evidence;
	snprintf(r->unit, sizeof r->unit, "%s", unit);
	return r;
}

static void fmt_count(double v, char *buf, size_t n)
{
	if (v >= 1e9)
		snprintf(buf, n, "%.1fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, n, "%.1fM", v / 1e6);
	else if (v >= 1e4)
		snprintf(buf, n, "%.1fk", v / 1e3);
	else
		snprintf(buf, n, "%.0f", v);
}

/* ------------------------------------------------------------ the rules */

/* A warp of 32 threads each moving w bytes needs w 32-byte sectors when
 * its addresses are consecutive; more means each sector brings bytes no
 * thread asked for. Width unknown: only more than a 16-byte access could
 * need (16) says so. */
static void rule_uncoalesced(const explain_in *in, explain_out *o)
{
	const struct { double spr; int w; const char *what; } acc[2] = {
		{ in->ld_sectors_per_req, in->ld_width, "load" },
		{ in->st_sectors_per_req, in->st_width, "store" },
	};
	int worst = -1;
	double worst_x = 0;
	for (int i = 0; i < 2; i++) {
		if (!known(acc[i].spr) || acc[i].spr <= 0)
			continue;
		double need = acc[i].w > 0 ? acc[i].w : 16;
		double x = acc[i].spr / need;
		if (x >= 1.5 && x > worst_x) {
			worst = i;
			worst_x = x;
		}
	}
	if (worst < 0)
		return;
	explain_rule *r = add_rule(o, "uncoalesced", acc[worst].spr, "sectors/request");
	if (!r)
		return;
	if (acc[worst].w > 0)
		snprintf(r->text, sizeof r->text,
		         "%.1f sectors per global %s request where %d would do (%d-byte accesses): a warp "
		         "moves %.1fx the bytes it uses", acc[worst].spr, acc[worst].what, acc[worst].w, acc[worst].w,
		         worst_x);
	else
		snprintf(r->text, sizeof r->text,
		         "%.1f sectors per global %s request: more than any access of 16 bytes or less needs",
		         acc[worst].spr, acc[worst].what);
	snprintf(r->fix, sizeof r->fix,
	         "let consecutive threads touch consecutive addresses (threadIdx.x in the fastest index); "
	         "stage strided accesses through shared memory");
}

/* n-way: a warp's shared-memory request takes at least w*32/128 wavefronts
 * (one for 4-byte words, 4 for float4); the conflicts counter counts the
 * wavefronts beyond those, so a request takes 1 + conflicts / (requests x
 * fewest) times its fewest. */
static void rule_bank(const explain_in *in, explain_out *o)
{
	const struct { double conf, req; int w; const char *what; } acc[2] = {
		{ in->bank_ld, in->shared_ld, in->shared_ld_width, "loads" },
		{ in->bank_st, in->shared_st, in->shared_st_width, "stores" },
	};
	int worst = -1;
	double worst_way = 0;
	for (int i = 0; i < 2; i++) {
		if (!known(acc[i].conf) || !known(acc[i].req) || acc[i].req <= 0)
			continue;
		double fewest = acc[i].w > 4 ? acc[i].w / 4.0 : 1;
		double way = 1 + acc[i].conf / (acc[i].req * fewest);
		if (way >= 1.5 && way > worst_way) {
			worst = i;
			worst_way = way;
		}
	}
	if (worst < 0)
		return;
	explain_rule *r = add_rule(o, "bank_conflicts", worst_way, "way");
	if (!r)
		return;
	char c[16], q[16];
	fmt_count(acc[worst].conf, c, sizeof c);
	fmt_count(acc[worst].req, q, sizeof q);
	snprintf(r->text, sizeof r->text,
	         "shared-memory %s: %.1f-way bank conflicts (%s extra wavefronts over %s warp requests)",
	         acc[worst].what, worst_way, c, q);
	snprintf(r->fix, sizeof r->fix,
	         "pad the shared array by one word per row (tile[32][33]) or swizzle the index, so that "
	         "a warp's threads hit 32 different banks");
}

/* Reuse was expected where a warp's loads fetch more sectors than they use
 * (its next loads want the rest of those lines), or where a kernel without
 * shared memory asks for at least twice the bytes DRAM gave; yet L1 served
 * under half of the sectors. A tiled kernel's reuse across blocks is the
 * L2's, as it should be. */
static void rule_l1(const explain_in *in, explain_out *o)
{
	if (!known(in->l1_hit) || in->l1_hit >= 50)
		return;
	double need = in->ld_width > 0 ? in->ld_width : 16;
	int strided = known(in->ld_sectors_per_req) && in->ld_sectors_per_req >= 1.5 * need;
	int no_smem = !known(in->shared_ld) || in->shared_ld <= 0;
	double reuse = known(in->ld_sectors) && known(in->dram_bytes) && in->dram_bytes > 0
	                       ? in->ld_sectors * 32 / in->dram_bytes : NAN;
	if (!strided && !(no_smem && known(reuse) && reuse >= 2))
		return;
	explain_rule *r = add_rule(o, "low_l1_hit", in->l1_hit, "%");
	if (!r)
		return;
	if (strided)
		snprintf(r->text, sizeof r->text,
		         "L1 hits %.1f%% of sectors, though each warp load fetches %.1f sectors where it uses %.0f: "
		         "the lines are gone before the next loads want them", in->l1_hit, in->ld_sectors_per_req, need);
	else
		snprintf(r->text, sizeof r->text,
		         "L1 hits %.1f%% of sectors, though the loads ask for %.1fx the bytes device memory gave: "
		         "the reuse is served by L2", in->l1_hit, reuse);
	snprintf(r->fix, sizeof r->fix,
	         "keep reused data in shared memory (tiling) or registers, or bring a block's reuses "
	         "closer together so its lines are still in L1");
}

static void rule_occupancy(const explain_in *in, explain_out *o)
{
	if (!known(in->occ_theory) || in->occ_theory >= 0.5 || !in->occ_limiter)
		return;
	explain_rule *r = add_rule(o, "occupancy", in->occ_theory * 100, "%");
	if (!r)
		return;
	char ach[48] = "";
	if (known(in->occupancy))
		snprintf(ach, sizeof ach, " (achieved %.0f%%)", in->occupancy);
	snprintf(r->text, sizeof r->text, "theoretical occupancy %.0f%%%s, limited by %s: too few warps "
	         "to hide latency", in->occ_theory * 100, ach, in->occ_limiter);
	const char *fix = "more warps per SM";
	if (strcmp(in->occ_limiter, "registers") == 0)
		fix = "fewer registers per thread: __launch_bounds__(threads, blocks per SM), or less "
		      "state held per thread";
	else if (strcmp(in->occ_limiter, "shared memory") == 0)
		fix = "less shared memory per block (smaller tiles), or dynamic shared memory sized to the need";
	else if (strcmp(in->occ_limiter, "block size") == 0 || strcmp(in->occ_limiter, "blocks per SM") == 0)
		fix = "bigger blocks (at least 128 threads, a multiple of 32): an SM holds a limited number "
		      "of blocks";
	snprintf(r->fix, sizeof r->fix, "%s", fix);
}

static void rule_divergence(const explain_in *in, explain_out *o)
{
	if (!known(in->threads_per_inst) || in->threads_per_inst <= 0 || in->threads_per_inst >= 24)
		return;
	explain_rule *r = add_rule(o, "divergence", in->threads_per_inst, "threads/instruction");
	if (!r)
		return;
	snprintf(r->text, sizeof r->text,
	         "%.1f of a warp's 32 threads execute each instruction on average: the others wait on "
	         "a branch they did not take", in->threads_per_inst);
	snprintf(r->fix, sizeof r->fix,
	         "branch on values a whole warp shares (index by warp, keep active threads contiguous: "
	         "tid < s rather than tid %% (2*s) == 0)");
}

static void rule_atomics(const explain_in *in, explain_out *o)
{
	if (!known(in->atomics) || !known(in->blocks) || !known(in->threads) || in->blocks <= 0)
		return;
	double warps = ceil(in->threads / 32);
	if (in->atomics < 0.5 * warps || in->atomics <= 2 * in->blocks)
		return;
	explain_rule *r = add_rule(o, "atomics", in->atomics / in->blocks, "requests/block");
	if (!r)
		return;
	char a[16];
	fmt_count(in->atomics, a, sizeof a);
	snprintf(r->text, sizeof r->text,
	         "%s global atomic requests, %.1f per block: one from every warp (or thread) where one "
	         "per block would do", a, in->atomics / in->blocks);
	snprintf(r->fix, sizeof r->fix,
	         "reduce within the block first (shared memory or __shfl_down_sync), then one atomic "
	         "per block");
}

/* ------------------------------------------------- tensor-core kernels */

/* WMMA and mma.sync issue a warp's small multiplies one at a time; on
 * sm_90 only the warpgroup's wgmma keeps the tensor cores fed at their full
 * rate (the roofs measure both). */
static void rule_no_wgmma(const explain_in *in, explain_out *o)
{
	if (!on_tensor(in) || in->sm != 90 || in->tensor_kind == TK_WGMMA || in->tensor_kind == TK_NONE ||
	    !known(in->mma_roof) || !known(in->wgmma_roof) || !(in->mma_roof > 0) || in->wgmma_roof <= in->mma_roof)
		return;
	double x = in->wgmma_roof / in->mma_roof;
	explain_rule *r = add_rule(o, "no_wgmma", x, "x");
	if (!r)
		return;
	snprintf(r->text, sizeof r->text,
	         "%s on sm_90: %s through mma.sync peaks at %.0f TFLOP/s, through wgmma at %.0f: the last %.2fx "
	         "of the roof needs wgmma", tensor_kind_name(in->tensor_kind), tensor_prec_name(in->pipe),
	         in->mma_roof / 1000, in->wgmma_roof / 1000, x);
	snprintf(r->fix, sizeof r->fix,
	         "warpgroup MMAs (wgmma.mma_async, sm_90a) on tiles in shared memory, loaded by TMA with a "
	         "swizzle; WMMA and mma.sync cannot reach the tensor cores' full rate on Hopper");
}

static void rule_spills(const explain_in *in, explain_out *o)
{
	if (!on_tensor(in) || !known(in->spill_bytes) || in->spill_bytes <= 0)
		return;
	explain_rule *r = add_rule(o, "accumulator_spills", in->spill_bytes, "bytes/thread");
	if (!r)
		return;
	snprintf(r->text, sizeof r->text,
	         "ptxas spills %.0f bytes a thread to local memory and back: accumulators or fragments that do "
	         "not fit the registers go through L1 around the MMAs", in->spill_bytes);
	snprintf(r->fix, sizeof r->fix,
	         "fewer accumulators a thread (a smaller warp tile, or more warps), __launch_bounds__ that allow "
	         "more registers, fragment indexes known at compile time (loops fully unrolled)");
}

/* Local memory (a thread's spilled registers, or an array it indexes at
 * run time) lives in DRAM behind L1: every sector read from it is traffic
 * a register would not cost. A tensor kernel's spills are
 * accumulator_spills' (the code says them without counters). */
static void rule_local(const explain_in *in, explain_out *o)
{
	if (!known(in->local_sectors) || in->local_sectors <= 0 || explain_has_rule(o, "accumulator_spills"))
		return;
	explain_rule *r = add_rule(o, "local_memory", in->local_sectors, "sectors");
	if (!r)
		return;
	char n[32];
	fmt_count(in->local_sectors, n, sizeof n);
	snprintf(r->text, sizeof r->text,
	         "%s sectors read from local memory: registers spilled%s, or an array indexed with values known "
	         "only at run time, kept in memory instead of registers", n,
	         known(in->spill_bytes) && in->spill_bytes > 0 ? " (ptxas reports spills)" : "");
	snprintf(r->fix, sizeof r->fix,
	         "index per-thread arrays with constants (loops fully unrolled), or keep them in shared "
	         "memory; __launch_bounds__ or fewer live values where registers spill");
}

/* ldmatrix reads eight 16-byte rows a matrix: in a tile whose rows are a
 * multiple of 128 bytes apart they share banks. A warp's ldmatrix.x4 moves
 * 512 bytes, 4 wavefronts at the fewest. */
static void rule_ldmatrix(const explain_in *in, explain_out *o)
{
	if (!known(in->bank_ld) || !known(in->shared_ld) || in->shared_ld <= 0)
		return;
	double way = 1 + in->bank_ld / (in->shared_ld * 4);
	if (way < 1.5)
		return;
	explain_rule *r = add_rule(o, "ldmatrix_conflicts", way, "way");
	if (!r)
		return;
	char c[16], q[16];
	fmt_count(in->bank_ld, c, sizeof c);
	fmt_count(in->shared_ld, q, sizeof q);
	snprintf(r->text, sizeof r->text,
	         "the shared-memory loads (ldmatrix among them) are %.1f-way bank conflicted (%s extra wavefronts "
	         "over %s warp requests): the rows a fragment reads fall in the same banks", way, c, q);
	snprintf(r->fix, sizeof r->fix,
	         "swizzle the tile: XOR the 16-byte chunk's index in a row with the row's index mod 8, in the "
	         "stores and in the ldmatrix addresses (or pad each row by 16 bytes)");
}

/* Warps wait on loads while the tensor pipe idles, and nothing copies ahead
 * asynchronously: each tile is loaded, then multiplied, in turn. */
static void rule_turns(const explain_in *in, explain_out *o)
{
	if (!on_tensor(in) || in->async_copy || (known(in->tensor_active) && in->tensor_active >= EXPLAIN_BUSY_PCT))
		return;
	double mem = 0, all = 0;
	for (int i = 0; i < EXPLAIN_NSTALLS; i++) {
		if (!known(in->stall[i]))
			return;
		all += in->stall[i];
		if (i < EXPLAIN_MEM_STALLS)
			mem += in->stall[i];
	}
	if (all <= 0 || 100 * mem / all < EXPLAIN_LOAD_STALL_PCT)
		return;
	explain_rule *r = add_rule(o, "loads_mma_turns", 100 * mem / all, "% of stalls");
	if (!r)
		return;
	char act[48] = "";
	if (known(in->tensor_active))
		snprintf(act, sizeof act, ", the tensor pipe busy %.0f%% of the time", in->tensor_active);
	int len = snprintf(r->text, sizeof r->text,
	                   "%.0f%% of the warps' stalls wait on memory (long scoreboard %.1f, barrier %.1f, MIO %.1f "
	                   "warps per issue)%s, and no copy is asynchronous: loads and MMAs take turns", 100 * mem / all,
	                   in->stall[STALL_LONG_SCOREBOARD], in->stall[STALL_BARRIER], in->stall[STALL_MIO_THROTTLE], act);
	if (len >= (int)sizeof r->text) /* absurd figures: cut, and seen to be */
		memcpy(r->text + sizeof r->text - 4, "...", 4);
	snprintf(r->fix, sizeof r->fix,
	         "a pipeline of stages in shared memory: cp.async (sm_80) or TMA (sm_90) copies the next tiles "
	         "while the tensor cores multiply this one");
}

/* The pipe in words, from the code, the roofs and the counters. */
static void describe_pipe(const explain_in *in, explain_out *o)
{
	o->pipe = in->pipe;
	o->tensor_active = in->counters && on_tensor(in) ? in->tensor_active : NAN;
	if (!on_tensor(in))
		return; /* the FP32 pipe: said by the headroom's roof */
	char roof[64] = "its roof not measured", busy[48] = "";
	if (known(in->pipe_roof) && in->pipe_roof > 0)
		snprintf(roof, sizeof roof, "roof %.0f T%s/s", in->pipe_roof / 1000, in->pipe == TP_INT8 ? "OP" : "FLOP");
	if (known(in->pipe_datasheet) && in->pipe_datasheet > 0)
		snprintf(roof + strlen(roof), sizeof roof - strlen(roof), ", datasheet %.0f", in->pipe_datasheet / 1000);
	if (known(o->tensor_active))
		snprintf(busy, sizeof busy, ", busy %.1f%% of cycles", o->tensor_active);
	snprintf(o->pipe_text, sizeof o->pipe_text, "tensor cores, %s through %s%s%s%s%s; %s",
	         tensor_prec_name(in->pipe), tensor_kind_name(in->tensor_kind), in->tensor_sass[0] ? " (" : "",
	         in->tensor_sass, in->tensor_sass[0] ? ")" : "", busy, roof);
}

/* ----------------------------------------------------- verdict, headroom */

static void headroom(const explain_in *in, explain_out *o, int compute)
{
	double s = in->median_ms * 1e-3;
	int have_mem = in->bytes > 0 && known(o->roof_frac) && o->roof_frac > 0;
	int have_fma = in->flops > 0 && known(o->flop_frac) && o->flop_frac > 0;
	if (compute ? !have_fma : !have_mem) {
		if (compute && have_mem && o->bound != BOUND_COMPUTE)
			compute = 0;
		else if (!compute && have_fma && o->bound != BOUND_MEMORY)
			compute = 1;
	}
	if (compute && have_fma) {
		const char *name;
		double roof = flop_roof(in, &name);
		double t = in->flops / (roof * 1e9);
		o->headroom = s / t;
		o->headroom_roof = name;
		if (o->headroom <= EXPLAIN_AT_ROOF)
			snprintf(o->headroom_text, sizeof o->headroom_text,
			         "at the %s roof (%.0f%% of it): only fewer flops can help", name, 100 / o->headroom);
		else if (on_tensor(in) && strcmp(name, "FP32") != 0)
			snprintf(o->headroom_text, sizeof o->headroom_text,
			         "%.1fx left: the declared flops at the %s tensor roof (%.0f TFLOP/s) take %.3g ms",
			         o->headroom, name, roof / 1000, t * 1e3);
		else
			snprintf(o->headroom_text, sizeof o->headroom_text,
			         "%.1fx left: the declared flops at the FMA roof (%.1f TFLOP/s) take %.3g ms",
			         o->headroom, roof / 1000, t * 1e3);
	} else if (!compute && have_mem) {
		double t = in->bytes / (in->roof_gbps * 1e9);
		o->headroom = s / t;
		o->headroom_roof = "memory";
		if (o->headroom <= EXPLAIN_AT_ROOF)
			snprintf(o->headroom_text, sizeof o->headroom_text,
			         "at the memory roof (%.0f%% of it): only fewer bytes can help", 100 / o->headroom);
		else
			snprintf(o->headroom_text, sizeof o->headroom_text,
			         "%.1fx left: the declared bytes at the memory roof (%.0f GB/s) take %.3g ms",
			         o->headroom, in->roof_gbps, t * 1e3);
	} else {
		snprintf(o->headroom_text, sizeof o->headroom_text,
		         compute ? "unknown: no '//@ flops' line, or no FMA roof measured"
		                 : "unknown: no '//@ bytes' line, or no memory roof measured");
	}
}

/* Neither roof binds: the headroom is to the one the kernel is nearer
 * (a matrix product's declared bytes are a floor no kernel comes close to). */
static int nearer_fp32(const explain_out *o)
{
	return known(o->flop_frac) && (!known(o->roof_frac) || o->flop_frac > o->roof_frac);
}

void explain_compute(const explain_in *in, explain_out *o)
{
	memset(o, 0, sizeof *o);
	o->counters = in->counters;
	o->limiter = -1;
	o->headroom = o->roof_frac = o->flop_frac = NAN;
	/* a share of peak over 100% is no throughput: a unit busy for a handful
	 * of cycles (an empty kernel's L1, "of peak sustained active") divides
	 * by next to nothing; unknown, not the limiter */
	for (int i = 0; i < EXPLAIN_NUNITS; i++)
		o->sol[i] = in->counters && known(in->sol[i]) && in->sol[i] <= EXPLAIN_SOL_MAX ? in->sol[i] : NAN;
	double s = in->median_ms * 1e-3;
	if (known(s) && s > 0 && in->bytes > 0 && known(in->roof_gbps) && in->roof_gbps > 0)
		o->roof_frac = in->bytes / s / 1e9 / in->roof_gbps;
	const char *froof_name;
	double froof = flop_roof(in, &froof_name);
	if (known(s) && s > 0 && in->flops > 0 && known(froof) && froof > 0)
		o->flop_frac = in->flops / s / 1e9 / froof;
	describe_pipe(in, o);
	for (int i = 0; i < EXPLAIN_NUNITS; i++)
		if (known(o->sol[i]) && (o->limiter < 0 || o->sol[i] > o->sol[o->limiter]))
			o->limiter = i;

	if (known(in->median_ms) && known(in->empty_ms) && in->empty_ms > 0 &&
	    in->median_ms < EXPLAIN_LAUNCH_FACTOR * in->empty_ms) {
		o->bound = BOUND_LAUNCH;
		snprintf(o->verdict, sizeof o->verdict,
		         "launch-bound: %.3g us is within %.0fx of an empty launch (%.3g us): the launch, not "
		         "the kernel, sets the time", in->median_ms * 1e3, EXPLAIN_LAUNCH_FACTOR, in->empty_ms * 1e3);
		snprintf(o->headroom_text, sizeof o->headroom_text,
		         "only fewer launches (fuse kernels, CUDA graphs) or more work per launch can help");
	} else if (o->limiter >= 0 && o->sol[o->limiter] >= EXPLAIN_BUSY_PCT) {
		o->bound = o->limiter == EXPLAIN_SM ? BOUND_COMPUTE : BOUND_MEMORY;
		if (o->limiter == EXPLAIN_SM)
			snprintf(o->verdict, sizeof o->verdict, "compute-bound: the SMs at %.0f%% of their peak",
			         o->sol[o->limiter]);
		else
			snprintf(o->verdict, sizeof o->verdict, "memory-bound: %s at %.0f%% of its peak",
			         explain_unit_name(o->limiter), o->sol[o->limiter]);
		/* bound by L1 or L2, not DRAM: the declared bytes (a floor) say
		 * little; the roof the kernel is nearer says how far it can go */
		headroom(in, o, o->bound == BOUND_COMPUTE || (o->limiter != EXPLAIN_DRAM && nearer_fp32(o)));
	} else if (o->limiter >= 0) {
		o->bound = BOUND_LATENCY;
		snprintf(o->verdict, sizeof o->verdict,
		         "latency-bound: no unit at %.0f%% of its peak (the busiest, %s, at %.0f%%): too little "
		         "parallelism, or warps stalled on dependent instructions", EXPLAIN_BUSY_PCT,
		         explain_unit_name(o->limiter), o->sol[o->limiter]);
		headroom(in, o, nearer_fp32(o));
	} else if (known(o->roof_frac) && o->roof_frac >= EXPLAIN_BUSY_PCT / 100) {
		o->bound = BOUND_MEMORY;
		snprintf(o->verdict, sizeof o->verdict,
		         "memory-bound, from timing alone: the declared bytes move at %.0f%% of the memory roof",
		         o->roof_frac * 100);
		headroom(in, o, 0);
	} else if (known(o->flop_frac) && o->flop_frac >= EXPLAIN_BUSY_PCT / 100) {
		o->bound = BOUND_COMPUTE;
		snprintf(o->verdict, sizeof o->verdict,
		         "compute-bound, from timing alone: the declared flops run at %.0f%% of the %s roof",
		         o->flop_frac * 100, froof_name);
		headroom(in, o, 1);
	} else {
		o->bound = BOUND_UNKNOWN;
		if (known(o->roof_frac))
			snprintf(o->verdict, sizeof o->verdict,
			         "timing alone cannot tell: the declared bytes move at %.0f%% of the memory roof, "
			         "so memory bandwidth is not what limits it", o->roof_frac * 100);
		else
			snprintf(o->verdict, sizeof o->verdict, "timing alone cannot tell (no '//@ bytes' line)");
		headroom(in, o, nearer_fp32(o));
	}
	/* what the code and the roofs say, counters or not */
	rule_no_wgmma(in, o);
	rule_spills(in, o);
	if (!in->counters) {
		snprintf(o->needs, sizeof o->needs,
		         "the speed of light, the limiter and the rules need hardware counters");
		return;
	}
	rule_uncoalesced(in, o);
	if (in->ldmatrix)
		rule_ldmatrix(in, o);
	else
		rule_bank(in, o);
	rule_turns(in, o);
	rule_l1(in, o);
	if (o->bound == BOUND_LATENCY)
		rule_occupancy(in, o);
	rule_divergence(in, o);
	rule_atomics(in, o);
	rule_local(in, o);
}

/* ---------------------------------------------------------------- table */

static void bar(char *buf, size_t n, double pct, int unicode)
{
	enum { W = 20 };
	int full = (int)lround((pct < 0 ? 0 : pct > 100 ? 100 : pct) / 100 * W);
	size_t k = 0;
	buf[0] = 0;
	for (int i = 0; i < W && k + 4 < n; i++) {
		const char *c = i < full ? (unicode ? "\u2588" : "#") : (unicode ? "\u2591" : ".");
		size_t l = strlen(c);
		memcpy(buf + k, c, l);
		k += l;
	}
	buf[k] = 0;
}

static void human(table *t, const char *kernel, const explain_out *o, int unicode, int mask)
{
	const char *head[] = { "kernel", "what", "figure", "says" };
	table_init(t, 4, head, "llll");
	table_kind(t, "explain");
	char b[160], f[64];
	int first = 1;
#define ROW(what) do { r = table_row(t); table_set(t, r, 0, "%s", first ? kernel : ""); first = 0; \
		table_set(t, r, 1, "%s", what); } while (0)
	int r;
	if (o->counters) {
		const char *say[EXPLAIN_NUNITS] = { "device memory (DRAM/HBM)", "L2 cache (lts)",
			                            "L1 and shared memory (l1tex)", "SM pipes (compute)" };
		for (int u = 0; u < EXPLAIN_NUNITS; u++) {
			ROW(explain_unit_name(u));
			if (mask) {
				table_set(t, r, 2, "<m>");
			} else if (known(o->sol[u])) {
				bar(b, sizeof b, o->sol[u], unicode);
				table_set(t, r, 2, "%s %5.1f%%", b, o->sol[u]);
			} else {
				table_set(t, r, 2, "-");
			}
			table_set(t, r, 3, "%s%s", say[u], u == o->limiter ? ": the limiter" : "");
		}
	}
	if (o->pipe >= 0 && o->pipe < TP_N) {
		ROW("pipe");
		if (mask && known(o->tensor_active))
			table_set(t, r, 2, "<m>");
		else if (known(o->tensor_active)) {
			bar(b, sizeof b, o->tensor_active, unicode);
			table_set(t, r, 2, "%s %5.1f%%", b, o->tensor_active);
		} else {
			table_set(t, r, 2, "%s", tensor_prec_name(o->pipe));
		}
		table_set(t, r, 3, "%s", mask ? "<m>" : o->pipe_text);
	}
	ROW("verdict");
	if (o->bound == BOUND_UNKNOWN)
		table_set(t, r, 2, "unknown");
	else
		table_set(t, r, 2, "%s-bound", explain_bound_name(o->bound));
	table_set(t, r, 3, "%s", mask && !o->counters ? "<m>" : o->verdict);
	ROW("headroom");
	if (known(o->headroom))
		snprintf(f, sizeof f, o->headroom <= EXPLAIN_AT_ROOF ? "at the roof" : "%.1fx left", o->headroom);
	else
		snprintf(f, sizeof f, "-");
	table_set(t, r, 2, "%s", mask ? "<m>" : f);
	table_set(t, r, 3, "%s", mask ? "<m>" : o->headroom_text);
	for (int i = 0; i < o->nrules; i++) {
		const explain_rule *ru = &o->rules[i];
		ROW(ru->name);
		if (mask)
			table_set(t, r, 2, "<m>");
		else
			table_set(t, r, 2, "%.1f %s", ru->evidence, ru->unit);
		table_set(t, r, 3, "%s", mask ? "<m>" : ru->text);
		ROW("  fix");
		table_set(t, r, 3, "%s", ru->fix);
	}
	if (o->counters && o->nrules == 0) {
		ROW("rules");
		table_set(t, r, 3, "none fired");
	}
	if (o->needs[0]) {
		ROW("needs");
		table_set(t, r, 3, "%s", o->needs);
	}
#undef ROW
}

void explain_table(table *t, const char *kernel, const explain_out *o, int human_rows, int unicode, int mask)
{
	if (human_rows) {
		human(t, kernel, o, unicode, mask);
		return;
	}
	const char *head[] = { "kernel", "part", "name", "value", "unit", "text", "fix" };
	table_init(t, 7, head, "lllrlll");
	table_kind(t, "explain");
	table_col(t, 3, "value", U_PLAIN, COL_BOTH);
	int r;
#define ROW(part, name) do { r = table_row(t); table_set(t, r, 0, "%s", kernel); \
		table_set(t, r, 1, "%s", part); table_set(t, r, 2, "%s", name); } while (0)
#define VAL(v) do { if (mask) table_set(t, r, 3, "<m>"); else if (known(v)) table_num(t, r, 3, (v)); } while (0)
	for (int u = 0; o->counters && u < EXPLAIN_NUNITS; u++) {
		ROW("sol", explain_unit_name(u));
		VAL(o->sol[u]);
		table_set(t, r, 4, "%%");
		if (u == o->limiter)
			table_set(t, r, 5, "limiter");
	}
	if (o->pipe >= 0 && o->pipe < TP_N) {
		ROW("pipe", tensor_prec_name(o->pipe));
		VAL(o->tensor_active);
		table_set(t, r, 4, "%%");
		table_set(t, r, 5, "%s", mask ? "<m>" : o->pipe_text);
	}
	ROW("limiter", explain_unit_name(o->limiter));
	ROW("verdict", explain_bound_name(o->bound));
	table_set(t, r, 5, "%s", mask && !o->counters ? "<m>" : o->verdict);
	ROW("headroom", o->headroom_roof ? o->headroom_roof : "");
	VAL(o->headroom);
	table_set(t, r, 4, "x");
	table_set(t, r, 5, "%s", mask ? "<m>" : o->headroom_text);
	for (int i = 0; i < o->nrules; i++) {
		const explain_rule *ru = &o->rules[i];
		ROW("rule", ru->name);
		VAL(ru->evidence);
		table_set(t, r, 4, "%s", ru->unit);
		table_set(t, r, 5, "%s", mask ? "<m>" : ru->text);
		table_set(t, r, 6, "%s", ru->fix);
	}
	if (o->needs[0]) {
		ROW("needs", "counters");
		table_set(t, r, 5, "%s", o->needs);
	}
#undef ROW
#undef VAL
}
