/* runner.h: one verification of one submission, run where the board
 * sends it: a child on this host (runner_local) or a Slurm job
 * (runner_slurm). Both block; the board calls them from its queue
 * threads. Processes start only through base/child. */
#ifndef CUPLAY_RUNNER_H
#define CUPLAY_RUNNER_H

#include <stddef.h>

struct run_req {
	const char *cuplay;        /* the cuplay binary (the same path on a Slurm node) */
	const char *exercise_path; /* the exercise file */
	const char *source;        /* the submission's text, given on stdin */
	size_t source_len;
	unsigned long long seed;   /* the fresh seed the submitter cannot know */
	int gpu;                   /* -1: none */
	int compile_only;
	int time_limit_s;
	long mem_limit_mb;
};

struct run_out {
	char *json;    /* malloc'd verify line, or NULL */
	char err[256]; /* one line when the run gave no result */
};

int runner_local(const struct run_req *, struct run_out *); /* 0 or -1 with err */
int runner_slurm(const struct run_req *, struct run_out *, const char *srun_args);

#endif
