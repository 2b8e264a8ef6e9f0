/* bqueue.h: the board's queues: one thread a GPU (or --jobs threads on a
 * host without one), each taking the oldest queued submission, running its
 * verification through the runner, storing the result and telling the
 * /events streams. */
#ifndef CUPLAY_BQUEUE_H
#define CUPLAY_BQUEUE_H

#include "board_types.h"

/* Starts b->nslots threads: 0, or -1 (those started are stopped). */
int bqueue_start(board *b, pthread_t *threads);
/* Sets b->stopping, wakes every thread and joins them (a verification
 * in flight is finished first; the board's runner bounds it). */
void bqueue_stop(board *b, pthread_t *threads);

/* The result to store from a runner's line (NULL: it printed none, err
 * says why): a JSON object, malloc'd, with its figures read. */
typedef struct bresult {
	char *json;
	char status[32], rank_by[16];
	char *gpu, *host;
	double median_ms, speedup;
} bresult;
void bresult_read(const char *line, const char *err, bresult *r);
void bresult_free(bresult *r);

#endif
