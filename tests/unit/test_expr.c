/* test_expr.c: the expression language of //@ lines and `set`. */
#include "expr.h"
#include "test.h"

#include <stdio.h>

#include <stdint.h>
#include <stdlib.h>

/* The names most tests see: three integers, a float, a hidden device fact. */
static void std_syms(symtab *t)
{
	memset(t, 0, sizeof *t);
	symtab_set(t, "N", (value){ 0, 4096, 0 }, 0);
	symtab_set(t, "TILE_SIZE", (value){ 0, 32, 0 }, 0);
	symtab_set(t, "PAD", (value){ 0, 1, 0 }, 0);
	symtab_set(t, "alpha", (value){ 1, 0, 2.5 }, 0);
	symtab_set(t, "SM_COUNT", (value){ 0, 132, 0 }, 1);
}

/* Evaluates s with the standard names; *ok says whether it succeeded. */
static value eval_std(const char *s, int *ok, int *col, char **err)
{
	symtab t;
	value v;
	std_syms(&t);
	*col = 0;
	*ok = expr_eval(s, &t, &v, col, err) == 0;
	symtab_free(&t);
	return v;
}

#define EXPECT_INT(s, want) do { \
	int ok_, col_; char *err_ = NULL; \
	value v_ = eval_std((s), &ok_, &col_, &err_); \
	CHECK(ok_); CHECK(!v_.is_float); CHECK(v_.i == (int64_t)(want)); \
	if (err_) fprintf(stderr, "  '%s': %s\n", (s), err_); \
	free(err_); \
} while (0)

#define EXPECT_FLOAT(s, want) do { \
	int ok_, col_; char *err_ = NULL; \
	value v_ = eval_std((s), &ok_, &col_, &err_); \
	CHECK(ok_); CHECK(v_.is_float); CHECK(v_.f == (want)); \
	if (err_) fprintf(stderr, "  '%s': %s\n", (s), err_); \
	free(err_); \
} while (0)

#define EXPECT_ERR(s, wcol, wmsg) do { \
	int ok_, col_; char *err_ = NULL; \
	eval_std((s), &ok_, &col_, &err_); \
	CHECK(!ok_); CHECK_STREQ(err_, (wmsg)); \
	if (col_ != (wcol)) fprintf(stderr, "  '%s': column %d, want %d\n", (s), col_, (wcol)); \
	CHECK(col_ == (wcol)); \
	free(err_); \
} while (0)

TEST(literals)
{
	EXPECT_INT("42", 42);
	EXPECT_INT("  7  ", 7);
	EXPECT_INT("0", 0);
	EXPECT_INT("0x10", 16);
	EXPECT_INT("0XfF", 255);
	EXPECT_INT("9223372036854775807", INT64_MAX);
	EXPECT_INT("0x7fffffffffffffff", INT64_MAX);
	EXPECT_INT("-9223372036854775807-1", INT64_MIN);
}

TEST(precedence)
{
	EXPECT_INT("2+3*4", 14);
	EXPECT_INT("(2+3)*4", 20);
	EXPECT_INT("10-4-3", 3);
	EXPECT_INT("100/10/5", 2);
	EXPECT_INT("2*3%4", 2);
	EXPECT_INT("-3*2", -6);
	EXPECT_INT("- -3", 3);
	EXPECT_INT("+5", 5);
	EXPECT_INT("-(2+3)", -5);
	EXPECT_INT("2 * -3", -6);
	/* shifts bind loosest, as in C */
	EXPECT_INT("1<<4+1", 32);
	EXPECT_INT("1 << 2 << 3", 32);
	EXPECT_INT("256>>2*2", 16);
	EXPECT_INT("1<<62", (int64_t)1 << 62);
	EXPECT_INT("-1<<63", INT64_MIN);
	EXPECT_INT("-8>>1", -4);
	EXPECT_INT("-1>>63", -1);
	/* C's truncating division */
	EXPECT_INT("-7/2", -3);
	EXPECT_INT("-7%2", -1);
	EXPECT_INT("7%-2", 1);
	EXPECT_INT("(-9223372036854775807-1)%-1", 0);
}

