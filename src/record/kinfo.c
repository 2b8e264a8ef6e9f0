/* kinfo.c: the `info` block and the "what changed" line. */
#include "kinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result.h"
#include "util.h"

occ_input kinfo_occ_input(const kres *r, const plan_launch *l)
{
	occ_input in;
	memset(&in, 0, sizeof in);
	if (r && r->known) {
		in.regs = r->regs;
		in.static_smem = r->smem;
	}
	if (l) {
		in.dyn_smem = (int)l->smem;
		in.threads = (int)(l->block[0] * (l->block[1] ? l->block[1] : 1) * (l->block[2] ? l->block[2] : 1));
	}
	return in;
}

static void row(table *t, const char *what, const char *val)
{
	int r = table_row(t);
	table_set(t, r, 0, "%s", what);
	table_set(t, r, 1, "%s", val);
}

void kinfo_table(table *t, const char *name, const char *lowered, const char *arch, const kres *r,
                   const plan_launch *l, const devinfo *d, const sass_counts *counts)
{
	const char *head[] = { "what", "value" };
	table_init(t, 2, head, "ll");
	sbuf b = {0};
	char x[64], y[64];

	sb_printf(&b, "%s", name ? name : "?");
	if (lowered && name && strcmp(lowered, name) != 0)
		sb_printf(&b, " (%s)", lowered);
	if (arch && *arch)
		sb_printf(&b, ", %s", arch);
	row(t, "kernel", b.s);
	sb_free(&b);

	if (r && r->known) {
		fmt_bytes(r->smem, x, sizeof x);
		sb_printf(&b, "%d register%s, %s shared (static), %d B stack, ", r->regs, r->regs == 1 ? "" : "s", x,
		          r->stack);
		if (r->spill_st < 0 || r->spill_ld < 0)
			sb_puts(&b, "spills not reported (read from the cubin: NVRTC gave no ptxas report)");
		else if (r->spill_st || r->spill_ld)
			sb_printf(&b, "spills: %d B stored, %d B loaded", r->spill_st, r->spill_ld);
		else
			sb_puts(&b, "no spills");
		row(t, "resources", b.s);
		sb_free(&b);
	} else {
		row(t, "resources", "unknown (no ptxas report)");
	}

	occ_input in = kinfo_occ_input(r, l);
	if (l) {
		fmt_dims(x, sizeof x, l->grid);
		fmt_dims(y, sizeof y, l->block);
		sb_printf(&b, "grid %s, block %s = %d thread%s, ", x, y, in.threads, in.threads == 1 ? "" : "s");
		if (l->smem) {
			fmt_bytes(l->smem, x, sizeof x);
			sb_printf(&b, "%s dynamic shared memory", x);
			if ((uint64_t)l->smem + (uint64_t)(r && r->known ? r->smem : 0) > 48 * 1024)
				sb_puts(&b, " (over 48 KiB: opted in with cuFuncSetAttribute, "
				            "MAX_DYNAMIC_SHARED_SIZE_BYTES)");
		} else {
			sb_puts(&b, "no dynamic shared memory");
		}
		row(t, "launch", b.s);
		sb_free(&b);
		if (l->cluster[0]) {
			fmt_dims(x, sizeof x, l->cluster);
			sb_printf(&b, "%s blocks a cluster (launched with cuLaunchKernelEx)", x);
			row(t, "cluster", b.s);
			sb_free(&b);
		}
	}

	if (l && d && r && r->known && in.threads > 0) {
		occ_result o;
		if (occ_compute(d, &in, &o) == 0) {
			char line[256];
			occ_format(&o, line, sizeof line);
			/* "occupancy 75% (...)": the row is already called occupancy */
			row(t, "occupancy", strncmp(line, "occupancy ", 10) == 0 ? line + 10 : line);
		}
	}

	if (counts) {
		char line[512];
		sass_summary(counts, line, sizeof line);
		row(t, "sass", line);
	}
}

enum { K_KERNEL, K_LOWERED, K_SM, K_REGS, K_SMEM, K_STACK, K_SPILL_ST, K_SPILL_LD, K_GRID, K_BLOCK, K_THREADS,
       K_DYN, K_CLUSTER, K_OCC, K_WARPS, K_MAXW, K_BPS, K_LIMIT, K_DRV_BLOCKS, K_BEST_BLOCK, K_BEST_GRID, K_ARCH,
       K_STATE, K_N };

