/* test_outhash.c: the output hash and the verdict cache. */
#include "test.h"

#include <stdint.h>
#include <string.h>

#include "outhash.h"

TEST(hash)
{
	static unsigned char a[4099];
	for (size_t i = 0; i < sizeof a; i++)
		a[i] = (unsigned char)(i * 7 + 3);
	uint64_t h[2], g[2];
	outhash(a, sizeof a, h);
	outhash(a, sizeof a, g);
	CHECK(h[0] == g[0] && h[1] == g[1]);

	/* the sum over words in any split: what the GPU's threads add */
	uint64_t w[512], s[2] = { 0, 0 };
	for (int i = 0; i < 512; i++) {
		uint64_t v = 0;
		for (int b = 7; b >= 0; b--)
			v = v << 8 | a[i * 8 + b];
		w[i] = v;
	}
	outhash_words(w + 300, 300, 512, s);
	outhash_words(w, 0, 300, s);
	uint64_t tail = 0;
	for (int b = 2; b >= 0; b--)
		tail = tail << 8 | a[4096 + b];
	outhash_words(&tail, 512, 513, s);
	CHECK(s[0] == h[0] && s[1] == h[1]);

	/* one bit anywhere, the length, a swap of two words: both halves change */
	int all = 1;
	for (size_t i = 0; i < sizeof a; i += 97)
		for (int bit = 0; bit < 8; bit += 3) {
			a[i] ^= (unsigned char)(1u << bit);
			outhash(a, sizeof a, g);
			all &= g[0] != h[0] && g[1] != h[1];
			a[i] ^= (unsigned char)(1u << bit);
		}
	CHECK(all);
	outhash(a, sizeof a - 1, g);
	CHECK(g[0] != h[0] && g[1] != h[1]);
	unsigned char t[8];
	memcpy(t, a, 8);
	memcpy(a, a + 8, 8);
	memcpy(a + 8, t, 8);
	outhash(a, sizeof a, g);
	CHECK(g[0] != h[0] && g[1] != h[1]);
	/* zeros hash to something else than nothing */
	static unsigned char z[64];
	outhash(z, sizeof z, g);
	CHECK(g[0] != 0 && g[1] != 0);
}

TEST(verdicts)
{
	verdict_cache c;
	memset(&c, 0, sizeof c);
	ref_key k, k2;
	ref_key_init(&k, "transpose", DT_FLOAT, 100);
	ref_key_init(&k2, "transpose", DT_FLOAT, 101);
	uint64_t h[2] = { 1, 2 }, h2[2] = { 1, 3 };
	cmp_result r = { .rel_err = 0.5, .bad_index = 7, .ok = 0 };
	CHECK(verdict_get(&c, &k, 1e-6, 100, 400, h) == NULL);
	verdict_put(&c, &k, 1e-6, 100, 400, h, &r);
	const cmp_result *got = verdict_get(&c, &k, 1e-6, 100, 400, h);
	CHECK(got && got->bad_index == 7 && got->rel_err == 0.5 && !got->ok);
	/* any difference in what decides the result misses */
	CHECK(verdict_get(&c, &k, 1e-5, 100, 400, h) == NULL);
	CHECK(verdict_get(&c, &k, 1e-6, 1, 400, h) == NULL);
	CHECK(verdict_get(&c, &k, 1e-6, 100, 404, h) == NULL);
	CHECK(verdict_get(&c, &k, 1e-6, 100, 400, h2) == NULL);
	CHECK(verdict_get(&c, &k2, 1e-6, 100, 400, h) == NULL);
	/* the oldest goes when full */
	for (uint64_t i = 0; i < VERDICT_MAX; i++) {
		uint64_t hi[2] = { 100 + i, i };
		verdict_put(&c, &k, 1e-6, 100, 400, hi, &r);
	}
	CHECK(verdict_get(&c, &k, 1e-6, 100, 400, h) == NULL);
	uint64_t last[2] = { 100 + VERDICT_MAX - 1, VERDICT_MAX - 1 };
	CHECK(verdict_get(&c, &k, 1e-6, 100, 400, last) != NULL);
	CHECK(c.n == VERDICT_MAX);
}

int main(void)
{
	RUN(hash);
	RUN(verdicts);
	return test_report("outhash");
}
