/* refarg.h: an argument of a CPU reference (ref.h's table, ref_algo.h's
 * algorithms): a buffer as doubles (and in its own type), or a scalar. */
#ifndef CUPLAY_REFARG_H
#define CUPLAY_REFARG_H

#include <stdint.h>
#include "types.h"

typedef struct ref_arg {
	int is_buf;
	const double *data; /* is_buf: the buffer's elements as doubles */
	uint64_t count;
	int64_t i;          /* scalar: integer value (also set for floats, truncated) */
	double f;           /* scalar: value as double */
	const char *name;   /* as written in the check, for messages (may be NULL) */
	const void *raw;    /* is_buf, for ref_wanted: the elements in their own type */
	dtype type;         /* ... and that type (count is its scalars) */
} ref_arg;

#endif
