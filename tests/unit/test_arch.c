/* test_arch.c: the facts of an architecture without a device. */
#include "test.h"

#include "arch.h"

TEST(arch_facts)
{
	devinfo d;
	devinfo_for_arch(90, &d);
	CHECK_STREQ(d.name, "sm_90 (no GPU)");
	CHECK(d.count == 0 && d.cc_major == 9 && d.cc_minor == 0);
	CHECK(d.sm_count == 132 && d.warp_size == 32);
	CHECK(d.l2_bytes == 50LL * 1024 * 1024);
	CHECK(d.max_threads_per_block == 1024);
	CHECK(d.max_block[0] == 1024 && d.max_block[1] == 1024 && d.max_block[2] == 64);
	CHECK(d.max_grid[0] == 2147483647LL && d.max_grid[1] == 65535 && d.max_grid[2] == 65535);
	CHECK(d.max_smem_block == 48 * 1024 && d.max_smem_optin == 227 * 1024 && d.max_smem_sm == 228 * 1024);
	CHECK(d.regs_per_sm == 65536 && d.regs_per_block == 65536);
	CHECK(d.max_threads_sm == 2048 && d.max_blocks_sm == 32);

	devinfo_for_arch(80, &d);
	CHECK(d.sm_count == 108 && d.max_smem_optin == 163 * 1024 && d.cc_major == 8 && d.cc_minor == 0);
	devinfo_for_arch(75, &d);
	CHECK(d.max_threads_sm == 1024 && d.max_smem_optin == 64 * 1024);
	devinfo_for_arch(87, &d); /* no row: the nearest older one (86) */
	CHECK(d.cc_major == 8 && d.cc_minor == 7 && d.max_smem_optin == 99 * 1024 && d.max_threads_sm == 1536);
	CHECK_STREQ(d.name, "sm_87 (no GPU)");
	devinfo_for_arch(89, &d);
	CHECK(d.max_blocks_sm == 24);
	devinfo_for_arch(100, &d);
	CHECK(d.cc_major == 10 && d.max_smem_optin == 227 * 1024);
	devinfo_for_arch(120, &d);
	CHECK(d.cc_major == 12 && d.max_smem_optin == 99 * 1024);
	devinfo_for_arch(60, &d); /* older than any row: the oldest */
	CHECK(d.sm_count > 0 && d.max_threads_per_block == 1024);
}

int main(void)
{
	RUN(arch_facts);
	return test_report("arch");
}
