/* board.c: `cuplay --board`: its options, the database, the exercises
 * found, the queues and the server, until SIGINT or SIGTERM. */
#include "board.h"

#include <stdio.h>

#ifndef BOARD_MISSING
#include "bapi.h"
#include "board_types.h"
#include "bqueue.h"
#include "bserve.h"
#include "bstore.h"
#include "cudrv.h"
#include "exercise.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct bopts {
	int port;
	const char *bind, *db, *exdir, *gpus, *slurm;
	int jobs;
} bopts;

static int stop_pipe[2] = { -1, -1 };

static void on_stop(int sig)
{
	char c = (char)sig;
	ssize_t n = write(stop_pipe[1], &c, 1);
	(void)n;
}

static int int_arg(const char *opt, const char *v, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (errno || end == v || *end || x < lo || x > hi) {
		fprintf(stderr, "cuplay: %s: '%s' is not a number from %ld to %ld\n", opt, v, lo, hi);
		return -1;
	}
	*out = x;
	return 0;
}

static int parse(int argc, char **argv, bopts *o, board *b)
{
	static const char *const names[] = { "--port", "--bind", "--db", "--exercises", "--gpus", "--slurm",
	                                     "--jobs", "--rate", "--grace", NULL };
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '='), *v = NULL;
		size_t n = eq ? (size_t)(eq - a) : strlen(a);
		int k = 0;
		while (names[k] && !(strlen(names[k]) == n && strncmp(names[k], a, n) == 0))
			k++;
		if (!names[k]) {
			fprintf(stderr, "cuplay: --board: unknown option '%.*s'\n", (int)n, a);
			return -1;
		}
		v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
		if (!v) {
			fprintf(stderr, "cuplay: option '%s' needs a value\n", names[k]);
			return -1;
		}
		long x = 0;
		switch (k) {
		case 0: if (int_arg(names[k], v, 0, 65535, &x)) return -1; o->port = (int)x; break;
		case 1: o->bind = v; break;
		case 2: o->db = v; break;
		case 3: o->exdir = v; break;
		case 4: o->gpus = v; break;
		case 5: o->slurm = v; break;
		case 6: if (int_arg(names[k], v, 1, BOARD_MAX_GPUS, &x)) return -1; o->jobs = (int)x; break;
		case 7: if (int_arg(names[k], v, 0, 100000, &x)) return -1; b->per_minute = (int)x; break;
		default: if (int_arg(names[k], v, 0, 86400, &x)) return -1; b->grace_s = (int)x; break;
		}
	}
	return 0;
}

/* The queues: the GPUs named, every GPU the driver lists, or --jobs
 * compile-only ones; with --slurm, --jobs queues each a job at a time on a
 * GPU Slurm gives it (compile-only ones with --gpus none). 0 or -1 (said). */
static int queues(const bopts *o, board *b)
{
	if (o->slurm) {
		int none = o->gpus && strcmp(o->gpus, "none") == 0;
		for (int i = 0; i < o->jobs; i++)
			b->slot_gpu[b->nslots++] = none ? -1 : 0;
		return 0;
	}
	if (o->gpus && strcmp(o->gpus, "none") != 0) {
		const char *p = o->gpus;
		while (*p) {
			char *end;
			long g = strtol(p, &end, 10);
			if (end == p || g < 0 || g > 1023 || (*end && *end != ',') || b->nslots == BOARD_MAX_GPUS) {
				fprintf(stderr, "cuplay: --gpus: '%s' is not a list of GPU numbers like 0,1 or 'none'\n", o->gpus);
				return -1;
			}
			b->slot_gpu[b->nslots++] = (int)g;
			p = *end ? end + 1 : end;
		}
		return 0;
	}
	int count = 0;
	char *err = NULL;
	if (!o->gpus && cu_load(&err) == 0 && cu.Init(0) == CUDA_SUCCESS && cu.DeviceGetCount(&count) == CUDA_SUCCESS)
		for (int g = 0; g < count && b->nslots < BOARD_MAX_GPUS; g++)
			b->slot_gpu[b->nslots++] = g;
	free(err);
	if (b->nslots == 0) {
		if (!o->gpus)
			fprintf(stderr, "board: no GPU: submissions are compiled and checked, not timed (--gpus none)\n");
		for (int i = 0; i < o->jobs; i++)
			b->slot_gpu[b->nslots++] = -1;
	}
	return 0;
}

/* The exercises in the folder, read and added to the database (one that
 * does not parse is left out, said). 0 or -1 (said). */
