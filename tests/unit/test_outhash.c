/* test_outhash.c: the output hash and the verdict cache. */
#include "test.h"

#include <stdint.h>
#include <math.h>
#include <stdlib.h>
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

/* The last timed launch's output against the checked one (recmp): the
 * sums say the same bits, other bits within the tolerance, other values
 * beyond it, or not sure; where they are sure they agree with ref_cmp's
 * comparison against the reference (here want) that the checked output
 * passed, and with the checked output as the wanted values. */
static float rnd(unsigned *s)
{
	*s = *s * 1664525u + 1013904223u;
	return (float)(*s >> 8) / (float)(1u << 24) * 2 - 1;
}

TEST(recmp)
{
	enum { N = 4096 };
	float *ref = malloc(N * sizeof *ref), *chk = malloc(N * sizeof *chk), *last = malloc(N * sizeof *last);
	unsigned seed = 7;
	for (int i = 0; i < N; i++) {
		ref[i] = rnd(&seed);
		chk[i] = ref[i] * (1 + 1e-6f * rnd(&seed));
	}
	cmp_result cc;
	const double tol = 1e-4;
	ref_compare_typed(chk, DT_FLOAT, ref, DT_FLOAT, N, tol, &cc);
	CHECK(cc.ok && cc.scale > 0.5 && cc.scale < 0.7);
	recmp_sums s;
	/* the same bits */
	recmp_host(chk, chk, DT_FLOAT, N, &s);
	CHECK(s.ndiff == 0 && s.first_not == 0 && s.nfin == N);
	CHECK(recmp_verdict(&s, tol, cc.rel_err, cc.scale) == RECMP_SAME);
	/* float atomics: other bits, tiny differences: within the tolerance, and so against the reference */
	memcpy(last, chk, N * sizeof *last);
	for (int i = 5; i < N; i += 3)
		last[i] = nextafterf(last[i], 2);
	recmp_host(last, chk, DT_FLOAT, N, &s);
	CHECK(s.ndiff > 1000 && ~s.first_not == 5 && s.nbad == 0);
	CHECK(recmp_verdict(&s, tol, cc.rel_err, cc.scale) == RECMP_CLOSE);
	cmp_result cl;
	ref_compare_typed(last, DT_FLOAT, ref, DT_FLOAT, N, tol, &cl);
	CHECK(cl.ok);
	/* left unwritten: poison (NaN) from element 100 on */
	for (int i = 100; i < N; i++)
		last[i] = NAN;
	recmp_host(last, chk, DT_FLOAT, N, &s);
	CHECK(s.nbad == N - 100 && ~s.first_not == 5);
	CHECK(recmp_verdict(&s, tol, cc.rel_err, cc.scale) == RECMP_DIFFERS);
	ref_compare_typed(last, DT_FLOAT, ref, DT_FLOAT, N, tol, &cl);
	CHECK(!cl.ok && cl.bad_index == 100);
	/* accumulated twice: far beyond the tolerance */
	for (int i = 0; i < N; i++)
		last[i] = 2 * chk[i];
	recmp_host(last, chk, DT_FLOAT, N, &s);
	CHECK(s.nbad == 0 && recmp_verdict(&s, tol, cc.rel_err, cc.scale) == RECMP_DIFFERS);
	ref_compare_typed(last, DT_FLOAT, ref, DT_FLOAT, N, tol, &cl);
	CHECK(!cl.ok);
	/* near the tolerance: not sure, for the host to compare with the reference */
	for (int i = 0; i < N; i++)
		last[i] = chk[i] + (float)(tol * cc.scale) * (i % 2 ? 1 : -1);
	recmp_host(last, chk, DT_FLOAT, N, &s);
	CHECK(recmp_verdict(&s, tol, cc.rel_err, cc.scale) == RECMP_UNSURE);
	/* against the checked output itself (no reference: scale 0): decided exactly */
	CHECK(recmp_verdict(&s, 2 * tol, 0, 0) == RECMP_CLOSE);
	CHECK(recmp_verdict(&s, tol / 2, 0, 0) == RECMP_DIFFERS);
	/* exact comparisons go to the host: -0 and 0 differ in bits only */
	last[0] = -0.0f;
	float z = 0;
	recmp_host(last, &z, DT_FLOAT, 1, &s);
	CHECK(s.ndiff == 1 && recmp_verdict(&s, 0, 0, 0) == RECMP_UNSURE);
	/* a non-finite wanted value matches only itself; NaN matches NaN */
	double g[3] = { NAN, INFINITY, 1 }, w[3] = { NAN, -INFINITY, 1 };
	recmp_host(g, w, DT_DOUBLE, 3, &s);
	CHECK(s.nbad == 1 && s.nfin == 1 && ~s.first_not == 1);
	/* the six words as the GPU leaves them */
	uint64_t words[6] = { 3, ~(uint64_t)9, 40, 0, 0, 0 };
	double a = 0.5, b = 2;
	memcpy(&words[4], &a, 8);
	memcpy(&words[5], &b, 8);
	recmp_unpack(words, &s);
	CHECK(s.ndiff == 3 && ~s.first_not == 9 && s.nfin == 40 && s.ss_diff == 0.5 && s.ss_want == 2);
	CHECK(recmp_type(DT_FLOAT4) && recmp_type(DT_DOUBLE) && !recmp_type(DT_HALF) && !recmp_type(DT_INT));
	free(ref);
	free(chk);
	free(last);
}

int main(void)
{
	RUN(hash);
	RUN(verdicts);
	RUN(recmp);
	return test_report("outhash");
}
