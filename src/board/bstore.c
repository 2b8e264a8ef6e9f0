/* bstore.c: the board's database in SQLite (bstore.h). */
#ifndef BOARD_MISSING /* built without the board's libraries: board.c says so */
#include "bstore.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

struct bstore {
	sqlite3 *db;
	pthread_mutex_t mu;
	char teacher[33];
};

static const char *const SCHEMA =
	"CREATE TABLE IF NOT EXISTS settings(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS students(token TEXT PRIMARY KEY, name TEXT UNIQUE NOT NULL);"
	"CREATE TABLE IF NOT EXISTS exercises(name TEXT PRIMARY KEY, open INTEGER NOT NULL DEFAULT 1);"
	"CREATE TABLE IF NOT EXISTS submissions(id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" student TEXT NOT NULL, exercise TEXT NOT NULL, file TEXT NOT NULL, source TEXT NOT NULL,"
	" state TEXT NOT NULL, seed TEXT NOT NULL, result TEXT, gpu TEXT, host TEXT,"
	" created INTEGER NOT NULL, finished INTEGER, slot INTEGER,"
	" status TEXT, median_ms REAL, speedup REAL, rank_by TEXT);"
	"CREATE INDEX IF NOT EXISTS sub_state ON submissions(state, id);"
	"CREATE INDEX IF NOT EXISTS sub_student ON submissions(student, created);"
	"CREATE INDEX IF NOT EXISTS sub_exercise ON submissions(exercise, status);";

