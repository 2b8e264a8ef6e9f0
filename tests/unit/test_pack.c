/* test_pack.c: numbers and length-prefixed bytes written and read back, and
 * every short or damaged record refused. */
#include "test.h"

#include "pack.h"

#include <stdlib.h>
#include <string.h>

TEST(pack_round_trip)
{
	sbuf b = {0};
	pack_u32(&b, 0xdeadbeefu);
	pack_u64(&b, 1ull << 40);
	pack_str(&b, "kernel");
	pack_str(&b, NULL);
	pack_bytes(&b, "a\0b", 3);
	pack_str(&b, "");
	CHECK(b.len == 4 + 8 + (8 + 6) + 8 + (8 + 3) + 8);

	unpack r;
	unpack_init(&r, b.s, b.len);
	CHECK(unpack_u32(&r) == 0xdeadbeefu);
	CHECK(unpack_u64(&r) == 1ull << 40);
	size_t n = 99;
	char *s = unpack_bytes(&r, &n);
	CHECK_STREQ(s, "kernel");
	CHECK(n == 6);
	free(s);
	CHECK(unpack_bytes(&r, &n) == NULL && n == 0 && !r.bad); /* NULL written, NULL read */
	s = unpack_bytes(&r, &n);
	CHECK(s && n == 3 && memcmp(s, "a\0b", 4) == 0); /* the bytes and a NUL after them */
	free(s);
	s = unpack_bytes(&r, NULL);
	CHECK_STREQ(s, "");
	free(s);
	CHECK(!r.bad && r.p == r.end);
	sb_free(&b);
}

TEST(pack_short_records)
{
	sbuf b = {0};
	pack_str(&b, "abcdef");
	unpack r;
	/* cut inside the bytes: the length is read, the bytes are not there */
	unpack_init(&r, b.s, b.len - 1);
	CHECK(unpack_bytes(&r, NULL) == NULL && r.bad);
	/* bad stays: a later read gives zeros */
	CHECK(unpack_u32(&r) == 0 && unpack_u64(&r) == 0);
	/* cut inside the length */
	unpack_init(&r, b.s, 5);
	size_t n = 7;
	CHECK(unpack_bytes(&r, &n) == NULL && r.bad && n == 0);
	/* a length far beyond the end */
	sbuf c = {0};
	pack_u64(&c, 1ull << 40);
	unpack_init(&r, c.s, c.len);
	CHECK(unpack_bytes(&r, NULL) == NULL && r.bad);
	/* an empty record */
	unpack_init(&r, "", 0);
	CHECK(unpack_u32(&r) == 0 && r.bad);
	sb_free(&b);
	sb_free(&c);
}

int main(void)
{
	RUN(pack_round_trip);
	RUN(pack_short_records);
	return test_report("pack");
}
