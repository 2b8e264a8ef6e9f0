/* board_types.h: the class board's state, shared by its parts: the
 * request handler (bapi), the HTTP server (bserve), the queues (bqueue)
 * and its start (board). */
#ifndef CUPLAY_BOARD_TYPES_H
#define CUPLAY_BOARD_TYPES_H

#include <pthread.h>
#include <stddef.h>

#include "bstore.h"

#define BOARD_MAX_GPUS 64
#define BOARD_RING 32      /* the last finished exercises a page may not have seen yet */
#define BOARD_NAME_MAX 64  /* an exercise's or student's name, in bytes */

/* An exercise the board found in its folder (read once at start). */
typedef struct bexercise {
	char name[BOARD_NAME_MAX + 1];
	char title[256];
	int time_limit_s;      /* the verification's own bound, from the exercise */
	long mem_limit_mb;
} bexercise;

typedef struct board {
	bstore *db;
	char *exdir;           /* the exercises' folder, absolute */
	char *cuplay;          /* the program run as PROG --verify */
	const char *slurm;     /* srun's own arguments (--slurm): each verification a Slurm job; NULL: on this host */
	int per_minute;        /* submissions a student may send a minute; 0: no limit */
	size_t body_max;       /* a request's body, in bytes */
	bexercise *ex;         /* the exercises, by name */
	int nex;
	int grace_s;           /* a verification is killed this long after its exercise's time */
	int nslots;            /* queues: one a GPU, or --jobs compile-only ones */
	int slot_gpu[BOARD_MAX_GPUS]; /* the GPU of each queue, -1: none */
	int sse_max;           /* open /events streams at most */

	pthread_mutex_t mu;    /* guards what follows */
	pthread_cond_t work;   /* a submission was queued, or the board stops */
	pthread_cond_t events; /* a submission finished, or the board stops */
	int stopping;
	unsigned long long gen;                    /* submissions finished since start */
	char ring[BOARD_RING][BOARD_NAME_MAX + 1]; /* their exercises, ring[gen % BOARD_RING] */
	int nsse;                                  /* /events streams open */
} board;

/* A response: its status, content type and body (malloc'd). */
typedef struct bresp {
	int status;
	const char *type;
	char *body;
	size_t len;
} bresp;

#endif
