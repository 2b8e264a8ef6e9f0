/* bapi.c: the board's routes (bapi.h). */
#include "bapi.h"
#include "bpage.h"
#include "json.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* who sent a request */
enum who { NOBODY, BAD_TOKEN, STUDENT, TEACHER };

typedef struct req {
	board *b;
	const char *method, *path;
	const char *body;
	size_t len;
	enum who who;
	char *student; /* a student's name, malloc'd */
} req;

static void respond(bresp *r, int status, sbuf *json)
{
	r->status = status;
	r->type = "application/json";
	r->len = json->len;
	r->body = sb_steal(json);
}

void bapi_error(bresp *r, int status, const char *msg)
{
	sbuf j = {0};
	sb_puts(&j, "{\"error\":");
	json_str(&j, msg);
	sb_puts(&j, "}\n");
	respond(r, status, &j);
}

static void num(sbuf *j, double v)
{
	if (isfinite(v))
		sb_printf(j, "%.6g", v);
	else
		sb_puts(j, "null");
}

int bapi_exercise_name_ok(const char *s, size_t n)
{
	if (n == 0 || n > BOARD_NAME_MAX || s[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!is_ident_char((unsigned char)s[i]) && s[i] != '-' && s[i] != '.')
			return 0;
	return 1;
}

/* A student's name: 1 to BOARD_NAME_MAX bytes, no control characters. */
static int student_name_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > BOARD_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return 1;
}

/* The token of "Bearer TOKEN": who it is. */
static enum who identify(board *b, const char *auth, char **student)
{
	*student = NULL;
	if (!auth || !*auth)
		return NOBODY;
	if (strncasecmp(auth, "Bearer ", 7) != 0)
		return BAD_TOKEN;
	const char *t = auth + 7;
	while (*t == ' ')
		t++;
	const char *teacher = bs_teacher(b->db);
	size_t lt = strlen(t), lr = strlen(teacher);
	unsigned char d = lt != lr;
	for (size_t i = 0; i < lr; i++)
		d |= (unsigned char)(teacher[i] ^ t[i < lt ? i : 0]);
	if (d == 0 && lt)
		return TEACHER;
	*student = lt ? bs_student_of(b->db, t) : NULL;
	return *student ? STUDENT : BAD_TOKEN;
}

/* 1 when the request may go on; else the 401 or 403 is in *r. */
static int need(const req *q, enum who w, bresp *r)
{
	if (q->who == NOBODY || q->who == BAD_TOKEN) {
		bapi_error(r, 401, q->who == NOBODY ? "no token: send 'Authorization: Bearer TOKEN'" : "the token is not known");
		return 0;
	}
	if (q->who != w) {
		bapi_error(r, 403, w == TEACHER ? "only the teacher's token may do this" : "only a student's token may do this");
		return 0;
	}
	return 1;
}

/* The body as one JSON object: 0 with its fields, or -1 with the 400 in *r. */
static int body_object(const req *q, jfield **f, int *n, bresp *r)
{
	if (memchr(q->body, 0, q->len)) {
		bapi_error(r, 400, "the body holds a NUL byte");
		return -1;
	}
	char *text = xstrndup(q->body ? q->body : "", q->len);
	char *err = NULL;
	int rc = json_object(text, f, n, &err);
	free(text);
	if (rc != 0) {
		bapi_error(r, 400, err);
		free(err);
	}
	return rc;
}

static void add_student(req *q, bresp *r)
{
	jfield *f;
	int n;
	if (!need(q, TEACHER, r) || body_object(q, &f, &n, r) != 0)
		return;
	const char *name = jfield_str(f, n, "name", NULL);
	char token[33];
	int rc;
	if (!name || !student_name_ok(name))
		bapi_error(r, 400, "a student needs a \"name\": 1 to 64 bytes, no control characters");
	else if (bs_token(token) != 0)
		bapi_error(r, 500, "no random bytes for a token");
	else if ((rc = bs_student_add(q->b->db, name, token)) != 0)
		bapi_error(r, rc == 1 ? 409 : 500, rc == 1 ? "a student of that name exists" : "the database failed");
	else {
		sbuf j = {0};
		sb_puts(&j, "{\"name\":");
		json_str(&j, name);
		sb_printf(&j, ",\"token\":\"%s\"}\n", token);
		respond(r, 201, &j);
	}
	jfields_free(f, n);
}

/* The exercise the board found of that name, or NULL. */
static const bexercise *find_exercise(const board *b, const char *name)
{
	for (int i = 0; i < b->nex; i++)
		if (strcmp(b->ex[i].name, name) == 0)
			return &b->ex[i];
	return NULL;
}

