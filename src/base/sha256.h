/* sha256.h: SHA-256, for compile-cache keys and entry verification. */
#ifndef CUPLAY_SHA256_H
#define CUPLAY_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha256 {
	uint32_t h[8];
	uint64_t len;
	uint8_t buf[64];
	size_t nbuf;
} sha256;

void sha256_init(sha256 *c);
void sha256_update(sha256 *c, const void *data, size_t n);
void sha256_final(sha256 *c, uint8_t out[32]);
/* out: 65 bytes, lowercase hex */
void sha256_hex(const uint8_t d[32], char out[65]);

#endif
