/* test.h: a tiny unit-test harness. Each test file is one program:
 *
 *   TEST(name) { CHECK(1 + 1 == 2); CHECK_STREQ(s, "x"); }
 *   int main(void) { RUN(name); return test_report("expr"); }
 *
 * Prints one line a failed check (file:line and the expression) and a
 * closing "N passed, N failed" count of checks. */
#ifndef CUPLAY_TEST_H
#define CUPLAY_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "util.h"

static int test_pass_, test_fail_;

#define TEST(name) static void test_##name(void)
#define RUN(name) (test_##name())

#define CHECK(cond) do { \
	if (cond) test_pass_++; \
	else { test_fail_++; fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

#define CHECK_STREQ(a, b) do { \
	const char *a_ = (a), *b_ = (b); \
	if (a_ && b_ && strcmp(a_, b_) == 0) test_pass_++; \
	else { test_fail_++; fprintf(stderr, "%s:%d: check failed: %s == %s\n  got:  %s\n  want: %s\n", \
		__FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } \
} while (0)

#define CHECK_NEAR(a, b, eps) do { \
	double a_ = (a), b_ = (b); \
	if (fabs(a_ - b_) <= (eps)) test_pass_++; \
	else { test_fail_++; fprintf(stderr, "%s:%d: check failed: %s ~ %s: %.17g vs %.17g\n", \
		__FILE__, __LINE__, #a, #b, a_, b_); } \
} while (0)

/* got against the golden file at path, one check (UPDATE=1 rewrites the
 * file first); a failure shows what was got. */
#define CHECK_GOLDEN(path, got) test_golden_(__FILE__, __LINE__, (path), (got))
static inline void test_golden_(const char *file, int line, const char *path, const char *got)
{
	const char *up = getenv("UPDATE");
	if (up && strcmp(up, "1") == 0) {
		FILE *f = fopen(path, "w");
		if (f) {
			fputs(got, f);
			fclose(f);
		}
	}
	char *want = NULL;
	size_t n = 0;
	if (read_file(path, &want, &n) == 0 && strcmp(want, got) == 0) {
		test_pass_++;
	} else {
		test_fail_++;
		fprintf(stderr, "%s:%d: check failed: %s %s; got:\n%s", file, line, path,
		        want ? "differs" : "cannot be read", got);
	}
	free(want);
}

static inline int test_report(const char *suite)
{
	printf("%s: %d passed, %d failed\n", suite, test_pass_, test_fail_);
	return test_fail_ ? 1 : 0;
}

#endif
