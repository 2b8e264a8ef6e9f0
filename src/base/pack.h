/* pack.h: records of numbers and length-prefixed bytes in host byte order,
 * written to an sbuf and read back with bounds checks: the compile cache's
 * files and the compile server's messages. */
#ifndef CUPLAY_PACK_H
#define CUPLAY_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

void pack_u32(sbuf *b, uint32_t v);
void pack_u64(sbuf *b, uint64_t v);
/* a 64-bit length, then the bytes; NULL is the length UINT64_MAX */
void pack_bytes(sbuf *b, const void *p, size_t n);
void pack_str(sbuf *b, const char *s); /* pack_bytes of the string, without its NUL */

/* A reader over [p, end). A read past the end, or of a length longer than
 * what is left, sets bad; every read after that gives zeros or NULL. */
typedef struct unpack {
	const char *p, *end;
	int bad;
} unpack;

void unpack_init(unpack *r, const void *p, size_t len);
void unpack_take(unpack *r, void *dst, size_t n); /* zeros when short */
uint32_t unpack_u32(unpack *r);
uint64_t unpack_u64(unpack *r);
/* What pack_bytes wrote, NUL-terminated (the caller frees), with its length
 * in *len (may be NULL); NULL for a NULL or a bad read. */
char *unpack_bytes(unpack *r, size_t *len);

#endif
