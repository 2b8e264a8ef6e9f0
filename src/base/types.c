/* types.c: element types, buffer initialisers and kernel argument kinds. */
#include "types.h"

#include <string.h>

static const struct {
	const char *name;
	size_t size;
	int is_float;
} dtypes[DT__COUNT] = {
	[DT_FLOAT]    = { "float", 4, 1 },
	[DT_DOUBLE]   = { "double", 8, 1 },
	[DT_INT]      = { "int", 4, 0 },
	[DT_UNSIGNED] = { "unsigned", 4, 0 },
	[DT_LONG]     = { "long", 8, 0 }, /* 64-bit, as on every CUDA host */
};

size_t dtype_size(dtype t)
{
	return (unsigned)t < DT__COUNT ? dtypes[t].size : 0;
}

const char *dtype_name(dtype t)
{
	return (unsigned)t < DT__COUNT ? dtypes[t].name : "?";
}

int dtype_parse(const char *s, int len, dtype *out)
{
	if (len < 0)
		len = (int)strlen(s);
	for (int i = 0; i < DT__COUNT; i++)
		if ((int)strlen(dtypes[i].name) == len && memcmp(dtypes[i].name, s, (size_t)len) == 0) {
			*out = (dtype)i;
			return 0;
		}
	return -1;
}

int dtype_is_float(dtype t)
{
	return (unsigned)t < DT__COUNT && dtypes[t].is_float;
}

const char *init_name(init_kind k)
{
	switch (k) {
	case INIT_RANDOM: return "random";
	case INIT_ZERO:   return "zero";
	case INIT_ONE:    return "one";
	case INIT_IOTA:   return "iota";
	case INIT_VALUE:  return "value";
	case INIT_POISON: return "poison";
	}
	return "?";
}

size_t arg_size(arg_kind k)
{
	switch (k) {
	case ARG_I32: case ARG_U32: case ARG_F32:
		return 4;
	case ARG_PTR: case ARG_I64: case ARG_U64: case ARG_F64:
		return 8;
	case ARG_NONE:
		break;
	}
	return 0;
}

const char *arg_kind_name(arg_kind k)
{
	switch (k) {
	case ARG_NONE: return "unsupported";
	case ARG_PTR:  return "pointer";
	case ARG_I32:  return "int";
	case ARG_U32:  return "unsigned";
	case ARG_I64:  return "long";
	case ARG_U64:  return "unsigned long";
	case ARG_F32:  return "float";
	case ARG_F64:  return "double";
	}
	return "?";
}
