/* tensor.h: the tensor cores as cuplay knows them. Pure: the precisions a
 * tensor roof is measured for, the datasheet's dense peaks of the devices
 * it knows by name and SM count, and which tensor-core instructions (and so
 * which pipe and precision) a kernel's PTX or SASS holds. */
#ifndef CUPLAY_TENSOR_H
#define CUPLAY_TENSOR_H

/* The precisions of the tensor roofs: FP16 and BF16 inputs with FP32
 * accumulate, TF32 (FP32 accumulate), INT8 (INT32 accumulate), FP8 E4M3
 * (FP32 accumulate). PIPE_FP32 is the FMA pipe (CUDA cores), not a tensor
 * precision; PIPE_N counts all. */
typedef enum { TP_FP16, TP_BF16, TP_TF32, TP_INT8, TP_FP8, TP_N, PIPE_FP32 = TP_N, PIPE_N } tensor_prec;

/* How a kernel drives the tensor cores. */
typedef enum { TK_NONE = 0, TK_WMMA, TK_MMA, TK_WGMMA } tensor_kind;

const char *tensor_prec_name(int p);  /* "FP16", ..., "FP32"; "-" */
/* Lowercase, for keys and columns: "fp16", ..., "fp32". */
const char *tensor_prec_key(int p);
const char *tensor_kind_name(int k);  /* "wmma", "mma.sync", "wgmma", "none" */
/* The precision named (either case: "FP16", "bf16"), or -1. */
int tensor_prec_find(const char *name);

/* The datasheet's dense peak of precision p (a tensor precision, or
 * PIPE_FP32) on the device of this name and SM count, in GFLOP/s (GOP/s for
 * INT8); 0 when cuplay has no row for the device (or the device lacks the
 * precision). *source (may be NULL): the datasheet it comes from. */
double tensor_datasheet(const char *device, int sm_count, int p, const char **source);

/* The tensor-core instructions of one kernel. */
typedef struct tensor_use {
	int prec;        /* the precision most of them take (tensor_prec), -1 none */
	int kind;        /* tensor_kind of those */
	int count;       /* how many (static, in the listing) */
	int per_prec[TP_N];
	char sass[8];    /* the SASS mnemonic they become: HMMA, HGMMA, IMMA, IGMMA, QMMA, QGMMA */
	int from_sass;   /* counted in the SASS (else in the PTX) */
	int other;       /* tensor instructions of no precision above (FP64 DMMA, sub-byte) */
	int packed_half; /* CUDA-core arithmetic on packed halves (f16x2, bf16x2: two flops a lane
	                    where FP32 has one; PTX only) */
} tensor_use;

/* The tensor-core instructions of one kernel's PTX (its function, as
 * ptx_extract gives it): wmma.mma, mma.sync and wgmma.mma_async, each
 * with its input type. */
void tensor_use_ptx(const char *ptx, tensor_use *u);

/* The same from one kernel's SASS listing: HMMA, HGMMA, IMMA, IGMMA, QMMA,
 * QGMMA (the precision from the instruction's type suffix where it has
 * one: HMMA.16816.F32.BF16, HGMMA.64x128x16.F32.BF16, HMMA.1688.F32.TF32). */
void tensor_use_sass(const char *sass, tensor_use *u);

#endif
