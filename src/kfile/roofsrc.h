/* roofsrc.h: the kernel files of the tensor roofs, made for an
 * architecture: register-only kernels that keep the tensor cores of every
 * SM busy with independent accumulators, one kernel per precision. */
#ifndef CUPLAY_ROOFSRC_H
#define CUPLAY_ROOFSRC_H

/* The precisions in the order of tensor.h's tensor_prec. */
enum { ROOF_FP16, ROOF_BF16, ROOF_TF32, ROOF_INT8, ROOF_FP8, ROOF_NPREC };

/* The kernel file (caller frees) of the mma.sync roofs for sm (80 and
 * later; FP8 from 89): kernels mma_fp16, mma_bf16, mma_tf32, mma_int8,
 * mma_fp8, each with its `//@ kernel NAME flops` line. NULL before sm_80
 * (no mma.sync of these shapes). */
char *roofsrc_mma(int sm);

/* The kernel file (caller frees) of the wgmma roofs: kernels wgmma_fp16,
 * wgmma_bf16, wgmma_tf32, wgmma_int8, wgmma_fp8, warpgroup matrix
 * multiplies (m64n256) over descriptors of shared memory. For sm_90a only
 * (the architecture-specific target); NULL for any other sm. */
char *roofsrc_wgmma(int sm);

/* The kernel of precision i in the files above ("mma_fp16"); wg: wgmma's. */
const char *roofsrc_kernel(int i, int wg);

#endif
