/* test_occupancy.c: theoretical occupancy against hand-computed cases.
 *
 * Every case spells out the arithmetic of cuda_occupancy.h:
 *   warps/block   = ceil(threads / 32)
 *   by_warps      = (max_threads_sm / 32) / warps_per_block
 *   regs/warp     = roundup(regs * 32, 256)
 *   by_regs       = ((regs_sm / 4) / regs_per_warp) * 4 / warps_per_block
 *   smem/block    = roundup(static + dynamic + reserved, unit)
 *                   (reserved 1024, unit 128 on sm_80+; 0 and 256 on sm_70)
 *   by_smem       = smem_sm / smem_per_block
 *   blocks/SM     = min(by_warps, by_regs, by_smem, max_blocks_sm) */
#include "test.h"

#include <limits.h>
#include <string.h>

#include "occupancy.h"

/* H100 SXM (sm_90): 2048 threads, 65536 registers, 228 KiB shared memory
 * per SM (227 KiB opt-in per block), 32 blocks per SM. */
static devinfo h100(void)
{
	devinfo d;
	memset(&d, 0, sizeof d);
	d.cc_major = 9;
	d.cc_minor = 0;
	d.warp_size = 32;
	d.max_threads_per_block = 1024;
	d.max_threads_sm = 2048;
	d.regs_per_sm = 65536;
	d.regs_per_block = 65536;
	d.max_blocks_sm = 32;
	d.max_smem_block = 48 * 1024;
	d.max_smem_optin = 232448;
	d.max_smem_sm = 233472;
	return d;
}

/* V100 (sm_70): 96 KiB shared memory per SM, no reserved part, 256 B unit. */
static devinfo v100(void)
{
	devinfo d = h100();
	d.cc_major = 7;
	d.cc_minor = 0;
	d.max_smem_optin = 98304;
	d.max_smem_sm = 98304;
	return d;
}

static occ_input in(int regs, int static_smem, int dyn_smem, int threads)
{
	occ_input i = { regs, static_smem, dyn_smem, threads };
	return i;
}

TEST(full_occupancy)
{
	/* 32 regs, 256 threads, no shared memory, H100:
	 * warps/block 8; by_warps 64/8 = 8
	 * regs/warp 32*32 = 1024; 16384/1024 = 16 warps a sub-partition, 64 an SM; by_regs 64/8 = 8
	 * smem/block roundup(0 + 1024, 128) = 1024; by_smem 233472/1024 = 228
	 * blocks min(8, 8, 228, 32) = 8; 64 warps of 64 = 100%, threads and registers tie */
	devinfo d = h100();
	occ_input i = in(32, 0, 0, 256);
	occ_result r;
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(r.ok);
	CHECK(r.warps_per_block == 8 && r.max_warps == 64);
	CHECK(r.by_warps == 8 && r.by_regs == 8 && r.by_smem == 228 && r.by_blocks == 32);
	CHECK(r.regs_per_warp == 1024 && r.smem_per_block == 1024);
	CHECK(r.blocks_per_sm == 8 && r.active_warps == 64);
	CHECK_NEAR(r.occupancy, 1.0, 1e-12);
	CHECK(r.limits == (OCC_LIMIT_WARPS | OCC_LIMIT_REGS));
	char buf[128];
	CHECK_STREQ(occ_limit_text(r.limits, buf, sizeof buf), "threads, registers");
	occ_format(&r, buf, sizeof buf);
	CHECK_STREQ(buf, "occupancy 100% (64 of 64 warps, 8 blocks of 8 warps per SM), limited by threads, registers");
}

TEST(register_limited)
{
	/* 40 regs, 256 threads, H100:
	 * regs/warp 40*32 = 1280 (a multiple of 256); 16384/1280 = 12 warps a
	 * sub-partition, 48 an SM; by_regs 48/8 = 6
	 * by_warps 8, by_smem 228, blocks 32 -> 6 blocks, 48 warps = 75% */
	devinfo d = h100();
	occ_input i = in(40, 0, 0, 256);
	occ_result r;
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(r.ok && r.by_regs == 6 && r.blocks_per_sm == 6 && r.active_warps == 48);
	CHECK_NEAR(r.occupancy, 0.75, 1e-12);
	CHECK(r.limits == OCC_LIMIT_REGS);

	/* 33 regs round up like 40: 33*32 = 1056 -> 1280, same 75% */
	i = in(33, 0, 0, 256);
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(r.regs_per_warp == 1280 && r.blocks_per_sm == 6);

	/* 255 regs, 256 threads: 255*32 = 8160 -> 8192 a warp; 16384/8192 = 2
	 * warps a sub-partition, 8 an SM; by_regs 8/8 = 1 -> 8 warps = 12.5% */
	i = in(255, 0, 0, 256);
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(r.ok && r.blocks_per_sm == 1 && r.active_warps == 8);
	CHECK_NEAR(r.occupancy, 0.125, 1e-12);
	char buf[160];
	occ_format(&r, buf, sizeof buf);
	CHECK_STREQ(buf, "occupancy 12.5% (8 of 64 warps, 1 block of 8 warps per SM), limited by registers");
}