void kinfo_record(table *t, const char *name, const char *lowered, const char *arch, const kres *r,
                  const plan_launch *l, const devinfo *d, const struct func_info *fi, const char *state)
{
	static const char *const head[K_N] = {
		"kernel", "lowered", "sm", "regs", "smem_static_bytes", "stack_bytes", "spill_store_bytes",
		"spill_load_bytes", "grid", "block", "threads", "dyn_smem_bytes", "cluster", "occupancy_frac",
		"active_warps", "max_warps", "blocks_per_sm", "limited_by", "driver_blocks_per_sm", "best_block",
		"best_grid", "arch", "state"
	};
	table_init(t, K_N, head, NULL);
	table_kind(t, "info");
	int row = table_row(t);
	char x[64];
	table_set(t, row, K_KERNEL, "%s", name ? name : "");
	if (state && *state)
		table_set(t, row, K_STATE, "%s", state);
	if (lowered)
		table_set(t, row, K_LOWERED, "%s", lowered);
	if (arch && strncmp(arch, "sm_", 3) == 0) {
		table_num(t, row, K_SM, atoi(arch + 3));
		table_set(t, row, K_ARCH, "%s", arch);
	}
	if (r && r->known) {
		table_num(t, row, K_REGS, r->regs);
		table_num(t, row, K_SMEM, r->smem);
		table_num(t, row, K_STACK, r->stack);
		if (r->spill_st >= 0 && r->spill_ld >= 0) {
			table_num(t, row, K_SPILL_ST, r->spill_st);
			table_num(t, row, K_SPILL_LD, r->spill_ld);
		}
	}
	occ_input in = kinfo_occ_input(r, l);
	if (l) {
		fmt_dims(x, sizeof x, l->grid);
		table_set(t, row, K_GRID, "%s", x);
		fmt_dims(x, sizeof x, l->block);
		table_set(t, row, K_BLOCK, "%s", x);
		table_num(t, row, K_THREADS, in.threads);
		table_num(t, row, K_DYN, (double)l->smem);
		if (l->cluster[0]) {
			fmt_dims(x, sizeof x, l->cluster);
			table_set(t, row, K_CLUSTER, "%s", x);
		}
	}
	occ_result o;
	if (l && d && r && r->known && in.threads > 0 && occ_compute(d, &in, &o) == 0 && o.ok) {
		table_num(t, row, K_OCC, o.occupancy);
		table_num(t, row, K_WARPS, o.active_warps);
		table_num(t, row, K_MAXW, o.max_warps);
		table_num(t, row, K_BPS, o.blocks_per_sm);
		sbuf b = {0};
		static const struct { unsigned bit; const char *name; } lim[] = {
			{ OCC_LIMIT_WARPS, "threads" }, { OCC_LIMIT_REGS, "registers" },
			{ OCC_LIMIT_SMEM, "shared memory" }, { OCC_LIMIT_BLOCKS, "blocks" },
		};
		for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++)
			if (o.limits & lim[i].bit)
				sb_printf(&b, "%s%s", b.len ? ", " : "", lim[i].name);
		if (b.len)
			table_set(t, row, K_LIMIT, "%s", b.s);
		sb_free(&b);
	}
	if (fi && fi->known) {
		if (fi->occ_blocks >= 0)
			table_num(t, row, K_DRV_BLOCKS, fi->occ_blocks);
		if (fi->suggest_block > 0) {
			table_num(t, row, K_BEST_BLOCK, fi->suggest_block);
			table_num(t, row, K_BEST_GRID, fi->suggest_grid);
		}
	}
}

int kinfo_changes(const kres *a, const plan_launch *la, const kres *b, const plan_launch *lb,
                  const devinfo *d, char *buf, int n)
{
	if (n > 0)
		buf[0] = 0;
	if (!a || !b || !a->known || !b->known)
		return 0;
	occ_input ia = kinfo_occ_input(a, la), ib = kinfo_occ_input(b, lb);
	/* with a device, occ_diff words registers, shared memory, block size and
	 * occupancy; its leading "registers a -> b" stays first */
	char occ[512] = "";
	int have_occ = 0;
	if (d && ia.threads > 0 && ib.threads > 0) {
		occ_result ra, rb;
		if (occ_compute(d, &ia, &ra) == 0 && occ_compute(d, &ib, &rb) == 0) {
			occ_diff(&ia, &ra, &ib, &rb, occ, sizeof occ);
			have_occ = 1;
		}
	}
	const char *rest = occ;
	sbuf s = {0};
	if (have_occ && strncmp(occ, "registers ", 10) == 0) {
		const char *comma = strstr(occ, ", ");
		size_t head = comma ? (size_t)(comma - occ) : strlen(occ);
		sb_add(&s, occ, head);
		rest = comma ? comma + 2 : "";
	} else if (!have_occ && a->regs != b->regs) {
		sb_printf(&s, "registers %d -> %d", a->regs, b->regs);
	}
	char x[32], y[32];
	int sa = a->spill_st + a->spill_ld, sb = b->spill_st + b->spill_ld;
	if (sa != sb && a->spill_st >= 0 && b->spill_st >= 0) {
		fmt_bytes(sa, x, sizeof x);
		fmt_bytes(sb, y, sizeof y);
		sb_printf(&s, "%sspills %s -> %s", s.len ? ", " : "", x, y);
	}
	if (a->stack != b->stack)
		sb_printf(&s, "%sstack %d B -> %d B", s.len ? ", " : "", a->stack, b->stack);
	if (!have_occ && a->smem != b->smem) {
		fmt_bytes(a->smem, x, sizeof x);
		fmt_bytes(b->smem, y, sizeof y);
		sb_printf(&s, "%sshared memory %s -> %s", s.len ? ", " : "", x, y);
	}
	if (*rest) {
		/* "occupancy 100% unchanged" reads on its own after other changes */
		sb_printf(&s, "%s%s", s.len ? ", " : "", rest);
	}
	return sb_copy_out(&s, buf, n);
}
