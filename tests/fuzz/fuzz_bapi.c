/* fuzz_bapi.c: the class board's request handler (board/bapi.h) over an
 * in-memory database: an input is the token it carries (its first byte: none,
 * the teacher's, a student's, or the next line's text), a request line
 * "METHOD URL" and a body. Every request gets an answer of a known status
 * with a body; JSON answers are a JSON object or array; the database never
 * fails. No verification runs (no queue threads): a submission stays queued. */
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef BOARD_MISSING
#include "bapi.h"
#include "board_types.h"
#include "bstore.h"

static board g_board;
static char g_student[33];

static void init(void)
{
	char *err = NULL;
	if (bs_open(":memory:", &g_board.db, &err) != 0)
		abort();
	g_board.per_minute = 6;
	g_board.body_max = 256 * 1024;
	g_board.ex = xcalloc(1, sizeof *g_board.ex);
	g_board.nex = 1;
	strcpy(g_board.ex[0].name, "transpose");
	strcpy(g_board.ex[0].title, "Transpose");
	pthread_mutex_init(&g_board.mu, NULL);
	pthread_cond_init(&g_board.work, NULL);
	pthread_cond_init(&g_board.events, NULL);
	if (bs_exercise_add(g_board.db, "transpose") != 0 || bs_token(g_student) != 0 ||
	    bs_student_add(g_board.db, "ada", g_student) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!g_board.db)
		init();
	if (size < 1)
		return 0;
	int who = data[0] & 3;
	const char *p = (const char *)data + 1, *end = (const char *)data + size;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	char *auth = NULL;
	if (who == 1)
		auth = xasprintf("Bearer %s", bs_teacher(g_board.db));
	else if (who == 2)
		auth = xasprintf("Bearer %s", g_student);
	else if (who == 3 && nl) {
		auth = xstrndup(p, (size_t)(nl - p));
		p = nl + 1;
		nl = memchr(p, '\n', (size_t)(end - p));
	}
	char *line = xstrndup(p, nl ? (size_t)(nl - p) : (size_t)(end - p));
	const char *body = nl ? nl + 1 : end;
	char *sp = strchr(line, ' ');
	const char *method = line, *url = "/";
	if (sp) {
		*sp = 0;
		url = sp + 1;
	}
	bresp r;
	bapi_handle(&g_board, method, url, auth, body, (size_t)(end - body), &r);
	static const int known[] = { 200, 201, 202, 400, 401, 403, 404, 409, 429 };
	int ok = 0;
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		ok |= r.status == known[i];
	if (!ok || !r.body || !r.type || strlen(r.body) != r.len)
		abort();
	if (strncmp(r.type, "application/json", 16) == 0 && r.body[0] != '{' && r.body[0] != '[')
		abort();
	free(r.body);
	free(line);
	free(auth);
	return 0;
}

#else /* built without the board's libraries */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)data;
	(void)size;
	return 0;
}

#endif
