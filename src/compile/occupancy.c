/* occupancy.c: theoretical occupancy, after CUDA's occupancy calculator. */
#include "occupancy.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "util.h"

static int div_up(int x, int y)
{
	return (x + y - 1) / y;
}

static int round_up(int x, int y)
{
	return y * div_up(x, y);
}

static int imin(int a, int b)
{
	return a < b ? a : b;
}

/* cudaOccMaxBlocksPerMultiprocessor, for a devinfo that lacks the figure. */
static int arch_max_blocks(int major, int minor)
{
	switch (major) {
	case 7: return minor == 5 ? 16 : 32;
	case 8: return minor == 0 ? 32 : minor == 9 ? 24 : 16;
	case 9: return 32;
	case 10: return minor == 1 ? 24 : 32;
	case 11: return minor == 0 ? 24 : 32;
	case 12: return 24;
	default: return 32;
	}
}

int occ_compute(const devinfo *d, const occ_input *in, occ_result *out)
{
	memset(out, 0, sizeof *out);
	if (!d || !in || in->threads <= 0 || in->regs < 0 || in->static_smem < 0 || in->dyn_smem < 0)
		return -1;
	int major = d->cc_major, minor = d->cc_minor;
	int warp = d->warp_size > 0 ? d->warp_size : 32;
	int threads_sm = d->max_threads_sm > 0 ? d->max_threads_sm : 2048;
	int max_threads_block = d->max_threads_per_block > 0 ? d->max_threads_per_block : 1024;
	int regs_sm = d->regs_per_sm > 0 ? d->regs_per_sm : 65536;
	int regs_block = d->regs_per_block > 0 ? d->regs_per_block : 65536;
	int blocks_sm = d->max_blocks_sm > 0 ? d->max_blocks_sm : arch_max_blocks(major, minor);
	int smem_sm = d->max_smem_sm;
	int smem_block = d->max_smem_block > 0 ? d->max_smem_block : 48 * 1024;
	int smem_optin = d->max_smem_optin > 0 ? d->max_smem_optin : smem_block;
	if (smem_sm <= 0)
		return -1;

	/* Architecture constants (cuda_occupancy.h): register allocation unit
	 * 256 per warp, 4 sub-partitions, at most 256 registers a thread; shared
	 * memory in units of 256 B before sm_80 and 128 B since, where the
	 * driver also reserves 1 KiB per block. */
	const int reg_unit = 256, subparts = 4, max_regs_thread = 256;
	int smem_unit = major >= 8 ? 128 : 256;
	int reserved = major >= 8 ? 1024 : 0;

	out->warps_per_block = div_up(in->threads, warp);
	out->max_warps = threads_sm / warp;

	/* warps */
	if (in->threads > max_threads_block) {
		out->by_warps = 0;
		snprintf(out->why, sizeof out->why, "a block of %d threads exceeds the device's %d",
		         in->threads, max_threads_block);
	} else {
		out->by_warps = out->max_warps / out->warps_per_block;
	}

	/* registers */
	out->regs_per_warp = round_up(in->regs * warp, reg_unit);
	if (out->regs_per_warp == 0) {
		out->by_regs = INT_MAX;
	} else {
		int per_block = out->regs_per_warp * out->warps_per_block;
		/* the hardware check assumes the warps spread over all sub-partitions */
		int assumed = out->regs_per_warp * round_up(out->warps_per_block, subparts);
		if (in->regs > max_regs_thread || per_block > regs_block || assumed > regs_block) {
			out->by_regs = 0;
			if (!out->why[0])
				snprintf(out->why, sizeof out->why,
				         "%d registers per thread x %d threads need %d registers, more than the %d a block may have",
				         in->regs, in->threads, assumed > per_block ? assumed : per_block, regs_block);
		} else {
			int warps_sp = (regs_sm / subparts) / out->regs_per_warp;
			out->by_regs = warps_sp * subparts / out->warps_per_block;
		}
	}

	/* shared memory */
	int used = in->static_smem + in->dyn_smem;
	out->smem_per_block = round_up(used + reserved, smem_unit);
	int limit = (used > smem_block ? smem_optin : smem_block) + reserved;
	out->smem_per_sm = smem_sm;
	if (out->smem_per_block > limit) {
		out->by_smem = 0;
		if (!out->why[0]) {
			char a[32], b[32];
			fmt_bytes(used, a, sizeof a);
			fmt_bytes(limit - reserved, b, sizeof b);
			snprintf(out->why, sizeof out->why, "%s of shared memory per block exceeds the device's %s", a, b);
		}
	} else {
		out->by_smem = out->smem_per_block > 0 ? smem_sm / out->smem_per_block : INT_MAX;
	}

	out->by_blocks = blocks_sm;

	int n = imin(imin(out->by_warps, out->by_regs), imin(out->by_smem, out->by_blocks));
	out->blocks_per_sm = n;
	if (n <= 0) {
		out->ok = 0;
		out->blocks_per_sm = 0;
		if (!out->why[0])
			snprintf(out->why, sizeof out->why, "no block fits on an SM");
		return 0;
	}
	out->ok = 1;
	if (n == out->by_warps)
		out->limits |= OCC_LIMIT_WARPS;
	if (n == out->by_regs)
		out->limits |= OCC_LIMIT_REGS;
	if (n == out->by_smem)
		out->limits |= OCC_LIMIT_SMEM;
	if (n == out->by_blocks)
		out->limits |= OCC_LIMIT_BLOCKS;
	out->active_warps = n * out->warps_per_block;
	out->occupancy = out->max_warps > 0 ? (double)out->active_warps / out->max_warps : 0;
	return 0;
}