TEST(names_and_functions)
{
	EXPECT_INT("N", 4096);
	EXPECT_INT("N*N", 4096 * 4096);
	EXPECT_INT("2 * N * N * 4", 2 * 4096 * 4096 * 4LL);
	EXPECT_INT("TILE_SIZE + PAD", 33);
	EXPECT_INT("SM_COUNT * 4", 528); /* hidden names still resolve */
	EXPECT_INT("cdiv(N, TILE_SIZE)", 128);
	EXPECT_INT("cdiv(4097, 32)", 129);
	EXPECT_INT("cdiv(0, 32)", 0);
	EXPECT_INT("cdiv(-7, 2)", -3);
	EXPECT_INT("cdiv(7, -2)", -3);
	EXPECT_INT("cdiv(-7, -2)", 4);
	EXPECT_INT("cdiv(5, -1)", -5);
	EXPECT_INT("min(3, N)", 3);
	EXPECT_INT("max(PAD, 0)", 1);
	EXPECT_INT("min(-2, -3)", -3);
	EXPECT_INT("max(min(1, 2), cdiv(9, 4))", 3);
	EXPECT_INT(" cdiv ( N , 3 ) * 2", 2732);
}

TEST(floats)
{
	EXPECT_FLOAT("2.5", 2.5);
	EXPECT_FLOAT("-2.5", -2.5);
	EXPECT_FLOAT(" - 2.5 ", -2.5);
	EXPECT_FLOAT("1e-3", 1e-3);
	EXPECT_FLOAT("1E6", 1e6);
	EXPECT_FLOAT("2.", 2.0);
	EXPECT_FLOAT(".5", 0.5);
	EXPECT_FLOAT("alpha", 2.5);
	EXPECT_FLOAT("-alpha", -2.5);
	EXPECT_FLOAT("  alpha  ", 2.5);
	/* anywhere else a float is an error, located at the float */
	EXPECT_ERR("alpha*2", 1, "float param 'alpha' in integer expression");
	EXPECT_ERR("2 * alpha", 5, "float param 'alpha' in integer expression");
	EXPECT_ERR("N*2.5", 3, "float literal '2.5' in integer expression");
	EXPECT_ERR("(2.5)", 2, "float literal '2.5' in integer expression");
	EXPECT_ERR("- -2.5", 4, "float literal '2.5' in integer expression");
	EXPECT_ERR("cdiv(N, 1e3)", 9, "float literal '1e3' in integer expression");
	EXPECT_ERR("1e999", 1, "float literal '1e999' out of range");
}

TEST(overflow_and_division)
{
	EXPECT_ERR("9223372036854775807+1", 20, "integer overflow");
	EXPECT_ERR("-9223372036854775807-2", 21, "integer overflow");
	EXPECT_ERR("N*N*N*N*N*N", 10, "integer overflow");
	EXPECT_ERR("-(-9223372036854775807-1)", 1, "integer overflow");
	EXPECT_ERR("(-9223372036854775807-1)/-1", 25, "integer overflow");
	EXPECT_ERR("99999999999999999999", 1, "integer overflow in '99999999999999999999'");
	EXPECT_ERR("0x8000000000000000", 1, "integer overflow in '0x8000000000000000'");
	EXPECT_ERR("1<<63", 2, "integer overflow");
	EXPECT_ERR("3<<62", 2, "integer overflow");
	EXPECT_ERR("1<<64", 2, "shift count 64 out of range (0 to 63)");
	EXPECT_ERR("1>>-1", 2, "shift count -1 out of range (0 to 63)");
	EXPECT_ERR("N/0", 2, "division by zero");
	EXPECT_ERR("5 % (PAD - 1)", 3, "division by zero");
	EXPECT_ERR("cdiv(4, 0)", 1, "division by zero");
}

TEST(syntax_errors)
{
	EXPECT_ERR("", 1, "expected an expression");
	EXPECT_ERR("   ", 4, "expected an expression");
	EXPECT_ERR("N+", 3, "expected an expression");
	EXPECT_ERR("*3", 1, "expected an expression, found '*'");
	EXPECT_ERR("N*(2", 5, "expected ')' to match '(' at column 3");
	EXPECT_ERR("(N", 3, "expected ')' to match '(' at column 1");
	EXPECT_ERR("N N", 3, "unexpected 'N' after expression");
	EXPECT_ERR("4 )", 3, "unexpected ')' after expression");
	EXPECT_ERR("3 $ 4", 3, "unexpected '$' after expression");
	EXPECT_ERR("1 < 2", 3, "unexpected '<' after expression");
	EXPECT_ERR("N(2)", 2, "unexpected '(' after expression");
	EXPECT_ERR("4096u", 1, "invalid number '4096u'");
	EXPECT_ERR("2N", 1, "invalid number '2N'");
	EXPECT_ERR("TILE*2", 1, "unknown param 'TILE' in expression (known: N, TILE_SIZE, PAD, alpha)");
	EXPECT_ERR("N + tile_size", 5, "unknown param 'tile_size' in expression (known: N, TILE_SIZE, PAD, alpha)");
	EXPECT_ERR("cdiv(N)", 1, "cdiv takes 2 arguments");
	EXPECT_ERR("min(1, 2, 3)", 1, "min takes 2 arguments");
	EXPECT_ERR("2 + max()", 5, "max takes 2 arguments");
	EXPECT_ERR("cdiv(1 2)", 8, "expected ',' or ')' in arguments of 'cdiv'");
	EXPECT_ERR("cdiv(1, )", 9, "expected an expression, found ')'");
	EXPECT_ERR("foo(1)", 1, "unknown function 'foo' (known: cdiv, min, max)");
}

