/* runner.h: one verification of one submission, run away from the
 * board's process. The board's queue threads call a runner and block until
 * it returns: runner_local runs `cuplay --verify` as a child on this host
 * (board/runner_local.c), runner_slurm through srun. Both start processes
 * only through base/child. */
#ifndef CUPLAY_RUNNER_H
#define CUPLAY_RUNNER_H

#include <stddef.h>

struct run_req {
	const char *cuplay;        /* the program run as `PROG --verify EXERCISE - ...` */
	const char *exercise_path;
	const char *source;
	size_t source_len;
	unsigned long long seed;
	int gpu;                   /* -1: none */
	int compile_only;
	int time_limit_s;          /* wall clock; 0: none */
	long mem_limit_mb;         /* address space; 0: none */
};

struct run_out {
	char *json;                /* malloc'd verify line, or NULL */
	char err[256];
};

/* 0 with out->json, or -1 with out->err (the child could not start, or
 * printed no line: then out->err says how it ended). */
int runner_local(const struct run_req *, struct run_out *);
int runner_slurm(const struct run_req *, struct run_out *, const char *srun_args);

#endif
