/* exercise.h: an exercise of the class board, a file of `key value` lines
 * in sessions/exercises/NAME.exercise ('#' first on a line, or
 * alone after a blank, starts a comment: `title Lab #1` keeps its '#1'):
 *
 *   name        transpose                 the exercise's name: [a-z0-9_-], at most 63
 *   title       Transpose N x N floats    one line shown on the board
 *   file        transpose.cu              the starting kernel file: in kernels_src/ beside the
 *                                         exercise's sessions/ folder, else where `use` finds it
 *   kernel      transpose_tiled           the kernel a submission must define
 *   baseline    transpose_naive           the starting file's kernel to beat
 *   sizes       N=8192                    the size timed (and checked): NAME=VALUE[,NAME=VALUE]
 *   check_sizes N=1000 N=4097             sizes checked only (not multiples of the tile), optional
 *   tolerance   1e-6                      the check's tolerance for every output (optional:
 *                                         the starting file's `//@ check ... tol` otherwise)
 *   rank_by     median_ms                 median_ms (lower first) or speedup (over the baseline)
 *   limits      time=60 memory=16384 source=65536
 *                                         seconds of wall time, MiB of address space, bytes of source
 *   fresh_seeds 1                         launches on inputs from a fresh seed (1..8, optional: 1)
 *
 * Every key but check_sizes, tolerance and fresh_seeds is required, once. */
#ifndef CUPLAY_EXERCISE_H
#define CUPLAY_EXERCISE_H

#include <stddef.h>

#define EX_MAX_ASSIGN 8       /* NAME=VALUE pairs in one size */
#define EX_MAX_CHECK_SIZES 8

struct ex_assign {
	char name[64];
	long long value;
};

/* one configuration of the starting file's params */
struct ex_size {
	int n;
	struct ex_assign v[EX_MAX_ASSIGN];
};

enum ex_rank { EX_RANK_MEDIAN, EX_RANK_SPEEDUP };

struct exercise {
	char name[64];
	char title[256];
	char file[256];
	char kernel[128];
	char baseline[128];
	struct ex_size timed;
	struct ex_size checks[EX_MAX_CHECK_SIZES];
	int nchecks;
	double tolerance;      /* 0: the starting file's own */
	enum ex_rank rank_by;
	int time_limit_s;
	long mem_limit_mb;
	long source_limit;     /* bytes */
	int fresh_seeds;
};

/* Parses text (the file at path, named in errors) into *ex. 0, or -1 with
 * err holding "path:line:col: MSG" (the first error; "path: MSG" for a
 * missing key). */
int exercise_parse(const char *text, const char *path, struct exercise *ex, char *err, size_t errlen);
/* Reads and parses the file at path: 0 or -1 with err. */
int exercise_load(const char *path, struct exercise *ex, char *err, size_t errlen);
/* rank_by's word: "median_ms" or "speedup". */
const char *exercise_rank_name(enum ex_rank r);
/* The size as the REPL's `set` line takes it: "N=8192, M=3" into buf. */
void exercise_size_text(const struct ex_size *s, char *buf, size_t len);

#endif