TEST(no_names)
{
	value v;
	int col = 0;
	char *err = NULL;
	symtab empty = {0};
	CHECK(expr_eval("X + 1", &empty, &v, &col, &err) == -1);
	CHECK_STREQ(err, "unknown param 'X' in expression (none declared)");
	CHECK(col == 1);
	/* a NULL table is an empty one; a second error replaces the first message */
	CHECK(expr_eval("6 * 7", NULL, &v, &col, &err) == 0);
	CHECK(v.i == 42);
	CHECK(expr_eval("1/0", NULL, &v, &col, &err) == -1);
	CHECK_STREQ(err, "division by zero");
	free(err);
	/* col and err may be NULL */
	CHECK(expr_eval("(", NULL, &v, NULL, NULL) == -1);
}

TEST(nesting)
{
	char s[1002];
	memset(s, '(', 500);
	s[500] = '1';
	memset(s + 501, ')', 500);
	s[1001] = 0;
	int ok, col;
	char *err = NULL;
	eval_std(s, &ok, &col, &err);
	CHECK(!ok);
	CHECK_STREQ(err, "expression nested too deeply");
	free(err);
	EXPECT_INT("((((((((((1))))))))))", 1);
	EXPECT_INT("----------1", 1);
}

TEST(symtab)
{
	symtab t = {0};
	symtab_set(&t, "N", (value){ 0, 1, 0 }, 0);
	symtab_set(&t, "NN", (value){ 0, 2, 0 }, 0);
	symtab_set(&t, "N", (value){ 0, 3, 0 }, 0); /* replaces, keeps the order */
	CHECK(t.n == 2);
	CHECK(symtab_get(&t, "N", 1)->v.i == 3);
	CHECK(symtab_get(&t, "NN", 2)->v.i == 2);
	CHECK(symtab_get(&t, "NNN", 1)->v.i == 3); /* by length */
	CHECK(symtab_get(&t, "X", 1) == NULL);
	CHECK(symtab_get(&t, "N", 0) == NULL);
	symtab_free(&t);
	CHECK(t.n == 0 && t.v == NULL);
}

static void fmt(value v, char *buf)
{
	value_format(v, buf, 64);
}

TEST(value_format)
{
	char buf[64];
	fmt((value){ 0, 42, 0 }, buf);
	CHECK_STREQ(buf, "42");
	fmt((value){ 0, -7, 0 }, buf);
	CHECK_STREQ(buf, "-7");
	fmt((value){ 0, INT64_MIN, 0 }, buf);
	CHECK_STREQ(buf, "-9223372036854775808");
	fmt((value){ 1, 0, 2.5 }, buf);
	CHECK_STREQ(buf, "2.5");
	fmt((value){ 1, 0, 1e-3 }, buf);
	CHECK_STREQ(buf, "0.001");
	fmt((value){ 1, 0, 0.1 }, buf);
	CHECK_STREQ(buf, "0.1");
	fmt((value){ 1, 0, -0.5 }, buf);
	CHECK_STREQ(buf, "-0.5");
	fmt((value){ 1, 0, 1.0 / 3 }, buf);
	CHECK_STREQ(buf, "0.3333333333333333");
	fmt((value){ 1, 0, 1e20 }, buf);
	CHECK_STREQ(buf, "1e+20");
	/* integral floats stay floats: for -D macros and when read back */
	fmt((value){ 1, 0, 1.0 }, buf);
	CHECK_STREQ(buf, "1.0");
	fmt((value){ 1, 0, -4096.0 }, buf);
	CHECK_STREQ(buf, "-4096.0");
	/* round trip through the parser */
	value v;
	CHECK(expr_eval("1.0", NULL, &v, NULL, NULL) == 0 && v.is_float && v.f == 1.0);
	/* truncated to the buffer, always terminated */
	char small[4];
	value_format((value){ 0, 123456, 0 }, small, sizeof small);
	CHECK_STREQ(small, "123");
}

/* Float mode: what `set` uses for a param a kernel takes as float/double. */
static value eval_float(const char *s, int *ok, int *col, char **err)
{
	symtab t;
	value v;
	std_syms(&t);
	*col = 0;
	*ok = expr_eval_float(s, &t, &v, col, err) == 0;
	symtab_free(&t);
	return v;
}