TEST(shared_memory)
{
	/* transpose tile 32 x 33 floats = 4224 B static, 30 regs, 32 x 8 threads, H100:
	 * smem/block roundup(4224 + 1024, 128) = 5248 (41 * 128); by_smem 233472/5248 = 44
	 * regs/warp 30*32 = 960 -> 1024; by_regs 8; by_warps 8 -> 8 blocks, 100% */
	devinfo d = h100();
	occ_input i = in(30, 32 * 33 * 4, 0, 256);
	occ_result r;
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(r.smem_per_block == 5248 && r.by_smem == 44 && r.blocks_per_sm == 8);
	CHECK_NEAR(r.occupancy, 1.0, 1e-12);

	/* 48 KiB static, 128 threads, 32 regs:
	 * smem/block roundup(49152 + 1024, 128) = 50176; by_smem 233472/50176 = 4
	 * warps/block 4; by_warps 16; by_regs 64/4 = 16 -> 4 blocks, 16 warps = 25% */
	i = in(32, 48 * 1024, 0, 128);
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(r.smem_per_block == 50176 && r.by_smem == 4 && r.blocks_per_sm == 4);
	CHECK(r.active_warps == 16 && r.limits == OCC_LIMIT_SMEM);
	CHECK_NEAR(r.occupancy, 0.25, 1e-12);

	/* 12300 B static, 128 threads, 32 regs, H100:
	 * roundup(12300 + 1024, 128) = 13440 (105 * 128); 233472/13440 = 17
	 * by_warps 16, by_regs 16 -> 16 blocks, 64 warps, 100% */
	i = in(32, 12300, 0, 128);
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(r.smem_per_block == 13440 && r.by_smem == 17 && r.blocks_per_sm == 16);
	CHECK(r.limits == (OCC_LIMIT_WARPS | OCC_LIMIT_REGS));

	/* the same kernel on a V100 (sm_70): no reserved KiB, 256 B unit:
	 * roundup(12300, 256) = 12544 (49 * 256); 98304/12544 = 7
	 * -> 7 blocks of 4 warps = 28 of 64 warps = 43.75% */
	d = v100();
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(r.smem_per_block == 12544 && r.by_smem == 7 && r.blocks_per_sm == 7);
	CHECK(r.active_warps == 28 && r.limits == OCC_LIMIT_SMEM);
	CHECK_NEAR(r.occupancy, 0.4375, 1e-12);
	char buf[160];
	occ_format(&r, buf, sizeof buf);
	CHECK_STREQ(buf, "occupancy 43.8% (28 of 64 warps, 7 blocks of 4 warps per SM), limited by shared memory");
}

TEST(dynamic_and_optin)
{
	/* dynamic shared memory counts like static: 16 KiB dynamic, 256 threads, 32 regs:
	 * roundup(16384 + 1024, 128) = 17408; 233472/17408 = 13 -> min(8, 8, 13) = 8 */
	devinfo d = h100();
	occ_input i = in(32, 0, 16384, 256);
	occ_result r;
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(r.smem_per_block == 17408 && r.by_smem == 13 && r.blocks_per_sm == 8);

	/* 100 KiB dynamic (over 48 KiB: opt-in limit 227 KiB + 1 KiB reserved):
	 * roundup(102400 + 1024, 128) = 103424; 233472/103424 = 2 -> 2 blocks of 8 warps = 25% */
	i = in(32, 0, 100 * 1024, 256);
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(r.ok && r.by_smem == 2 && r.blocks_per_sm == 2);
	CHECK_NEAR(r.occupancy, 0.25, 1e-12);

	/* exactly the opt-in maximum, 232448: 232448 + 1024 = 233472 = the limit -> 1 block */
	i = in(32, 0, 232448, 256);
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(r.ok && r.blocks_per_sm == 1);

	/* one byte more: roundup(233473, 128) = 233600 > 233472 -> cannot run */
	i = in(32, 0, 232449, 256);
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(!r.ok && r.blocks_per_sm == 0 && r.by_smem == 0);
	CHECK(strstr(r.why, "shared memory per block") != NULL);
}

