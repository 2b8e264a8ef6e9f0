/* submit.c: the loaded kernel file sent to a class board, its result
 * followed and shown (submit.h). */
#include "submit.h"
#include "json.h"
#include "jtree.h"
#include "spec_find.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef HAVE_CURL
#include <curl/curl.h>
#endif

/* the board's URL and token: set, else from the environment */
static const char *board_url(const app *a)
{
	const char *e = getenv("CUPLAY_BOARD");
	return a->board_url ? a->board_url : e && *e ? e : NULL;
}

static const char *board_token(const app *a)
{
	const char *e = getenv("CUPLAY_TOKEN");
	return a->board_token ? a->board_token : e && *e ? e : NULL;
}

int app_board(app *a, const char *url)
{
	if (!url) {
		const char *u = board_url(a);
		if (u)
			app_note(a, "board %s%s", u, a->board_url ? "" : " (from CUPLAY_BOARD)");
		else
			app_note(a, "board: none set ('board http://HOST:PORT/' or CUPLAY_BOARD)");
		return 0;
	}
	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
		return app_error(a, "board: '%s' is not an http:// or https:// URL", url);
	for (const char *p = url; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return app_error(a, "board: a URL has no blanks or control characters");
	free(a->board_url);
	a->board_url = xstrdup(url);
	size_t n = strlen(a->board_url);
	while (n > 8 && a->board_url[n - 1] == '/') /* the API's paths begin with '/' */
		a->board_url[--n] = 0;
	return 0;
}

int app_token(app *a, const char *token)
{
	if (!token) {
		const char *t = board_token(a);
		app_note(a, "token: %s", !t ? "none set ('token T' or CUPLAY_TOKEN)"
		                         : a->board_token ? "set (not shown)" : "from CUPLAY_TOKEN (not shown)");
		return 0;
	}
	for (const char *p = token; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '"')
			return app_error(a, "token: a token has no blanks, quotes or control characters");
	free(a->board_token);
	a->board_token = xstrdup(token);
	return 0;
}

#ifndef HAVE_CURL

int submit_available(void)
{
	return 0;
}

int app_submit(app *a, const char *kernel, const char *exercise)
{
	return app_error(a, "submit: this cuplay was built without libcurl (install its headers, e.g. "
	                 "libcurl4-openssl-dev, and run make again)");
}

#else

int submit_available(void)
{
	return 1;
}

typedef struct reply {
	long code;
	sbuf body;
} reply;

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
	reply *r = ctx;
	if (r->body.len + size * n > (size_t)16 << 20)
		return 0; /* a reply over 16 MiB: not the board's */
	sb_add(&r->body, p, size * n);
	return size * n;
}

static int on_progress(void *ctx, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	return g_interrupt ? 1 : 0;
}

/* METHOD url+path (body: JSON, or NULL), with the token: 0 with *r (its
 * status and body), or -1 with *err. */
static int http(app *a, const char *method, const char *path, const char *body, reply *r, char **err)
{
	static int inited;
	if (!inited) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return fail(err, "libcurl cannot start");
		inited = 1;
	}
	memset(r, 0, sizeof *r);
	CURL *c = curl_easy_init();
	if (!c)
		return fail(err, "libcurl cannot start");
	char *url = xasprintf("%s%s", board_url(a), path);
	char *auth = xasprintf("Authorization: Bearer %s", board_token(a));
	struct curl_slist *h = curl_slist_append(NULL, auth);
	struct curl_slist *h2 = h ? curl_slist_append(h, "Content-Type: application/json") : NULL;
	CURLcode e = h2 ? CURLE_OK : CURLE_OUT_OF_MEMORY;
	h = h2 ? h2 : h;
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_URL, url);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (e == CURLE_OK && body)
		e = curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
	if (e == CURLE_OK)
		e = curl_easy_perform(c);
	if (e == CURLE_OK)
		e = curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->code);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	free(auth);
	int rc = 0;
	if (e != CURLE_OK) {
		rc = fail(err, "%s %s: %s", method, url,
		          e == CURLE_ABORTED_BY_CALLBACK ? "interrupted" : curl_easy_strerror(e));
		sb_free(&r->body);
	}
	free(url);
	return rc;
}

/* A reply's JSON: 0 with *t, or -1 said (an error reply's message; a body
 * that is no JSON). want: the status expected. */
