/* types.h: element types, buffer initialisers and kernel argument kinds,
 * shared by the header parser, the planner, the references and the worker. */
#ifndef CUPLAY_TYPES_H
#define CUPLAY_TYPES_H

#include <stddef.h>

typedef enum dtype {
	DT_FLOAT, DT_DOUBLE, DT_INT, DT_UNSIGNED, DT_LONG, DT__COUNT
} dtype;

typedef enum init_kind {
	INIT_RANDOM, /* fixed seed; floats uniform in [-1,1], integers over the type */
	INIT_ZERO, INIT_ONE, INIT_IOTA,
	INIT_VALUE,  /* value(x) */
	INIT_POISON  /* NaN for floats, all bits set for integers */
} init_kind;

/* How a kernel parameter is passed. */
typedef enum arg_kind {
	ARG_NONE, ARG_PTR, ARG_I32, ARG_U32, ARG_I64, ARG_U64, ARG_F32, ARG_F64
} arg_kind;

size_t dtype_size(dtype t);
const char *dtype_name(dtype t);
int dtype_parse(const char *s, int len, dtype *out); /* 0 or -1 */
int dtype_is_float(dtype t);
const char *init_name(init_kind k);
size_t arg_size(arg_kind k);
const char *arg_kind_name(arg_kind k);

#endif