static void list_exercises(req *q, bresp *r)
{
	char **names;
	int *open, n;
	if (bs_exercises(q->b->db, &names, &open, &n) != 0) {
		bapi_error(r, 500, "the database failed");
		return;
	}
	sbuf j = {0};
	sb_puts(&j, "[");
	for (int i = 0; i < n; i++) {
		sb_puts(&j, i ? ",{\"name\":" : "{\"name\":");
		json_str(&j, names[i]);
		const bexercise *e = find_exercise(q->b, names[i]);
		sb_puts(&j, ",\"title\":");
		json_str(&j, e ? e->title : names[i]);
		sb_printf(&j, ",\"open\":%s}", open[i] ? "true" : "false");
		free(names[i]);
	}
	sb_puts(&j, "]\n");
	free(names);
	free(open);
	respond(r, 200, &j);
}

/* POST /api/exercises/NAME/open|close */
static void set_exercise(req *q, const char *rest, bresp *r)
{
	const char *slash = strchr(rest, '/');
	if (!slash || (strcmp(slash, "/open") != 0 && strcmp(slash, "/close") != 0) ||
	    !bapi_exercise_name_ok(rest, (size_t)(slash - rest))) {
		bapi_error(r, 404, "no such route: try /api/exercises/NAME/open or /close");
		return;
	}
	if (!need(q, TEACHER, r))
		return;
	char *name = xstrndup(rest, (size_t)(slash - rest));
	int open = strcmp(slash, "/open") == 0;
	if (bs_exercise_set(q->b->db, name, open) != 0) {
		bapi_error(r, 404, "no such exercise");
	} else {
		sbuf j = {0};
		sb_puts(&j, "{\"name\":");
		json_str(&j, name);
		sb_printf(&j, ",\"open\":%s}\n", open ? "true" : "false");
		respond(r, 200, &j);
	}
	free(name);
}

static void submit(req *q, bresp *r)
{
	jfield *f;
	int n;
	if (!need(q, STUDENT, r) || body_object(q, &f, &n, r) != 0)
		return;
	const char *ex = jfield_str(f, n, "exercise", NULL), *src = jfield_str(f, n, "source", NULL);
	const char *file = jfield_str(f, n, "file", "submission.cu");
	int state = ex && find_exercise(q->b, ex) ? bs_exercise_state(q->b->db, ex) : -1;
	unsigned long long seed = 0;
	int pos = 0;
	long long id;
	if (!ex || !src)
		bapi_error(r, 400, "a submission needs \"exercise\" and \"source\" strings");
	else if (strlen(file) > 255 || !*file)
		bapi_error(r, 400, "\"file\" is 1 to 255 bytes");
	else if (state < 0)
		bapi_error(r, 404, "no such exercise");
	else if (state == 0)
		bapi_error(r, 409, "the exercise is closed");
	else if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
		bapi_error(r, 500, "no random bytes for a seed");
	else if ((id = bs_submit(q->b->db, q->student, ex, file, src, seed, q->b->per_minute, &pos)) == 0)
		bapi_error(r, 429, "too many submissions: wait a minute");
	else if (id < 0)
		bapi_error(r, 500, "the database failed");
	else {
		pthread_mutex_lock(&q->b->mu);
		pthread_cond_broadcast(&q->b->work);
		pthread_mutex_unlock(&q->b->mu);
		sbuf j = {0};
		sb_printf(&j, "{\"id\":%lld,\"state\":\"queued\",\"position\":%d}\n", id, pos);
		respond(r, 202, &j);
	}
	jfields_free(f, n);
}

/* The rank of submission id in its exercise's ranking, or 0; and the rank
 * and id of its student's entry there (their best), or 0. */
static int rank_of(board *b, const char *exercise, long long id, const char *student, int *best_rank,
                   long long *best_id)
{
	brank *rows;
	int n, rank = 0;
	*best_rank = 0;
	*best_id = 0;
	if (bs_ranking(b->db, exercise, &rows, &n) != 0)
		return 0;
	for (int i = 0; i < n; i++) {
		if (rows[i].id == id)
			rank = rows[i].rank;
		if (rows[i].student && strcmp(rows[i].student, student) == 0 && !*best_rank) {
			*best_rank = rows[i].rank;
			*best_id = rows[i].id;
		}
	}
	branks_free(rows, n);
	return rank;
}