static int reply_json(app *a, const char *what, reply *r, long want, jt *t)
{
	char *err = NULL;
	int bad = jt_parse(r->body.s ? r->body.s : "", r->body.len, t, &err) != 0;
	if (r->code != want) {
		const char *msg = bad ? NULL : jt_str(t, "error", NULL);
		char *shown = msg ? str_excerpt(msg, 300) : str_excerpt(r->body.s ? r->body.s : "", 120);
		app_error(a, "submit: %s: the board answered %ld: %s", what, r->code, shown);
		free(shown);
		if (!bad)
			jt_free(t);
		bad = 1;
	} else if (bad) {
		app_error(a, "submit: %s: the board's reply is %s", what, err);
	}
	free(err);
	sb_free(&r->body);
	return bad ? -1 : 0;
}

/* The exercise to send to: named, or the one open exercise of the board
 * whose kernel (where the board lists it) is kernel (NULL: one the file
 * defines). A name into out; 0, or -1 said. */
static int pick_exercise(app *a, const char *kernel, const char *named, char *out, size_t len)
{
	reply r;
	char *err = NULL;
	if (http(a, "GET", "/api/exercises", NULL, &r, &err) != 0) {
		app_error(a, "submit: %s", err);
		free(err);
		return -1;
	}
	jt t;
	if (reply_json(a, "the exercises", &r, 200, &t) != 0)
		return -1;
	sbuf open = {0};
	int n = 0, found = 0;
	for (int i = 0; t.kind == JT_ARR && i < t.n; i++) {
		const jt *e = &t.v[i];
		const char *name = jt_str(e, "name", NULL), *k = jt_str(e, "kernel", NULL);
		if (!name || jt_num(e, "open", 0) == 0)
			continue;
		sb_printf(&open, "%s%s", open.len ? ", " : "", name);
		if (named) {
			found |= strcmp(name, named) == 0;
			continue;
		}
		if (k && (kernel ? strcmp(k, kernel) != 0 : spec_kernel_find(a->file.sp, k) < 0))
			continue;
		if (n++ == 0)
			snprintf(out, len, "%s", name);
	}
	jt_free(&t);
	int rc = -1;
	if (named && found) {
		snprintf(out, len, "%s", named);
		rc = 0;
	} else if (named) {
		app_error(a, "submit: the board has no open exercise '%s' (open: %s)", named, open.len ? open.s : "none");
	} else if (n == 1) {
		rc = 0;
	} else if (n == 0) {
		app_error(a, "submit: no open exercise on the board for %s%s%s (open: %s)", kernel ? "kernel '" : "this file",
		          kernel ? kernel : "", kernel ? "'" : "", open.len ? open.s : "none");
	} else {
		app_error(a, "submit: several open exercises (%s): name one, 'submit KERNEL EXERCISE'", open.s);
	}
	sb_free(&open);
	return rc;
}

/* the figures of a result, a line */
static void show_result(app *a, long id, const jt *sub)
{
	const jt *res = jt_get(sub, "result");
	const char *status = jt_str(res, "status", "?");
	app_note(a, "submit: #%ld %s: %s", id, jt_str(sub, "exercise", "?"), status);
	const jt *checks = jt_get(res, "checks");
	int nck = checks && checks->kind == JT_ARR ? checks->n : 0, first_bad = -1;
	for (int i = 0; i < nck && first_bad < 0; i++)
		if (jt_num(&checks->v[i], "ok", 0) == 0)
			first_bad = i;
	if (first_bad >= 0)
		app_note(a, "  check failed: %s: %s", jt_str(&checks->v[first_bad], "name", "?"),
		         jt_str(&checks->v[first_bad], "detail", "?"));
	else if (strcmp(status, "ok") == 0)
		app_note(a, "  check ok (%d checks)", nck);
	if (strcmp(status, "ok") != 0)
		app_note(a, "  %s", jt_str(res, "reason", ""));
	double med = jt_num(res, "median_ms", NAN), lo = jt_num(res, "lo_ms", NAN), hi = jt_num(res, "hi_ms", NAN);
	double base = jt_num(res, "baseline_ms", NAN), sp = jt_num(res, "speedup", NAN), rank = jt_num(sub, "rank", NAN);
	if (isfinite(med)) {
		sbuf b = {0};
		sb_printf(&b, "  median %.4g ms", med);
		if (isfinite(lo) && isfinite(hi))
			sb_printf(&b, " (95%%: %.4g to %.4g)", lo, hi);
		if (isfinite(base))
			sb_printf(&b, ", baseline %.4g ms", base);
		if (isfinite(sp))
			sb_printf(&b, ", speedup %.2fx", sp);
		const jt *best = jt_get(sub, "best");
		double best_rank = best ? jt_num(best, "rank", NAN) : NAN, best_id = best ? jt_num(best, "id", NAN) : NAN;
		if (isfinite(rank))
			sb_printf(&b, ", rank %.0f", rank);
		else if (isfinite(best_rank) && isfinite(best_id)) /* ranked by an earlier, better one */
			sb_printf(&b, ", not your best: your #%.0f is rank %.0f", best_id, best_rank);
		sb_printf(&b, " on %s", jt_str(res, "gpu", "?"));
		app_note(a, "%s", b.s);
		sb_free(&b);
	}
}

