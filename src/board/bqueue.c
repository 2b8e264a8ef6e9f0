/* bqueue.c: the board's queues (bqueue.h). */
#include "bqueue.h"
#include "json.h"
#include "runner.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct slot_arg {
	board *b;
	int slot;
} slot_arg;

static void crashed(bresult *r, const char *why)
{
	sbuf j = {0};
	sb_puts(&j, "{\"status\":\"crashed\",\"reason\":");
	json_str(&j, why);
	sb_puts(&j, "}");
	r->json = sb_steal(&j);
	snprintf(r->status, sizeof r->status, "crashed");
}

void bresult_read(const char *line, const char *err, bresult *r)
{
	memset(r, 0, sizeof *r);
	r->median_ms = r->speedup = NAN;
	snprintf(r->rank_by, sizeof r->rank_by, "median_ms");
	jfield *f = NULL;
	int n = 0;
	char *perr = NULL;
	if (!line) {
		crashed(r, err && *err ? err : "the verification printed no result");
		return;
	}
	if (json_object_nested(line, &f, &n, &perr) != 0) {
		char *why = xasprintf("the verification's result is not JSON (%s)", perr);
		crashed(r, why);
		free(why);
		free(perr);
		return;
	}
	const char *st = jfield_str(f, n, "status", "crashed");
	static const char *const known[] = { "ok", "wrong", "refused", "compile_error", "needs_gpu", "timeout", "crashed" };
	int ok = 0;
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		ok |= strcmp(st, known[i]) == 0;
	if (!ok) {
		char *why = xasprintf("the verification's status '%.40s' is not known", st);
		crashed(r, why);
		free(why);
		jfields_free(f, n);
		return;
	}
	r->json = xstrdup(line);
	snprintf(r->status, sizeof r->status, "%s", st);
	const char *rb = jfield_str(f, n, "rank_by", "median_ms");
	snprintf(r->rank_by, sizeof r->rank_by, "%s", strcmp(rb, "speedup") == 0 ? "speedup" : "median_ms");
	r->gpu = xstrdup(jfield_str(f, n, "gpu", ""));
	r->host = xstrdup(jfield_str(f, n, "host", ""));
	r->median_ms = jfield_num(f, n, "median_ms", NAN);
	r->speedup = jfield_num(f, n, "speedup", NAN);
	/* an ok result without its figure cannot be ranked */
	if (strcmp(r->status, "ok") == 0 && !isfinite(strcmp(r->rank_by, "speedup") == 0 ? r->speedup : r->median_ms))
		snprintf(r->status, sizeof r->status, "crashed");
	jfields_free(f, n);
}

void bresult_free(bresult *r)
{
	free(r->json);
	free(r->gpu);
	free(r->host);
	memset(r, 0, sizeof *r);
}

/* Tells the /events streams that exercise's ranking may have changed. */
static void announce(board *b, const char *exercise)
{
	pthread_mutex_lock(&b->mu);
	b->gen++;
	snprintf(b->ring[b->gen % BOARD_RING], sizeof b->ring[0], "%s", exercise);
	pthread_cond_broadcast(&b->events);
	pthread_mutex_unlock(&b->mu);
}

static void run_one(board *b, int slot, bsub *s)
{
	char *path = xasprintf("%s/%s.exercise", b->exdir, s->exercise);
	int gpu = b->slot_gpu[slot];
	const bexercise *ex = NULL;
	for (int i = 0; i < b->nex; i++)
		if (strcmp(b->ex[i].name, s->exercise) == 0)
			ex = &b->ex[i];
	/* an exercise gone since its submission: the verification says so */
	struct run_req rq = {
		.cuplay = b->cuplay, .exercise_path = path, .source = s->source, .source_len = strlen(s->source),
		.seed = s->seed, .gpu = gpu, .compile_only = gpu < 0,
		.time_limit_s = (ex ? ex->time_limit_s : 60) + b->grace_s, .mem_limit_mb = ex ? ex->mem_limit_mb : 0,
	};
	struct run_out out;
	int rc = b->slurm ? runner_slurm(&rq, &out, b->slurm) : runner_local(&rq, &out);
	bresult r;
	bresult_read(rc == 0 ? out.json : NULL, out.err, &r);
	free(out.json);
	if (bs_finish(b->db, s->id, r.json, r.status, r.median_ms, r.speedup, r.rank_by, r.gpu, r.host) != 0)
		fprintf(stderr, "board: cannot store the result of submission %lld\n", s->id);
	announce(b, s->exercise);
	bresult_free(&r);
	free(path);
}

static void *slot_main(void *p)
{
	slot_arg *a = p;
	board *b = a->b;
	for (;;) {
		pthread_mutex_lock(&b->mu);
		int stop = b->stopping;
		pthread_mutex_unlock(&b->mu);
		if (stop)
			break;
		bsub s;
		int got = bs_claim(b->db, a->slot, &s);
		if (got == 1) {
			run_one(b, a->slot, &s);
			bsub_free(&s);
			continue;
		}
		/* none queued (or the database busy): wait for a submission, at most a second */
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_sec += 1;
		pthread_mutex_lock(&b->mu);
		if (!b->stopping)
			pthread_cond_timedwait(&b->work, &b->mu, &t);
		pthread_mutex_unlock(&b->mu);
	}
	free(a);
	return NULL;
}

int bqueue_start(board *b, pthread_t *threads)
{
	for (int i = 0; i < b->nslots; i++) {
		slot_arg *a = xmalloc(sizeof *a);
		*a = (slot_arg){ b, i };
		if (pthread_create(&threads[i], NULL, slot_main, a) != 0) {
			free(a);
			int n = b->nslots;
			b->nslots = i;
			bqueue_stop(b, threads);
			b->nslots = n;
			return -1;
		}
	}
	return 0;
}

void bqueue_stop(board *b, pthread_t *threads)
{
	pthread_mutex_lock(&b->mu);
	b->stopping = 1;
	pthread_cond_broadcast(&b->work);
	pthread_cond_broadcast(&b->events);
	pthread_mutex_unlock(&b->mu);
	for (int i = 0; i < b->nslots; i++)
		pthread_join(threads[i], NULL);
}
