/* arch.c: the facts of a GPU architecture without a device, for
 * compile-only mode (limits, SM count, L2), from a table of one typical
 * part of each architecture. */
#include "arch.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

static const struct arch_facts {
	int sm, sms;
	int64_t l2;
	int smem_optin, smem_sm, threads_sm, blocks_sm;
} arch_table[] = {
	/* sm   SMs  L2         opt-in  per SM  thr/SM blk/SM   like */
	{ 70,  80,   6 * MiB,  98304,  98304,  2048,  32 },  /* V100 */
	{ 75,  40,   4 * MiB,  65536,  65536,  1024,  16 },  /* T4 */
	{ 80, 108,  40 * MiB, 166912, 167936,  2048,  32 },  /* A100 */
	{ 86,  72,   6 * MiB, 101376, 102400,  1536,  16 },  /* A10 */
	{ 89, 142,  96 * MiB, 101376, 102400,  1536,  24 },  /* L40S */
	{ 90, 132,  50 * MiB, 232448, 233472,  2048,  32 },  /* H100 SXM */
	{ 100, 148, 126 * MiB, 232448, 233472, 2048,  32 },  /* B200 */
	{ 120, 170,  96 * MiB, 101376, 102400, 1536,  32 },  /* RTX 5090 */
};

void devinfo_for_arch(int sm, devinfo *d)
{
	const struct arch_facts *f = &arch_table[0];
	for (size_t i = 0; i < ARRAY_LEN(arch_table); i++)
		if (arch_table[i].sm <= sm)
			f = &arch_table[i];
	memset(d, 0, sizeof *d);
	d->ordinal = 0;
	d->count = 0;
	snprintf(d->name, sizeof d->name, "sm_%d (no GPU)", sm);
	d->cc_major = sm / 10;
	d->cc_minor = sm % 10;
	d->sm_count = f->sms;
	d->warp_size = 32;
	d->l2_bytes = f->l2;
	d->max_threads_per_block = 1024;
	d->max_block[0] = 1024;
	d->max_block[1] = 1024;
	d->max_block[2] = 64;
	d->max_grid[0] = 2147483647;
	d->max_grid[1] = 65535;
	d->max_grid[2] = 65535;
	d->max_smem_block = 48 * 1024;
	d->max_smem_optin = f->smem_optin;
	d->max_smem_sm = f->smem_sm;
	d->regs_per_block = 65536;
	d->regs_per_sm = 65536;
	d->max_threads_sm = f->threads_sm;
	d->max_blocks_sm = f->blocks_sm;
}