int bs_token(char out[33])
{
	unsigned char r[16];
	size_t got = 0;
	while (got < sizeof r) {
		ssize_t k = getrandom(r + got, sizeof r - got, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", r[i]);
	return 0;
}

static int exec_sql(bstore *s, const char *sql)
{
	return sqlite3_exec(s->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

static sqlite3_stmt *prep(bstore *s, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	return st;
}

static char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? xstrdup((const char *)t) : NULL;
}

/* The teacher's token: read, or made and stored. 0 or -1. */
static int teacher_token(bstore *s)
{
	sqlite3_stmt *st = prep(s, "SELECT value FROM settings WHERE key='teacher'");
	int rc = -1;
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		snprintf(s->teacher, sizeof s->teacher, "%s", (const char *)sqlite3_column_text(st, 0));
		rc = 0;
	}
	sqlite3_finalize(st);
	if (rc == 0)
		return 0;
	if (bs_token(s->teacher) != 0)
		return -1;
	st = prep(s, "INSERT INTO settings(key, value) VALUES('teacher', ?1)");
	if (st) {
		sqlite3_bind_text(st, 1, s->teacher, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	}
	sqlite3_finalize(st);
	return rc;
}

int bs_open(const char *path, bstore **out, char **err)
{
	bstore *s = xcalloc(1, sizeof *s);
	*out = NULL;
	int rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(s->db, 5000);
		if (exec_sql(s, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;") != 0 ||
		    exec_sql(s, SCHEMA) != 0 || teacher_token(s) != 0)
			rc = SQLITE_ERROR;
	}
	if (rc != SQLITE_OK) {
		*err = xasprintf("cannot open the database '%s': %s", path, s->db ? sqlite3_errmsg(s->db) : "out of memory");
		sqlite3_close(s->db);
		free(s);
		return -1;
	}
	pthread_mutex_init(&s->mu, NULL);
	*out = s;
	return 0;
}

void bs_close(bstore *s)
{
	if (!s)
		return;
	sqlite3_close(s->db);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

const char *bs_teacher(const bstore *s)
{
	return s->teacher;
}

int bs_requeue(bstore *s)
{
	pthread_mutex_lock(&s->mu);
	int n = exec_sql(s, "UPDATE submissions SET state='queued', slot=NULL WHERE state='running'") == 0
	        ? sqlite3_changes(s->db) : -1;
	pthread_mutex_unlock(&s->mu);
	return n;
}

/* One statement with text arguments (NULL for none): SQLite's step result. */
static int run1(bstore *s, const char *sql, const char *a, const char *b)
{
	sqlite3_stmt *st = prep(s, sql);
	if (!st)
		return SQLITE_ERROR;
	if (a)
		sqlite3_bind_text(st, 1, a, -1, SQLITE_TRANSIENT);
	if (b)
		sqlite3_bind_text(st, 2, b, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc;
}

int bs_exercise_add(bstore *s, const char *name)
{
	pthread_mutex_lock(&s->mu);
	int rc = run1(s, "INSERT OR IGNORE INTO exercises(name, open) VALUES(?1, 1)", name, NULL);
	pthread_mutex_unlock(&s->mu);
	return rc == SQLITE_DONE ? 0 : -1;
}

int bs_exercise_state(bstore *s, const char *name)
{
	pthread_mutex_lock(&s->mu);
	sqlite3_stmt *st = prep(s, "SELECT open FROM exercises WHERE name=?1");
	int r = -1;
	if (st) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			r = sqlite3_column_int(st, 0) != 0;
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->mu);
	return r;
}

int bs_exercise_set(bstore *s, const char *name, int open)
{
	pthread_mutex_lock(&s->mu);
	int rc = run1(s, open ? "UPDATE exercises SET open=1 WHERE name=?1" : "UPDATE exercises SET open=0 WHERE name=?1",
	              name, NULL);
	int n = rc == SQLITE_DONE ? sqlite3_changes(s->db) : 0;
	pthread_mutex_unlock(&s->mu);
	return n == 1 ? 0 : -1;
}

int bs_exercises(bstore *s, char ***names, int **open, int *n)
{
	*names = NULL;
	*open = NULL;
	*n = 0;
	pthread_mutex_lock(&s->mu);
	sqlite3_stmt *st = prep(s, "SELECT name, open FROM exercises ORDER BY name");
	int cap = 0;
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			*names = xrealloc(*names, (size_t)cap * sizeof **names);
			*open = xrealloc(*open, (size_t)cap * sizeof **open);
		}
		(*names)[*n] = col_str(st, 0);
		(*open)[*n] = sqlite3_column_int(st, 1);
		(*n)++;
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->mu);
	return st ? 0 : -1;
}

int bs_student_add(bstore *s, const char *name, const char *token)
{
	pthread_mutex_lock(&s->mu);
	int rc = run1(s, "INSERT INTO students(token, name) VALUES(?1, ?2)", token, name);
	pthread_mutex_unlock(&s->mu);
	return rc == SQLITE_DONE ? 0 : rc == SQLITE_CONSTRAINT ? 1 : -1;
}

/* a == b, in a time that does not depend on where they differ */
static int same_token(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;
	for (size_t i = 0; i < lb; i++)
		d |= (unsigned char)(a[i < la ? i : 0] ^ b[i]);
	return d == 0;
}

char *bs_student_of(bstore *s, const char *token)
{
	char *name = NULL;
	pthread_mutex_lock(&s->mu);
	sqlite3_stmt *st = prep(s, "SELECT token, name FROM students");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		if (t && same_token(token, t) && !name)
			name = col_str(st, 1);
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->mu);
	return name;
}

/* The number of queued submissions with an id up to id. */
static int position_of(bstore *s, long long id)
{
	sqlite3_stmt *st = prep(s, "SELECT count(*) FROM submissions WHERE state='queued' AND id<=?1");
	int n = 0;
	if (st) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	return n;
}

long long bs_submit(bstore *s, const char *student, const char *exercise, const char *file,
                    const char *source, unsigned long long seed, int per_minute, int *position)
{
	long long now = (long long)time(NULL), id = -1;
	char seedtxt[24];
	snprintf(seedtxt, sizeof seedtxt, "%llu", seed);
	pthread_mutex_lock(&s->mu);
	if (exec_sql(s, "BEGIN IMMEDIATE") != 0)
		goto out;
	sqlite3_stmt *st = prep(s, "SELECT count(*) FROM submissions WHERE student=?1 AND created>?2");
	int recent = 0;
	if (st) {
		sqlite3_bind_text(st, 1, student, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, now - 60);
		if (sqlite3_step(st) == SQLITE_ROW)
			recent = sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	if (per_minute > 0 && recent >= per_minute) {
		id = 0;
		exec_sql(s, "ROLLBACK");
		goto out;
	}
	st = prep(s, "INSERT INTO submissions(student, exercise, file, source, state, seed, created)"
	             " VALUES(?1, ?2, ?3, ?4, 'queued', ?5, ?6)");
	if (st) {
		sqlite3_bind_text(st, 1, student, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, exercise, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, file, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, source, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, seedtxt, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 6, now);
		if (sqlite3_step(st) == SQLITE_DONE)
			id = sqlite3_last_insert_rowid(s->db);
	}
	sqlite3_finalize(st);
	if (id > 0 && exec_sql(s, "COMMIT") == 0) {
		*position = position_of(s, id);
	} else {
		id = -1;
		exec_sql(s, "ROLLBACK");
	}
out:
	pthread_mutex_unlock(&s->mu);
	return id;
}

/* The row of SUB_COLS at st into *b. */
#define SUB_COLS "id, student, exercise, file, source, state, seed, result, gpu, host, created, finished, slot"
static void read_sub(sqlite3_stmt *st, bsub *b)
{
	memset(b, 0, sizeof *b);
	b->id = sqlite3_column_int64(st, 0);
	b->student = col_str(st, 1);
	b->exercise = col_str(st, 2);
	b->file = col_str(st, 3);
	b->source = col_str(st, 4);
	b->state = col_str(st, 5);
	const char *seed = (const char *)sqlite3_column_text(st, 6);
	b->seed = seed ? strtoull(seed, NULL, 10) : 0;
	b->result = col_str(st, 7);
	b->gpu = col_str(st, 8);
	b->host = col_str(st, 9);
	b->created = sqlite3_column_int64(st, 10);
	b->finished = sqlite3_column_int64(st, 11);
	b->slot = sqlite3_column_type(st, 12) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 12);
}

int bs_claim(bstore *s, int slot, bsub *out)
{
	int r = -1;
	pthread_mutex_lock(&s->mu);
	if (exec_sql(s, "BEGIN IMMEDIATE") != 0)
		goto out;
	sqlite3_stmt *st = prep(s, "SELECT " SUB_COLS " FROM submissions WHERE state='queued' ORDER BY id LIMIT 1");
	int step = st ? sqlite3_step(st) : SQLITE_ERROR;
	r = step == SQLITE_ROW ? 1 : step == SQLITE_DONE ? 0 : -1;
	if (r == 1)
		read_sub(st, out);
	sqlite3_finalize(st);
	if (r == 1) {
		st = prep(s, "UPDATE submissions SET state='running', slot=?1 WHERE id=?2");
		if (st) {
			sqlite3_bind_int(st, 1, slot);
			sqlite3_bind_int64(st, 2, out->id);
		}
		if (!st || sqlite3_step(st) != SQLITE_DONE) {
			bsub_free(out);
			r = -1;
		}
		sqlite3_finalize(st);
	}
	if (r == 1 && exec_sql(s, "COMMIT") != 0) {
		bsub_free(out);
		r = -1;
	}
	if (r != 1)
		exec_sql(s, "ROLLBACK");
	if (r == 1) {
		free(out->state);
		out->state = xstrdup("running");
		out->slot = slot;
	}
out:
	pthread_mutex_unlock(&s->mu);
	return r;
}

int bs_finish(bstore *s, long long id, const char *result, const char *status, double median_ms,
              double speedup, const char *rank_by, const char *gpu, const char *host)
{
	pthread_mutex_lock(&s->mu);
	sqlite3_stmt *st = prep(s, "UPDATE submissions SET state='done', result=?1, status=?2, median_ms=?3,"
	                           " speedup=?4, rank_by=?5, gpu=?6, host=?7, finished=?8 WHERE id=?9");
	int rc = -1;
	if (st) {
		sqlite3_bind_text(st, 1, result, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, status, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 3, median_ms);
		sqlite3_bind_double(st, 4, speedup);
		sqlite3_bind_text(st, 5, rank_by, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, gpu, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, host, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 8, (long long)time(NULL));
		sqlite3_bind_int64(st, 9, id);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->mu);
	return rc;
}

int bs_get(bstore *s, long long id, bsub *out, int *position)
{
	pthread_mutex_lock(&s->mu);
	sqlite3_stmt *st = prep(s, "SELECT " SUB_COLS " FROM submissions WHERE id=?1");
	int r = -1;
	if (st) {
		sqlite3_bind_int64(st, 1, id);
		int step = sqlite3_step(st);
		r = step == SQLITE_ROW ? 1 : step == SQLITE_DONE ? 0 : -1;
		if (r == 1)
			read_sub(st, out);
	}
	sqlite3_finalize(st);
	*position = r == 1 && strcmp(out->state, "queued") == 0 ? position_of(s, id) : 0;
	pthread_mutex_unlock(&s->mu);
	return r;
}

void bsub_free(bsub *b)
{
	free(b->student);
	free(b->exercise);
	free(b->file);
	free(b->source);
	free(b->state);
	free(b->result);
	free(b->gpu);
	free(b->host);
	memset(b, 0, sizeof *b);
}

int bs_counts(bstore *s, long long c[3])
{
	static const char *const states[3] = { "queued", "running", "done" };
	pthread_mutex_lock(&s->mu);
	sqlite3_stmt *st = prep(s, "SELECT count(*) FROM submissions WHERE state=?1");
	for (int i = 0; i < 3; i++) {
		c[i] = 0;
		if (!st)
			continue;
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, states[i], -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			c[i] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->mu);
	return st ? 0 : -1;
}

/* the figure ranked, smaller first */
static double rank_key(const brank *r)
{
	return strcmp(r->rank_by, "speedup") == 0 ? -r->speedup : r->median_ms;
}

/* qsort: by GPU kind, then the figure, then the earlier submission */
static int rank_cmp(const void *pa, const void *pb)
{
	const brank *a = pa, *b = pb;
	int c = strcmp(a->gpu, b->gpu);
	if (c)
		return c;
	double ka = rank_key(a), kb = rank_key(b);
	if (ka != kb)
		return ka < kb ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

int bs_ranking(bstore *s, const char *exercise, brank **rows, int *n)
{
	brank *r = NULL;
	int m = 0, cap = 0;
	pthread_mutex_lock(&s->mu);
	sqlite3_stmt *st = prep(s, "SELECT id, student, coalesce(gpu, ''), coalesce(host, ''), median_ms, speedup,"
	                           " coalesce(rank_by, 'median_ms') FROM submissions"
	                           " WHERE exercise=?1 AND state='done' AND status='ok'");
	if (st)
		sqlite3_bind_text(st, 1, exercise, -1, SQLITE_STATIC);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		if (m == cap) {
			cap = cap ? 2 * cap : 16;
			r = xrealloc(r, (size_t)cap * sizeof *r);
		}
		brank *x = &r[m++];
		memset(x, 0, sizeof *x);
		x->id = sqlite3_column_int64(st, 0);
		x->student = col_str(st, 1);
		x->gpu = col_str(st, 2);
		x->host = col_str(st, 3);
		x->median_ms = sqlite3_column_double(st, 4);
		x->speedup = sqlite3_column_double(st, 5);
		snprintf(x->rank_by, sizeof x->rank_by, "%s", (const char *)sqlite3_column_text(st, 6));
	}
	sqlite3_finalize(st);
	pthread_mutex_unlock(&s->mu);
	if (!st) {
		*rows = NULL;
		*n = 0;
		return -1;
	}
	qsort(r, (size_t)m, sizeof *r, rank_cmp);
	/* the best of each student on each GPU kind: the first seen */
	int k = 0, rank = 0;
	for (int i = 0; i < m; i++) {
		int seen = 0;
		for (int j = 0; j < k && !seen; j++)
			seen = strcmp(r[j].gpu, r[i].gpu) == 0 && strcmp(r[j].student, r[i].student) == 0;
		if (seen) {
			free(r[i].student);
			free(r[i].gpu);
			free(r[i].host);
			continue;
		}
		rank = k > 0 && strcmp(r[k - 1].gpu, r[i].gpu) == 0 ? rank + 1 : 1;
		r[k] = r[i];
		r[k++].rank = rank;
	}
	*rows = r;
	*n = k;
	return 0;
}

void branks_free(brank *r, int n)
{
	for (int i = 0; i < n; i++) {
		free(r[i].student);
		free(r[i].gpu);
		free(r[i].host);
	}
	free(r);
}

#endif
