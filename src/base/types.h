/* types.h: element types, buffer initialisers and kernel argument kinds,
 * shared by the header parser, the planner, the references and the worker. */
#ifndef CUPLAY_TYPES_H
#define CUPLAY_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Element types of buffers. The first fourteen are scalars; the vector types
 * after them are `lanes` scalars side by side (float4: four floats, 16
 * bytes), and host code treats a buffer of them as that many scalars. */
typedef enum dtype {
	DT_FLOAT, DT_DOUBLE, DT_INT, DT_UNSIGNED, DT_LONG,
	DT_HALF, DT_BF16, DT_I8, DT_U8, DT_I16, DT_U16, DT_U64,
	DT_E4M3, DT_E5M2, /* 8-bit floats (sm_89+): __nv_fp8_e4m3, __nv_fp8_e5m2 */
	DT_FLOAT2, DT_FLOAT4, DT_DOUBLE2, DT_INT2, DT_INT4, DT_UINT2, DT_UINT4,
	DT_HALF2, DT_BF162, DT_CHAR4, DT_UCHAR4,
	DT__COUNT
} dtype;

typedef enum init_kind {
	INIT_RANDOM, /* fixed seed; floats uniform in [-1,1], integers over the type */
	INIT_ZERO, INIT_ONE, INIT_IOTA,
	INIT_VALUE,  /* value(x) */
	INIT_POISON, /* NaN for floats, all bits set for integers */
	INIT_LIST    /* {a, b, c, ...}: the values given (globals) */
} init_kind;

/* How a kernel parameter is passed. */
typedef enum arg_kind {
	ARG_NONE, ARG_PTR, ARG_I32, ARG_U32, ARG_I64, ARG_U64, ARG_F32, ARG_F64,
	ARG_TMAP /* a CUtensorMap, by value (128 bytes): a `//@ tensormap` */
} arg_kind;

size_t dtype_size(dtype t);      /* bytes of one element (float4: 16) */
const char *dtype_name(dtype t);  /* the header's name: "float", "half", "float4" */
/* A header type name or one of its C spellings (half, __half; bfloat16,
 * __nv_bfloat16; int8, int8_t; uint8, uint8_t; int16, short, int16_t; long,
 * int64, int64_t; uint64, uint64_t, size_t; unsigned, uint32_t; ...).
 * 0 or -1. */
int dtype_parse(const char *s, int len, dtype *out);
/* The type a C declaration's words name ("const", "__restrict__" and the
 * like already dropped): {"unsigned", "char"} is uint8, {"long", "long"}
 * int64, {"__half"} half. 0 or -1. */
int dtype_from_c(const char *const *words, const int *lens, int n, dtype *out);
int dtype_is_float(dtype t);      /* of the scalar: float, double, half, bfloat16 */
int dtype_is_signed(dtype t);     /* of the scalar */
dtype dtype_scalar(dtype t);      /* float4 -> float; a scalar is its own */
int dtype_lanes(dtype t);         /* float4 -> 4; a scalar 1 */
/* IEEE binary16 and bfloat16 from and to float: round to nearest even,
 * subnormals, infinities and NaN kept. */
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bf16_to_float(uint16_t h);
uint16_t float_to_bf16(float f);
/* FP8 (OCP): e4m3 (bias 7, no infinity, 448 the largest, 0x7f NaN) and
 * e5m2 (bias 15, IEEE-like). From float: round to nearest even, past the
 * largest finite value (infinity too) saturated to it, as CUDA's
 * __nv_fp8_* constructors do (__NV_SATFINITE); NaN stays NaN. */
float e4m3_to_float(uint8_t v);
float e5m2_to_float(uint8_t v);
uint8_t float_to_e4m3(float f);
uint8_t float_to_e5m2(float f);
const char *init_name(init_kind k);
size_t arg_size(arg_kind k);
const char *arg_kind_name(arg_kind k);

#endif