static int exercises(board *b)
{
	DIR *d = opendir(b->exdir);
	if (!d) {
		fprintf(stderr, "cuplay: cannot read the exercises' folder '%s': %s\n", b->exdir, strerror(errno));
		return -1;
	}
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d)) && rc == 0) {
		size_t n = strlen(e->d_name);
		if (n <= 9 || strcmp(e->d_name + n - 9, ".exercise") != 0 || !bapi_exercise_name_ok(e->d_name, n - 9))
			continue;
		char *path = xasprintf("%s/%s", b->exdir, e->d_name), err[512];
		struct exercise *x = xcalloc(1, sizeof *x);
		if (exercise_load(path, x, err, sizeof err) != 0) {
			fprintf(stderr, "board: left out: %s\n", err);
		} else {
			b->ex = xrealloc(b->ex, (size_t)(b->nex + 1) * sizeof *b->ex);
			bexercise *bx = &b->ex[b->nex++];
			memset(bx, 0, sizeof *bx);
			snprintf(bx->name, sizeof bx->name, "%.*s", (int)(n - 9), e->d_name);
			snprintf(bx->title, sizeof bx->title, "%s", x->title);
			bx->time_limit_s = x->time_limit_s;
			bx->mem_limit_mb = x->mem_limit_mb;
			rc = bs_exercise_add(b->db, bx->name);
		}
		free(x);
		free(path);
	}
	closedir(d);
	if (rc == 0 && b->nex == 0)
		fprintf(stderr, "board: no exercises in '%s' (NAME.exercise files, docs/formats.md)\n", b->exdir);
	return rc;
}

/* Waits for SIGINT or SIGTERM. */
static void wait_stop(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	char c;
	while (read(stop_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

static int serve(board *b, const bopts *o)
{
	pthread_t threads[BOARD_MAX_GPUS];
	bserver *srv = NULL;
	char *err = NULL;
	int port = 0;
	if (bqueue_start(b, threads) != 0) {
		fprintf(stderr, "cuplay: cannot start the board's queues\n");
		return 1;
	}
	if (bserve_start(b, o->bind, o->port, &srv, &port, &err) != 0) {
		fprintf(stderr, "cuplay: %s\n", err);
		free(err);
		bqueue_stop(b, threads);
		return 1;
	}
	int v6 = strchr(o->bind, ':') != NULL;
	printf("board: http://%s%s%s:%d/  teacher token: %s\n", v6 ? "[" : "", o->bind, v6 ? "]" : "", port,
	       bs_teacher(b->db));
	fflush(stdout);
	wait_stop();
	fprintf(stderr, "board: stopping (a verification in flight is finished first)\n");
	pthread_mutex_lock(&b->mu);
	b->stopping = 1;
	pthread_cond_broadcast(&b->events);
	pthread_mutex_unlock(&b->mu);
	bserve_stop(srv);
	bqueue_stop(b, threads);
	return 0;
}

int board_main(const char *exe, int argc, char **argv)
{
	board b;
	memset(&b, 0, sizeof b);
	bopts o = { .port = 8470, .bind = "127.0.0.1", .db = "board.db", .exdir = "sessions/exercises", .jobs = 1 };
	b.per_minute = 6;
	b.body_max = 256 * 1024;
	b.grace_s = 30;
	b.sse_max = 128;
	if (parse(argc, argv, &o, &b) != 0)
		return 2;
	b.slurm = o.slurm;
	if (queues(&o, &b) != 0)
		return 2;
	char real[PATH_MAX];
	if (!realpath(o.exdir, real)) {
		fprintf(stderr, "cuplay: cannot read the exercises' folder '%s': %s\n", o.exdir, strerror(errno));
		return 1;
	}
	b.exdir = xstrdup(real);
	const char *verify = getenv("CUPLAY_BOARD_VERIFY");
	b.cuplay = xstrdup(verify && *verify ? verify : exe);
	char *err = NULL;
	int rc = 1;
	signal(SIGPIPE, SIG_IGN);
	if (pipe2(stop_pipe, O_CLOEXEC) != 0) {
		fprintf(stderr, "cuplay: cannot make a pipe: %s\n", strerror(errno));
	} else if (bs_open(o.db, &b.db, &err) != 0) {
		fprintf(stderr, "cuplay: %s\n", err);
		free(err);
	} else if (exercises(&b) == 0) {
		int again = bs_requeue(b.db);
		if (again > 0)
			fprintf(stderr, "board: %d submission%s in flight when the board stopped queued again\n", again,
			        again == 1 ? "" : "s");
		pthread_mutex_init(&b.mu, NULL);
		pthread_cond_init(&b.work, NULL);
		pthread_cond_init(&b.events, NULL);
		rc = serve(&b, &o);
		pthread_cond_destroy(&b.work);
		pthread_cond_destroy(&b.events);
		pthread_mutex_destroy(&b.mu);
	}
	bs_close(b.db);
	for (int i = 0; i < 2; i++)
		if (stop_pipe[i] >= 0)
			close(stop_pipe[i]);
	free(b.exdir);
	free(b.cuplay);
	free(b.ex);
	return rc;
}

#else /* built without the board's libraries */

int board_main(const char *exe, int argc, char **argv)
{
	(void)exe; (void)argc; (void)argv;
	fprintf(stderr, "cuplay: --board needs %s, absent when cuplay was built\n", BOARD_MISSING);
	return 2;
}

#endif
