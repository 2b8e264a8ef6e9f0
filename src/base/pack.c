/* pack.c: records of numbers and length-prefixed bytes (pack.h). */
#include "pack.h"

#include <string.h>

void pack_u32(sbuf *b, uint32_t v) { sb_add(b, (const char *)&v, 4); }
void pack_u64(sbuf *b, uint64_t v) { sb_add(b, (const char *)&v, 8); }

void pack_bytes(sbuf *b, const void *p, size_t n)
{
	pack_u64(b, p ? (uint64_t)n : UINT64_MAX);
	if (p && n)
		sb_add(b, p, n);
}

void pack_str(sbuf *b, const char *s) { pack_bytes(b, s, s ? strlen(s) : 0); }

void unpack_init(unpack *r, const void *p, size_t len)
{
	r->p = p;
	r->end = r->p + len;
	r->bad = 0;
}

void unpack_take(unpack *r, void *dst, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		memset(dst, 0, n);
		return;
	}
	memcpy(dst, r->p, n);
	r->p += n;
}

uint32_t unpack_u32(unpack *r) { uint32_t v; unpack_take(r, &v, 4); return v; }
uint64_t unpack_u64(unpack *r) { uint64_t v; unpack_take(r, &v, 8); return v; }

char *unpack_bytes(unpack *r, size_t *len)
{
	uint64_t n = unpack_u64(r);
	if (len)
		*len = 0;
	if (r->bad || n == UINT64_MAX)
		return NULL;
	if (n > (uint64_t)(r->end - r->p)) {
		r->bad = 1;
		return NULL;
	}
	char *s = xmalloc((size_t)n + 1);
	unpack_take(r, s, (size_t)n);
	s[n] = 0;
	if (len)
		*len = (size_t)n;
	return s;
}
