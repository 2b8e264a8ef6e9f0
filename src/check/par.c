/* par.c: host loops in chunks on several threads (par.h). */
#include "par.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>


#define PAR_MAX_THREADS 64

static int par_nthreads; /* ref_set_threads; 0: one per CPU */

void ref_set_threads(int n)
{
	par_nthreads = n > 0 ? (n > PAR_MAX_THREADS ? PAR_MAX_THREADS : n) : 0;
}

int ref_threads(void)
{
	if (par_nthreads > 0)
		return par_nthreads;
	long n = 0;
#ifdef CPU_COUNT
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		n = CPU_COUNT(&set);
#endif
	if (n <= 0)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	return n > PAR_MAX_THREADS ? PAR_MAX_THREADS : (int)n;
}

uint64_t par_grain(uint64_t n)
{
	uint64_t c = (uint64_t)1 << 16;
	while (n / c > ((uint64_t)1 << 14))
		c <<= 1;
	return c;
}

typedef struct par_job {
	uint64_t n, chunk, nchunks;
	par_fn fn;
	void *ctx;
	atomic_uint_fast64_t next;
} par_job;

static void par_loop(par_job *j)
{
	for (;;) {
		uint64_t ci = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
		if (ci >= j->nchunks)
			return;
		uint64_t lo = ci * j->chunk;
		uint64_t hi = j->n - lo > j->chunk ? lo + j->chunk : j->n;
		j->fn(j->ctx, ci, lo, hi);
	}
}

static void *par_thread(void *p)
{
	par_loop(p);
	return NULL;
}

void par_chunks(uint64_t n, uint64_t chunk, par_fn fn, void *ctx)
{
	if (n == 0)
		return;
	if (chunk == 0)
		chunk = 1;
	par_job j;
	j.n = n;
	j.chunk = chunk;
	j.nchunks = n / chunk + (n % chunk != 0);
	j.fn = fn;
	j.ctx = ctx;
	atomic_init(&j.next, 0);
	uint64_t nt = (uint64_t)ref_threads();
	if (nt > j.nchunks)
		nt = j.nchunks;
	pthread_t tid[PAR_MAX_THREADS];
	int started[PAR_MAX_THREADS] = {0};
	for (uint64_t t = 1; t < nt; t++)
		started[t] = pthread_create(&tid[t], NULL, par_thread, &j) == 0;
	par_loop(&j);
	for (uint64_t t = 1; t < nt; t++)
		if (started[t])
			pthread_join(tid[t], NULL);
}
