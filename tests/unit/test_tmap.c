/* test_tmap.c: the text of `//@ tensormap` lines: the shape, the box, the
 * options, and where each mistake is. */
#include "test.h"

#include "tmap.h"

static int parse(const char *l, spec_tmap *t, int *col, char **why)
{
	return tmap_parse(l, l + strlen(l), 7, 15, t, col, why);
}

TEST(lines)
{
	spec_tmap t;
	int col = 0;
	char *why = NULL;
	CHECK(parse("tmA = A[M, K] box 64, min(K, 32) swizzle 128B l2promo 256B oob nan", &t, &col, &why) == 0);
	CHECK_STREQ(t.name, "tmA");
	CHECK_STREQ(t.buf, "A");
	CHECK(t.rank == 2 && t.nbox == 2 && t.line == 7 && t.col == 15 && t.buf_col == 21);
	CHECK_STREQ(t.dims[0].text, "M");
	CHECK_STREQ(t.dims[1].text, "K");
	CHECK(t.dims[1].col == 26);
	CHECK_STREQ(t.box[0].text, "64");
	CHECK_STREQ(t.box[1].text, "min(K, 32)");
	CHECK(t.swizzle == 128 && t.l2promo == 256 && t.oob_nan == 1 && t.interleave == 0);
	tmap_free(&t);
	CHECK(parse("t = x[B, C, H*W] box 1, 8, 256 interleave 32B swizzle 32B l2promo none oob zero", &t, &col, &why) == 0);
	CHECK(t.rank == 3 && t.interleave == 32 && t.swizzle == 32 && t.l2promo == 0 && !t.oob_nan);
	tmap_free(&t);
	CHECK(parse("t = x[n] box 64", &t, &col, &why) == 0);
	CHECK(t.rank == 1 && t.l2promo == 128 && t.swizzle == 0); /* l2promo 128B unless given */
	tmap_free(&t);
}

static void bad(const char *line, int want_col, const char *want)
{
	spec_tmap t;
	int col = 0;
	char *why = NULL;
	CHECK(parse(line, &t, &col, &why) == -1);
	if (col != want_col)
		fprintf(stderr, "  %s: column %d\n", line, col);
	CHECK(col == want_col);
	CHECK_STREQ(why, want);
	free(why);
}

TEST(mistakes)
{
	bad("", 15, "expected a name after 'tensormap' (tensormap NAME = BUF[D0, D1] box B0, B1)");
	bad("t A[M] box 1", 17, "expected '=' after tensormap name 't'");
	bad("t = A box 1", 21, "expected '[' and the dimensions of 'A', outermost first: A[ROWS, COLS]");
	bad("t = A[M, K box 1", 31, "expected ']' to close the dimensions");
	bad("t = A[M,] box 1", 23, "expected a dimension");
	bad("t = A[M, K] 64, 64", 27, "expected 'box' and the box's dimensions after the buffer's");
	bad("t = A[M, K] box 64", 27, "the box has 1 side, the shape of 'A' 2");
	bad("t = A[M, K] box 64, 64 swizzle 96B", 46, "'96B' is not a swizzle: none, 32B, 64B or 128B");
	bad("t = A[M, K] box 64, 64 swizzle", 45, "expected a swizzle: none, 32B, 64B or 128B");
	bad("t = A[M, K] box 64, 64 oob inf", 42, "expected 'zero' or 'nan' after 'oob' (what out-of-bounds elements read as)");
	bad("t = A[a, b, c, d, e, f] box 1", 36, "more than 5 dimensions (TMA's most)");
}

int main(void)
{
	RUN(lines);
	RUN(mistakes);
	return test_report("tmap");
}