static void get_submission(req *q, const char *num_txt, bresp *r)
{
	char *end;
	errno = 0;
	long long id = strtoll(num_txt, &end, 10);
	if (*end || end == num_txt || errno || id <= 0) {
		bapi_error(r, 404, "no such submission");
		return;
	}
	if (q->who != TEACHER && !need(q, STUDENT, r))
		return;
	bsub s;
	int pos, got = bs_get(q->b->db, id, &s, &pos);
	if (got != 1) {
		bapi_error(r, got == 0 ? 404 : 500, got == 0 ? "no such submission" : "the database failed");
		return;
	}
	if (q->who == STUDENT && strcmp(s.student, q->student) != 0) {
		bapi_error(r, 403, "the submission is another student's");
		bsub_free(&s);
		return;
	}
	sbuf j = {0};
	sb_printf(&j, "{\"id\":%lld,\"student\":", s.id);
	json_str(&j, s.student);
	sb_puts(&j, ",\"exercise\":");
	json_str(&j, s.exercise);
	sb_puts(&j, ",\"file\":");
	json_str(&j, s.file);
	sb_puts(&j, ",\"state\":");
	json_str(&j, s.state);
	sb_printf(&j, ",\"position\":%d,\"result\":%s", pos, s.result ? s.result : "null");
	int best_rank = 0;
	long long best_id = 0;
	int rank = s.result ? rank_of(q->b, s.exercise, s.id, s.student, &best_rank, &best_id) : 0;
	if (rank)
		sb_printf(&j, ",\"rank\":%d", rank);
	else
		sb_puts(&j, ",\"rank\":null");
	/* the student's entry in the ranking: this submission or a better one */
	if (best_rank)
		sb_printf(&j, ",\"best\":{\"id\":%lld,\"rank\":%d}", best_id, best_rank);
	else
		sb_puts(&j, ",\"best\":null");
	sb_printf(&j, ",\"created\":%lld,\"finished\":", s.created);
	if (s.finished)
		sb_printf(&j, "%lld}\n", s.finished);
	else
		sb_puts(&j, "null}\n");
	bsub_free(&s);
	respond(r, 200, &j);
}

static void ranking(req *q, const char *name, bresp *r)
{
	brank *rows;
	int n;
	if (!bapi_exercise_name_ok(name, strlen(name)) || bs_exercise_state(q->b->db, name) < 0) {
		bapi_error(r, 404, "no such exercise");
		return;
	}
	if (bs_ranking(q->b->db, name, &rows, &n) != 0) {
		bapi_error(r, 500, "the database failed");
		return;
	}
	sbuf j = {0};
	sb_puts(&j, "[");
	for (int i = 0; i < n; i++) {
		sb_printf(&j, "%s{\"rank\":%d,\"student\":", i ? "," : "", rows[i].rank);
		json_str(&j, rows[i].student);
		sb_puts(&j, ",\"median_ms\":");
		num(&j, rows[i].median_ms);
		sb_puts(&j, ",\"speedup\":");
		num(&j, rows[i].speedup);
		sb_puts(&j, ",\"rank_by\":");
		json_str(&j, rows[i].rank_by);
		sb_puts(&j, ",\"gpu\":");
		json_str(&j, rows[i].gpu);
		sb_puts(&j, ",\"host\":");
		json_str(&j, rows[i].host);
		sb_printf(&j, ",\"id\":%lld}", rows[i].id);
	}
	sb_puts(&j, "]\n");
	branks_free(rows, n);
	respond(r, 200, &j);
}

static void health(req *q, bresp *r)
{
	long long c[3];
	if (bs_counts(q->b->db, c) != 0) {
		bapi_error(r, 500, "the database failed");
		return;
	}
	sbuf j = {0};
	sb_printf(&j, "{\"ok\":true,\"queued\":%lld,\"running\":%lld,\"done\":%lld}\n", c[0], c[1], c[2]);
	respond(r, 200, &j);
}

static void page(req *q, bresp *r)
{
	sbuf h = {0};
	if (bpage_render(q->b, &h) != 0) {
		sb_free(&h);
		bapi_error(r, 500, "the database failed");
		return;
	}
	r->status = 200;
	r->type = "text/html; charset=utf-8";
	r->len = h.len;
	r->body = sb_steal(&h);
}

static int is(const req *q, const char *method, const char *path)
{
	return strcmp(q->method, method) == 0 && strcmp(q->path, path) == 0;
}

/* path starts with prefix: what follows, or NULL */
static const char *under(const req *q, const char *method, const char *prefix)
{
	size_t n = strlen(prefix);
	return strcmp(q->method, method) == 0 && strncmp(q->path, prefix, n) == 0 ? q->path + n : NULL;
}

void bapi_handle(board *b, const char *method, const char *url, const char *auth, const char *body,
                 size_t len, bresp *r)
{
	req q = { .b = b, .method = method, .path = url, .body = body, .len = len };
	memset(r, 0, sizeof *r);
	q.who = identify(b, auth, &q.student);
	const char *rest;
	if (is(&q, "GET", "/"))
		page(&q, r);
	else if (is(&q, "GET", "/api/health"))
		health(&q, r);
	else if (is(&q, "GET", "/api/exercises"))
		list_exercises(&q, r);
	else if ((rest = under(&q, "POST", "/api/exercises/")))
		set_exercise(&q, rest, r);
	else if (is(&q, "POST", "/api/students"))
		add_student(&q, r);
	else if (is(&q, "POST", "/api/submissions"))
		submit(&q, r);
	else if ((rest = under(&q, "GET", "/api/submissions/")))
		get_submission(&q, rest, r);
	else if ((rest = under(&q, "GET", "/api/ranking/")))
		ranking(&q, rest, r);
	else
		bapi_error(r, 404, "no such route");
	free(q.student);
}
