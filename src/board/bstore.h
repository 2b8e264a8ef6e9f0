/* bstore.h: the class board's database (SQLite, one file): students,
 * exercises, submissions and the teacher's token. Every change is one
 * transaction, committed (WAL, synchronous FULL) before the caller answers:
 * what the board acknowledged survives a kill. Calls are safe from any
 * thread (one connection behind a mutex). */
#ifndef CUPLAY_BSTORE_H
#define CUPLAY_BSTORE_H

#include <stddef.h>

typedef struct bstore bstore;

/* A submission as stored. Strings malloc'd (bsub_free). */
typedef struct bsub {
	long long id;
	char *student, *exercise, *file, *source, *state, *result, *gpu, *host;
	unsigned long long seed;
	long long created, finished; /* unix seconds; finished 0 until done */
	int slot;                    /* the queue that runs it: a GPU, -1 none */
} bsub;

/* One line of a ranking: a student's best ok result on one GPU kind. */
typedef struct brank {
	int rank;
	long long id;
	char *student, *gpu, *host;
	double median_ms, speedup;
	char rank_by[16];
} brank;

/* A new token: 32 hex digits from getrandom. 0 or -1. */
int bs_token(char out[33]);

/* Opens (creating) the database at path: 0, or -1 with *err. The
 * teacher's token is made at the first open (random) and kept. */
int bs_open(const char *path, bstore **out, char **err);
void bs_close(bstore *s);
const char *bs_teacher(const bstore *s);

/* Submissions left running by a board that stopped, queued again: how many. */
int bs_requeue(bstore *s);

/* An exercise seen in the folder: added, open, unless known. 0 or -1. */
int bs_exercise_add(bstore *s, const char *name);
/* 1 open, 0 closed, -1 unknown. */
int bs_exercise_state(bstore *s, const char *name);
/* Opens or closes: 0, or -1 when unknown. */
int bs_exercise_set(bstore *s, const char *name, int open);

/* A student: 0, 1 when the name is taken, -1 on an error. */
int bs_student_add(bstore *s, const char *name, const char *token);
/* The student whose token this is (compared in constant time with every
 * token): the name, malloc'd, or NULL. */
char *bs_student_of(bstore *s, const char *token);

/* Queues a submission unless the student sent `per_minute` in the last
 * minute: its id (with *position, 1 the next to run), 0 over the rate,
 * -1 on an error. */
long long bs_submit(bstore *s, const char *student, const char *exercise, const char *file,
                    const char *source, unsigned long long seed, int per_minute, int *position);
/* The oldest queued submission marked running on queue `slot`: 1 with
 * *out, 0 when none is queued, -1 on an error. */
int bs_claim(bstore *s, int slot, bsub *out);
/* A submission done with its result line (and the figures read from it). */
int bs_finish(bstore *s, long long id, const char *result, const char *status, double median_ms,
              double speedup, const char *rank_by, const char *gpu, const char *host);
/* 1 with *out, 0 unknown, -1 error; *position its place among the queued (0 when not queued). */
int bs_get(bstore *s, long long id, bsub *out, int *position);
void bsub_free(bsub *b);

/* The ranking of an exercise: rows by GPU kind, then rank. 0 or -1. */
int bs_ranking(bstore *s, const char *exercise, brank **rows, int *n);
void branks_free(brank *r, int n);
/* Counts of submissions queued, running and done. */
int bs_counts(bstore *s, long long c[3]);
/* Every exercise, sorted: names malloc'd, *open each; 0 or -1. */
int bs_exercises(bstore *s, char ***names, int **open, int *n);

#endif
