/* test_target.c: `//@ arch` targets: their spelling, where their code runs,
 * the first of a list that a device runs. */
#include "test.h"

#include "target.h"

static arch_target parse(const char *w)
{
	arch_target t = { -1, 'x', 0, 0 };
	char *why = NULL;
	CHECK(target_parse(w, (int)strlen(w), &t, &why) == 0);
	free(why);
	return t;
}

static char *why_not(const char *w)
{
	arch_target t;
	char *why = NULL;
	CHECK(target_parse(w, (int)strlen(w), &t, &why) == -1);
	return why;
}

TEST(spelling)
{
	arch_target t = parse("sm_90a");
	CHECK(t.sm == 90 && t.suffix == 'a');
	t = parse("sm_100f");
	CHECK(t.sm == 100 && t.suffix == 'f');
	t = parse("sm_80");
	CHECK(t.sm == 80 && t.suffix == 0);
	t = parse("native");
	CHECK(t.sm == 0 && t.suffix == 0);
	t = parse("native+a");
	CHECK(t.sm == 0 && t.suffix == 'a');
	char buf[24], *w;
	target_spell(&t, buf, sizeof buf);
	CHECK_STREQ(buf, "native+a");
	CHECK(target_resolve(&t, 90, buf, sizeof buf) == 90);
	CHECK_STREQ(buf, "sm_90a");
	t = parse("native");
	CHECK(target_resolve(&t, 89, buf, sizeof buf) == 89);
	CHECK_STREQ(buf, "sm_89");

	CHECK_STREQ(w = why_not("sm_9x"), "'sm_9x' is not a target: expected sm_ and a compute capability such as sm_90");
	free(w);
	CHECK_STREQ(w = why_not("sm_90b"), "'sm_90b' is not a target: after sm_90 only 'a' (arch-specific) or 'f' (family) may follow");
	free(w);
	CHECK_STREQ(w = why_not("sm_80a"), "'sm_80a': arch-specific and family targets begin at sm_90 (sm_90a)");
	free(w);
	CHECK_STREQ(w = why_not("compute_90"), "'compute_90' is not a target: expected sm_XY, sm_XYa, sm_XYf, native or native+a");
	free(w);
	CHECK_STREQ(w = why_not("sm_20"), "'sm_20' is not a target: expected sm_ and a compute capability such as sm_90");
	free(w);
}

TEST(where_it_runs)
{
	char *why = NULL;
	arch_target a90 = parse("sm_90a"), p80 = parse("sm_80"), p86 = parse("sm_86"), na = parse("native+a");
	arch_target f100 = parse("sm_100f");
	CHECK(target_runs(&a90, 90, NULL) && !target_runs(&a90, 100, NULL) && !target_runs(&a90, 89, NULL));
	CHECK(target_runs(&p80, 80, NULL) && target_runs(&p80, 86, NULL) && target_runs(&p80, 89, NULL));
	CHECK(!target_runs(&p80, 90, &why)); /* a cubin runs on its own major version only */
	CHECK_STREQ(why, "its code runs on compute capability 8.0 to 8.9 only");
	CHECK(!target_runs(&p86, 80, NULL) && target_runs(&p86, 89, NULL));
	CHECK(!target_runs(&a90, 100, &why));
	CHECK_STREQ(why, "arch-specific code runs on compute capability 9.0 only");
	CHECK(target_runs(&na, 90, NULL) && target_runs(&na, 120, NULL) && !target_runs(&na, 89, &why));
	CHECK_STREQ(why, "compute capability 8.9 has no arch-specific target (they begin at sm_90a)");
	CHECK(target_runs(&f100, 103, NULL) && !target_runs(&f100, 120, NULL));
	free(why);
}

TEST(lists)
{
	arch_target ts[TARGET_MAX];
	int n = 0, col = 0;
	char *why = NULL;
	const char *l = "sm_100a, sm_90a  native";
	CHECK(target_list(l, l + strlen(l), 3, 10, ts, &n, &col, &why) == 0);
	CHECK(n == 3 && ts[0].sm == 100 && ts[1].sm == 90 && ts[2].sm == 0);
	CHECK(ts[0].line == 3 && ts[0].col == 10 && ts[1].col == 19 && ts[2].col == 27);
	CHECK(target_pick(ts, n, 90) == 1 && target_pick(ts, n, 100) == 0 && target_pick(ts, n, 80) == 2);
	CHECK(target_pick(ts, 2, 80) == -1);
	l = "sm_90a,";
	CHECK(target_list(l, l + strlen(l), 3, 10, ts, &n, &col, &why) == -1 && col == 17);
	CHECK_STREQ(why, "expected a target after ','");
	l = "sm_90a, bogus";
	CHECK(target_list(l, l + strlen(l), 3, 10, ts, &n, &col, &why) == -1 && col == 18);
	l = "";
	CHECK(target_list(l, l, 3, 10, ts, &n, &col, &why) == -1 && col == 10);
	free(why);
}

int main(void)
{
	RUN(spelling);
	RUN(where_it_runs);
	RUN(lists);
	return test_report("target");
}