/* Polls submission id every 250 ms until done (shown) or Ctrl-C. */
static int follow(app *a, long id)
{
	char path[64], last[96] = "";
	snprintf(path, sizeof path, "/api/submissions/%ld", id);
	for (;;) {
		reply r;
		char *err = NULL;
		if (g_interrupt || http(a, "GET", path, NULL, &r, &err) != 0) {
			free(err);
			if (a->opt.interactive)
				fprintf(stderr, "\r\033[K");
			app_note(a, "submit: interrupted; submission #%ld goes on at the board", id);
			return -1;
		}
		jt t;
		if (reply_json(a, "the submission", &r, 200, &t) != 0)
			return -1;
		const char *state = jt_str(&t, "state", "?");
		if (strcmp(state, "done") == 0) {
			if (a->opt.interactive)
				fprintf(stderr, "\r\033[K");
			show_result(a, id, &t);
			const char *st = jt_str(jt_get(&t, "result"), "status", "?");
			int ok = strcmp(st, "ok") == 0 || strcmp(st, "needs_gpu") == 0;
			jt_free(&t);
			return ok ? 0 : -1;
		}
		char now[96];
		if (strcmp(state, "queued") == 0)
			snprintf(now, sizeof now, "submit: #%ld queued, position %.0f", id, jt_num(&t, "position", 0));
		else
			snprintf(now, sizeof now, "submit: #%ld %s", id, state);
		jt_free(&t);
		if (strcmp(now, last) != 0)
			app_progress(a, "%s", now);
		snprintf(last, sizeof last, "%s", now);
		struct timespec ts = { 0, 250 * 1000 * 1000 };
		nanosleep(&ts, NULL); /* Ctrl-C ends it early */
	}
}

int app_submit(app *a, const char *kernel, const char *exercise)
{
	if (!board_url(a))
		return app_error(a, "submit: no board: 'board http://HOST:PORT/' (or CUPLAY_BOARD) names it");
	if (!board_token(a))
		return app_error(a, "submit: no token: 'token T' (or CUPLAY_TOKEN) gives the one the teacher issued");
	if (kernel && spec_kernel_find(a->file.sp, kernel) < 0)
		return app_error(a, "submit: %s defines no kernel '%s'", a->file.path, kernel);
	char name[128];
	if (pick_exercise(a, kernel, exercise, name, sizeof name) != 0)
		return -1;
	const char *base = strrchr(a->file.path, '/');
	sbuf body = {0};
	sb_puts(&body, "{\"exercise\":");
	json_str(&body, name);
	sb_puts(&body, ",\"source\":");
	json_str(&body, a->file.sp->src);
	sb_puts(&body, ",\"file\":");
	json_str(&body, base ? base + 1 : a->file.path);
	sb_puts(&body, "}");
	reply r;
	char *err = NULL;
	int rc = http(a, "POST", "/api/submissions", body.s, &r, &err);
	sb_free(&body);
	if (rc != 0) {
		app_error(a, "submit: %s", err);
		free(err);
		return -1;
	}
	jt t;
	if (reply_json(a, "sending", &r, 202, &t) != 0)
		return -1;
	long id = (long)jt_num(&t, "id", -1);
	app_progress(a, "submit: #%ld to '%s': queued, position %.0f", id, name, jt_num(&t, "position", 0));
	jt_free(&t);
	if (id < 0)
		return app_error(a, "submit: the board's reply has no submission id");
	return follow(a, id);
}

#endif
