/* test_threads.c: threads_run (util.h), which `sweep ... on all` starts
 * its threads with: a thread that cannot be started leaves its share of a
 * shared pool to the others, and with none started the caller does the
 * work itself; nothing is joined that was not started. */
#include "test.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

#define JOBS 40
#define N 4

typedef struct pool {
	atomic_int next;
	atomic_int done[JOBS];
} pool;

typedef struct arg {
	pool *pl;
	int id;
	int ran;       /* jobs this one took */
	pthread_t self;
} arg;

static void *take_jobs(void *p)
{
	arg *a = p;
	a->self = pthread_self();
	for (;;) {
		int i = atomic_fetch_add(&a->pl->next, 1);
		if (i >= JOBS)
			break;
		atomic_fetch_add(&a->pl->done[i], 1);
		a->ran++;
	}
	return NULL;
}

/* pthread_create for odd threads only */
static int odd_only(pthread_t *t, void *(*fn)(void *), void *p)
{
	const arg *a = p;
	if (a->id % 2 == 0)
		return EAGAIN;
	return pthread_create(t, NULL, fn, p);
}

static int never(pthread_t *t, void *(*fn)(void *), void *p)
{
	(void)t;
	(void)fn;
	(void)p;
	return EAGAIN;
}

static int run(thread_start_fn start, arg *args, pool *pl)
{
	memset(pl, 0, sizeof *pl);
	for (int i = 0; i < N; i++)
		args[i] = (arg){ pl, i, 0, 0 };
	return threads_run(N, take_jobs, args, sizeof *args, start);
}

static int every_job_once(const pool *pl)
{
	for (int i = 0; i < JOBS; i++)
		if (atomic_load(&pl->done[i]) != 1)
			return 0;
	return 1;
}

TEST(all_start)
{
	arg args[N];
	pool pl;
	CHECK(run(NULL, args, &pl) == N);
	CHECK(every_job_once(&pl));
	int sum = 0;
	for (int i = 0; i < N; i++)
		sum += args[i].ran;
	CHECK(sum == JOBS);
}

TEST(some_fail)
{
	arg args[N];
	pool pl;
	CHECK(run(odd_only, args, &pl) == N / 2);
	CHECK(every_job_once(&pl));
	for (int i = 0; i < N; i += 2)
		CHECK(args[i].ran == 0); /* not started: never ran */
	CHECK(args[1].ran + args[3].ran == JOBS);
}

TEST(none_start)
{
	arg args[N];
	pool pl;
	CHECK(run(never, args, &pl) == 0);
	CHECK(every_job_once(&pl));
	CHECK(args[0].ran == JOBS); /* the caller did it, as thread 0 */
	CHECK(pthread_equal(args[0].self, pthread_self()));
	CHECK(args[1].ran == 0 && args[2].ran == 0 && args[3].ran == 0);
	CHECK(threads_run(0, take_jobs, args, sizeof *args, NULL) == 0);
}

int main(void)
{
	RUN(all_start);
	RUN(some_fail);
	RUN(none_start);
	return test_report("threads");
}