#define EXPECT_FMODE(s, want) do { \
	int ok_, col_; char *err_ = NULL; \
	value v_ = eval_float((s), &ok_, &col_, &err_); \
	CHECK(ok_); CHECK(v_.is_float); CHECK(v_.f == (want)); \
	if (err_ || v_.f != (want)) fprintf(stderr, "  '%s': %g %s\n", (s), v_.f, err_ ? err_ : ""); \
	free(err_); \
} while (0)

#define EXPECT_FMODE_ERR(s, wcol, wmsg) do { \
	int ok_, col_; char *err_ = NULL; \
	eval_float((s), &ok_, &col_, &err_); \
	CHECK(!ok_); CHECK_STREQ(err_, (wmsg)); CHECK(col_ == (wcol)); \
	free(err_); \
} while (0)

TEST(float_mode)
{
	EXPECT_FMODE("5/2", 2.5);
	EXPECT_FMODE("5", 5.0);
	EXPECT_FMODE("2.5", 2.5);
	EXPECT_FMODE("-alpha", -2.5);
	EXPECT_FMODE("alpha * 2 + 1", 6.0);
	EXPECT_FMODE("N / 4 / 1024", 1.0);
	EXPECT_FMODE("1 / 3", 1.0 / 3);
	EXPECT_FMODE("min(1, 0.5)", 0.5);
	EXPECT_FMODE("max(alpha, TILE_SIZE / 8)", 4.0);
	EXPECT_FMODE("(1 + 2) * 0.5", 1.5);
	EXPECT_FMODE("SM_COUNT / 2", 66.0);
	EXPECT_FMODE_ERR("5 % 2", 3, "'%' takes integers, not a floating-point value");
	EXPECT_FMODE_ERR("cdiv(5, 2)", 1, "'cdiv' takes integers, not a floating-point value");
	EXPECT_FMODE_ERR("1 << 2", 3, "'<<' takes integers, not a floating-point value");
	EXPECT_FMODE_ERR("alpha / 0", 7, "division by zero");
	EXPECT_FMODE_ERR("1e308 * 10", 7, "floating-point overflow");
	EXPECT_FMODE_ERR("beta", 1, "unknown param 'beta' in expression (known: N, TILE_SIZE, PAD, alpha)");
	/* the integer mode is unchanged: 5/2 is 2, a float in arithmetic an error */
	EXPECT_INT("5/2", 2);
	EXPECT_ERR("alpha * 2", 1, "float param 'alpha' in integer expression");
}

/* A table of many names: each found (by its bytes, not a prefix), set
 * again in place, removed with the rest still found, in file order. */
TEST(many_names)
{
	symtab t = {0};
	char name[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(name, sizeof name, "p%d", i);
		symtab_set(&t, name, (value){ 0, i, 0 }, 0);
	}
	CHECK(t.n == 5000);
	const sym *x = symtab_get(&t, "p4999", -1);
	CHECK(x && x->v.i == 4999);
	CHECK(symtab_get(&t, "p12+1", 3) && symtab_get(&t, "p12+1", 3)->v.i == 12);
	CHECK(symtab_get(&t, "p5000", -1) == NULL && symtab_get(&t, "p", -1) == NULL);
	symtab_set(&t, "p7", (value){ 0, 70, 0 }, 0);
	CHECK(t.n == 5000 && symtab_get(&t, "p7", -1)->v.i == 70 && strcmp(t.v[7].name, "p7") == 0);
	CHECK(symtab_remove(&t, "p3") == 0 && symtab_remove(&t, "p3") == -1);
	CHECK(t.n == 4999 && symtab_get(&t, "p3", -1) == NULL && strcmp(t.v[3].name, "p4") == 0);
	CHECK(symtab_get(&t, "p4998", -1) && symtab_get(&t, "p4998", -1)->v.i == 4998);
	symtab_set(&t, "p3", (value){ 0, 3, 0 }, 0);
	CHECK(t.n == 5000 && strcmp(t.v[4999].name, "p3") == 0 && symtab_get(&t, "p3", -1)->v.i == 3);
	symtab_free(&t);
}

int main(void)
{
	RUN(literals);
	RUN(many_names);
	RUN(precedence);
	RUN(names_and_functions);
	RUN(floats);
	RUN(float_mode);
	RUN(overflow_and_division);
	RUN(syntax_errors);
	RUN(no_names);
	RUN(nesting);
	RUN(symtab);
	RUN(value_format);
	return test_report("expr");
}
