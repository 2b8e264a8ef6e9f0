/* test_exercise.c: the class board's exercise files parsed, and their
 * errors at their line and column. */
#include "test.h"
#include "exercise.h"

static const char *good =
	"# a comment\n"
	"name        transpose   # trailing comment\n"
	"title       Transpose N x N: #1 of the lab\n"
	"file        transpose.cu\n"
	"kernel      transpose_tiled\n"
	"baseline    transpose_naive\n"
	"  #a comment without a blank\n"
	"sizes       N=8192,M=3\n"
	"check_sizes N=1000 N=4097\n"
	"tolerance   1e-6\n"
	"rank_by     speedup\n"
	"limits      time=60 memory=16384 source=65536\n";

TEST(parsed)
{
	struct exercise ex;
	char err[256] = "";
	CHECK(exercise_parse(good, "t.exercise", &ex, err, sizeof err) == 0);
	CHECK_STREQ(err, "");
	CHECK_STREQ(ex.name, "transpose");
	CHECK_STREQ(ex.title, "Transpose N x N: #1 of the lab"); /* '#' starts a comment only after a blank */
	CHECK_STREQ(ex.file, "transpose.cu");
	CHECK_STREQ(ex.kernel, "transpose_tiled");
	CHECK_STREQ(ex.baseline, "transpose_naive");
	CHECK(ex.timed.n == 2 && ex.timed.v[0].value == 8192 && ex.timed.v[1].value == 3);
	CHECK_STREQ(ex.timed.v[1].name, "M");
	CHECK(ex.nchecks == 2 && ex.checks[0].n == 1 && ex.checks[0].v[0].value == 1000 && ex.checks[1].v[0].value == 4097);
	CHECK(ex.tolerance == 1e-6);
	CHECK(ex.rank_by == EX_RANK_SPEEDUP);
	CHECK_STREQ(exercise_rank_name(ex.rank_by), "speedup");
	CHECK(ex.time_limit_s == 60 && ex.mem_limit_mb == 16384 && ex.source_limit == 65536);
	CHECK(ex.fresh_seeds == 1); /* the default */
	char buf[64];
	exercise_size_text(&ex.timed, buf, sizeof buf);
	CHECK_STREQ(buf, "N=8192, M=3");
}

/* every shipped exercise parses */
TEST(shipped)
{
	const char *files[] = { "sessions/exercises/transpose.exercise", "sessions/exercises/reduction.exercise" };
	for (int i = 0; i < 2; i++) {
		struct exercise ex;
		char err[256] = "";
		CHECK(exercise_load(files[i], &ex, err, sizeof err) == 0);
		if (err[0])
			fprintf(stderr, "  %s\n", err);
		CHECK(ex.nchecks >= 1 && ex.timed.n == 1);
	}
}

/* good with line `line` (1-based) replaced by repl; the error wanted */
static void bad_line(int line, const char *repl, const char *want)
{
	sbuf b = {0};
	const char *p = good;
	for (int l = 1; *p; l++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
		if (l == line) {
			sb_puts(&b, repl);
			sb_putc(&b, '\n');
		} else {
			sb_add(&b, p, n);
		}
		p += n;
	}
	struct exercise ex;
	char err[256] = "";
	CHECK(exercise_parse(b.s, "t.exercise", &ex, err, sizeof err) == -1);
	CHECK_STREQ(err, want);
	sb_free(&b);
}

TEST(errors_at_their_line)
{
	bad_line(2, "nom transpose", "t.exercise:2:1: unknown key 'nom' (keys: name, title, file, kernel, baseline, "
	         "sizes, check_sizes, tolerance, rank_by, limits, fresh_seeds)");
	bad_line(2, "name Trans pose", "t.exercise:2:6: a name is lowercase letters, digits, '_' and '-', got 'Trans pose'");
	bad_line(4, "file /etc/passwd.cu", "t.exercise:4:6: expected a kernel file's name in kernels_src/ (NAME.cu), got '/etc/passwd.cu'");
	bad_line(4, "file ../x.cu", "t.exercise:4:8: the file is a name in kernels_src/, without folders or blanks");
	bad_line(5, "kernel 9lives", "t.exercise:5:8: expected a kernel's name, got '9lives'");
	bad_line(6, "baseline transpose_tiled", "t.exercise:6:1: the baseline is the kernel to write ('transpose_tiled'): name another");
	bad_line(7, "sizes N=1", "t.exercise:8:1: duplicate 'sizes' (first at line 7)");
	bad_line(8, "sizes N=8192,", "t.exercise:8:13: expected NAME=VALUE after ','");
	bad_line(8, "sizes N 8192", "t.exercise:8:8: expected '=' after 'N' in a size");
	bad_line(8, "sizes N=-3", "t.exercise:8:9: expected a positive whole number for 'N', got '-3'");
	bad_line(8, "sizes N=0", "t.exercise:8:9: expected a positive whole number for 'N', got '0'");
	bad_line(8, "sizes N=1,N=2", "t.exercise:8:11: 'N' twice in one size");
	bad_line(9, "check_sizes N=1000 N=x", "t.exercise:9:22: expected a positive whole number for 'N', got 'x'");
	bad_line(10, "tolerance 0", "t.exercise:10:11: expected a positive number after tolerance, got '0'");
	bad_line(10, "tolerance nan", "t.exercise:10:11: expected a positive number after tolerance, got 'nan'");
	bad_line(11, "rank_by fastest", "t.exercise:11:9: expected 'median_ms' or 'speedup' after rank_by, got 'fastest'");
	bad_line(12, "limits time=60 memory=16384", "t.exercise:12:28: limits: missing source=");
	bad_line(12, "limits time=60 time=6 memory=1 source=1", "t.exercise:12:16: 'time' twice in limits");
	bad_line(12, "limits time=60 memory=16384 source=65536 disk=9", "t.exercise:12:42: expected time=SECONDS, memory=MIB or source=BYTES, got 'disk=9'");
	bad_line(12, "limits time=99999999 memory=1 source=1", "t.exercise:12:13: expected a whole number from 1 to 86400 for 'time'");
	bad_line(12, "limits", "t.exercise:12:7: expected a value after 'limits'");
	bad_line(12, "fresh_seeds 9", "t.exercise:12:13: expected a whole number from 1 to 8 after fresh_seeds, got '9'");
	bad_line(3, "title a\001b", "t.exercise:3:8: a control character in the file");
	bad_line(5, "# no kernel", "t.exercise: missing 'kernel'");
}

int main(void)
{
	RUN(parsed);
	RUN(shipped);
	RUN(errors_at_their_line);
	return test_report("exercise");
}