TEST(block_limit)
{
	/* 32 threads (1 warp), 16 regs, no shared memory, H100:
	 * by_warps 64; regs/warp 512, 16384/512 = 32 a sub-partition, 128 an SM,
	 * by_regs 128; by_smem 228; max 32 blocks -> 32 warps = 50% */
	devinfo d = h100();
	occ_input i = in(16, 0, 0, 32);
	occ_result r;
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(r.by_warps == 64 && r.by_regs == 128 && r.blocks_per_sm == 32);
	CHECK(r.limits == OCC_LIMIT_BLOCKS);
	CHECK_NEAR(r.occupancy, 0.5, 1e-12);

	/* a partial warp takes a whole warp slot: 48 threads = 2 warps;
	 * by_warps 64/2 = 32 = the block limit -> 32 blocks, 64 warps, 100% */
	i = in(16, 0, 0, 48);
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(r.warps_per_block == 2 && r.blocks_per_sm == 32);
	CHECK(r.limits == (OCC_LIMIT_WARPS | OCC_LIMIT_BLOCKS));

	/* a devinfo without max_blocks_sm falls back to the architecture's: 32 on sm_90 */
	d.max_blocks_sm = 0;
	i = in(16, 0, 0, 32);
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(r.by_blocks == 32);
	/* ... 16 on sm_75 (1 warp blocks: 16 blocks = 16 of 64 warps) */
	d.cc_major = 7;
	d.cc_minor = 5;
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(r.by_blocks == 16 && r.blocks_per_sm == 16);
}

TEST(cannot_launch)
{
	devinfo d = h100();
	occ_result r;
	/* 2048 threads exceed 1024 per block */
	occ_input i = in(16, 0, 0, 2048);
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(!r.ok && strstr(r.why, "2048 threads") != NULL);

	/* 128 regs x 1024 threads: 4096 a warp x 32 warps = 131072 > 65536 */
	i = in(128, 0, 0, 1024);
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(!r.ok && r.by_regs == 0);
	CHECK(strstr(r.why, "131072 registers") != NULL);

	/* 64 regs x 1024 threads: 2048 a warp x 32 = 65536 = the limit -> 1 block, 50% */
	i = in(64, 0, 0, 1024);
	CHECK(occ_compute(&d, &i, &r) == 0);
	CHECK(r.ok && r.blocks_per_sm == 1 && r.active_warps == 32);

	/* bad input */
	i = in(32, 0, 0, 0);
	CHECK(occ_compute(&d, &i, &r) == -1);
	d.max_smem_sm = 0;
	i = in(32, 0, 0, 32);
	CHECK(occ_compute(&d, &i, &r) == -1);
}

TEST(diff)
{
	devinfo d = h100();
	occ_input a = in(32, 0, 0, 256), b = in(40, 0, 0, 256);
	occ_result ra, rb;
	CHECK(occ_compute(&d, &a, &ra) == 0 && occ_compute(&d, &b, &rb) == 0);
	char buf[256];
	int n = occ_diff(&a, &ra, &b, &rb, buf, sizeof buf);
	CHECK_STREQ(buf, "registers 32 -> 40, occupancy 100% -> 75% (limited by registers)");
	CHECK(n == (int)strlen(buf));

	/* back up: occupancy 75% -> 100%, no "limited by" at full occupancy */
	occ_diff(&b, &rb, &a, &ra, buf, sizeof buf);
	CHECK_STREQ(buf, "registers 40 -> 32, occupancy 75% -> 100%");

	/* a change that does not move occupancy says so */
	occ_input c = in(30, 0, 0, 256);
	occ_result rc;
	CHECK(occ_compute(&d, &c, &rc) == 0);
	occ_diff(&c, &rc, &a, &ra, buf, sizeof buf);
	CHECK_STREQ(buf, "registers 30 -> 32, occupancy 100% unchanged");

	/* shared memory and block size */
	occ_input e = in(32, 48 * 1024, 0, 128);
	occ_result re;
	CHECK(occ_compute(&d, &e, &re) == 0);
	occ_diff(&a, &ra, &e, &re, buf, sizeof buf);
	CHECK_STREQ(buf, "shared memory 0 B -> 48.0 KiB, threads per block 256 -> 128, "
	                 "occupancy 100% -> 25% (limited by shared memory)");

	/* nothing changed */
	CHECK(occ_diff(&a, &ra, &a, &ra, buf, sizeof buf) == 0);
	CHECK_STREQ(buf, "");

	/* into a launch that cannot run */
	occ_input f = in(32, 0, 240000, 256);
	occ_result rf;
	CHECK(occ_compute(&d, &f, &rf) == 0);
	occ_diff(&a, &ra, &f, &rf, buf, sizeof buf);
	CHECK_STREQ(buf, "shared memory 0 B -> 234.4 KiB, occupancy 100% -> 0% "
	                 "(234.4 KiB of shared memory per block exceeds the device's 227.0 KiB)");

	/* truncation keeps a terminated string */
	char small[12];
	occ_diff(&a, &ra, &b, &rb, small, sizeof small);
	CHECK_STREQ(small, "registers 3");
}

int main(void)
{
	RUN(full_occupancy);
	RUN(register_limited);
	RUN(shared_memory);
	RUN(dynamic_and_optin);
	RUN(block_limit);
	RUN(cannot_launch);
	RUN(diff);
	return test_report("occupancy");
}