const char *occ_limit_text(unsigned limits, char *buf, int n)
{
	static const struct { unsigned bit; const char *name; } names[] = {
		{ OCC_LIMIT_WARPS, "threads" },
		{ OCC_LIMIT_REGS, "registers" },
		{ OCC_LIMIT_SMEM, "shared memory" },
		{ OCC_LIMIT_BLOCKS, "blocks per SM" },
	};
	int len = 0;
	if (n > 0)
		buf[0] = 0;
	for (size_t i = 0; i < ARRAY_LEN(names); i++) {
		if (!(limits & names[i].bit))
			continue;
		int w = snprintf(buf + len, (size_t)(n - len), "%s%s", len ? ", " : "", names[i].name);
		if (w < 0 || w >= n - len)
			break;
		len += w;
	}
	return buf;
}

static void fmt_pct(double frac, char *buf, int n)
{
	double p = frac * 100;
	if (p == (double)(long)p)
		snprintf(buf, (size_t)n, "%.0f%%", p);
	else
		snprintf(buf, (size_t)n, "%.1f%%", p);
}

void occ_format(const occ_result *r, char *buf, int n)
{
	if (!r->ok) {
		snprintf(buf, (size_t)n, "occupancy 0%%: %s", r->why);
		return;
	}
	char pct[16], lim[96];
	fmt_pct(r->occupancy, pct, sizeof pct);
	occ_limit_text(r->limits, lim, sizeof lim);
	snprintf(buf, (size_t)n, "occupancy %s (%d of %d warps, %d block%s of %d warp%s per SM), limited by %s",
	         pct, r->active_warps, r->max_warps, r->blocks_per_sm, r->blocks_per_sm == 1 ? "" : "s",
	         r->warps_per_block, r->warps_per_block == 1 ? "" : "s", lim);
}

int occ_diff(const occ_input *a_in, const occ_result *a, const occ_input *b_in, const occ_result *b,
             char *buf, int n)
{
	sbuf s = {0};
	char x[32], y[32];
	if (a_in->regs != b_in->regs)
		sb_printf(&s, "%sregisters %d -> %d", s.len ? ", " : "", a_in->regs, b_in->regs);
	int sa = a_in->static_smem + a_in->dyn_smem, sb = b_in->static_smem + b_in->dyn_smem;
	if (sa != sb) {
		fmt_bytes(sa, x, sizeof x);
		fmt_bytes(sb, y, sizeof y);
		sb_printf(&s, "%sshared memory %s -> %s", s.len ? ", " : "", x, y);
	}
	if (a_in->threads != b_in->threads)
		sb_printf(&s, "%sthreads per block %d -> %d", s.len ? ", " : "", a_in->threads, b_in->threads);
	double oa = a->ok ? a->occupancy : 0, ob = b->ok ? b->occupancy : 0;
	if (oa != ob || a->ok != b->ok) {
		fmt_pct(oa, x, sizeof x);
		fmt_pct(ob, y, sizeof y);
		sb_printf(&s, "%soccupancy %s -> %s", s.len ? ", " : "", x, y);
		if (!b->ok) {
			sb_printf(&s, " (%s)", b->why);
		} else if (ob < 1.0) {
			char lim[96];
			occ_limit_text(b->limits, lim, sizeof lim);
			sb_printf(&s, " (limited by %s)", lim);
		}
	} else if (s.len) {
		fmt_pct(ob, y, sizeof y);
		sb_printf(&s, ", occupancy %s unchanged", y);
	}
	return sb_copy_out(&s, buf, n);
}
