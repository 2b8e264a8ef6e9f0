/* test_kinfo.c: the `info` table and the "what changed" line. */
#include "test.h"

#include <string.h>

#include "kinfo.h"

static devinfo h100(void)
{
	devinfo d;
	memset(&d, 0, sizeof d);
	d.cc_major = 9;
	d.warp_size = 32;
	d.max_threads_per_block = 1024;
	d.max_threads_sm = 2048;
	d.regs_per_sm = d.regs_per_block = 65536;
	d.max_blocks_sm = 32;
	d.max_smem_block = 48 * 1024;
	d.max_smem_optin = 232448;
	d.max_smem_sm = 233472;
	return d;
}

static plan_launch launch(uint32_t gx, uint32_t gy, uint32_t bx, uint32_t by, uint32_t smem)
{
	plan_launch l;
	memset(&l, 0, sizeof l);
	snprintf(l.name, sizeof l.name, "transpose_tiled");
	snprintf(l.lowered, sizeof l.lowered, "_Z15transpose_tiledPKfPfi");
	l.grid[0] = gx, l.grid[1] = gy, l.grid[2] = 1;
	l.block[0] = bx, l.block[1] = by, l.block[2] = 1;
	l.smem = smem;
	return l;
}

static kres res(int regs, int smem, int stack, int spill)
{
	kres r;
	memset(&r, 0, sizeof r);
	r.known = 1;
	r.regs = regs;
	r.smem = smem;
	r.stack = stack;
	r.spill_st = spill;
	r.spill_ld = spill;
	return r;
}

static const char *cell(const table *t, int r, int c)
{
	const char *s = t->cells[r * t->ncols + c];
	return s ? s : "";
}

TEST(info_table)
{
	devinfo d = h100();
	plan_launch l = launch(256, 256, 32, 8, 0);
	kres r = res(30, 4224, 0, 0);
	sass_counts c;
	memset(&c, 0, sizeof c);
	c.instructions = 50;
	c.ld_global = c.st_global = c.ld_shared = c.st_shared = 4;
	c.ld_global_bits = c.st_global_bits = c.ld_shared_bits = c.st_shared_bits = 32;
	c.barriers = 1;
	table t;
	kinfo_table(&t, l.name, l.lowered, "sm_90", &r, &l, &d, &c);
	CHECK(t.ncols == 2 && t.nrows == 5);
	CHECK_STREQ(cell(&t, 0, 1), "transpose_tiled (_Z15transpose_tiledPKfPfi), sm_90");
	CHECK_STREQ(cell(&t, 1, 1), "30 registers, 4.1 KiB shared (static), 0 B stack, no spills");
	CHECK_STREQ(cell(&t, 2, 1), "grid 256x256, block 32x8 = 256 threads, no dynamic shared memory");
	CHECK_STREQ(cell(&t, 3, 0), "occupancy");
	CHECK_STREQ(cell(&t, 3, 1), "100% (64 of 64 warps, 8 blocks of 8 warps per SM), limited by threads, registers");
	CHECK_STREQ(cell(&t, 4, 1), "50 instructions; global: 4 loads (32-bit), 4 stores (32-bit); "
	                            "shared: 4 loads (32-bit), 4 stores (32-bit); local: none; 1 barrier");
	table_free(&t);

	/* extern "C": no lowered name shown; spills; dynamic shared memory; no device, no counts */
	r = res(255, 0, 64, 24);
	l = launch(1024, 1, 256, 1, 16384);
	kinfo_table(&t, "copy", "copy", "sm_80", &r, &l, NULL, NULL);
	CHECK(t.nrows == 3);
	CHECK_STREQ(cell(&t, 0, 1), "copy, sm_80");
	CHECK_STREQ(cell(&t, 1, 1), "255 registers, 0 B shared (static), 64 B stack, spills: 24 B stored, 24 B loaded");
	CHECK_STREQ(cell(&t, 2, 1), "grid 1024, block 256 = 256 threads, 16.0 KiB dynamic shared memory");
	table_free(&t);

	kres unknown;
	memset(&unknown, 0, sizeof unknown);
	kinfo_table(&t, "k", NULL, NULL, &unknown, NULL, &d, NULL);
	CHECK(t.nrows == 2);
	CHECK_STREQ(cell(&t, 0, 1), "k");
	CHECK_STREQ(cell(&t, 1, 1), "unknown (no ptxas report)");
	table_free(&t);
}

TEST(changes)
{
	devinfo d = h100();
	plan_launch l = launch(256, 256, 32, 8, 0);
	kres a = res(32, 0, 0, 0), b = res(40, 0, 0, 0);
	char buf[256];
	int n = kinfo_changes(&a, &l, &b, &l, &d, buf, sizeof buf);
	CHECK_STREQ(buf, "registers 32 -> 40, occupancy 100% -> 75% (limited by registers)");
	CHECK(n == (int)strlen(buf));

	/* spills slot in after registers */
	kres c = res(255, 0, 16, 12);
	kinfo_changes(&b, &l, &c, &l, &d, buf, sizeof buf);
	CHECK_STREQ(buf, "registers 40 -> 255, spills 0 B -> 24 B, stack 0 B -> 16 B, occupancy 75% -> 12.5% "
	                 "(limited by registers)");

	/* nothing changed */
	CHECK(kinfo_changes(&a, &l, &a, &l, &d, buf, sizeof buf) == 0);
	CHECK_STREQ(buf, "");

	/* no device: the figures alone */
	kres e = res(32, 4224, 0, 0);
	kinfo_changes(&a, &l, &e, &l, NULL, buf, sizeof buf);
	CHECK_STREQ(buf, "shared memory 0 B -> 4.1 KiB");
	kinfo_changes(&a, &l, &b, &l, NULL, buf, sizeof buf);
	CHECK_STREQ(buf, "registers 32 -> 40");

	/* the block size from the launch */
	plan_launch l2 = launch(256, 256, 32, 32, 0);
	kinfo_changes(&a, &l, &a, &l2, &d, buf, sizeof buf);
	CHECK_STREQ(buf, "threads per block 256 -> 1024, occupancy 100% unchanged");

	/* unknown resources: nothing to say */
	kres u;
	memset(&u, 0, sizeof u);
	CHECK(kinfo_changes(&u, &l, &a, &l, &d, buf, sizeof buf) == 0);
}

int main(void)
{
	RUN(info_table);
	RUN(changes);
	return test_report("kinfo");
}
