/* serve.c: `cuplay --serve`, the machine protocol for front ends such as
 * the Jupyter kernel (docs/formats.md): one JSON object a line on stdin
 * (a request, with an id), one JSON object a line on stdout (what the
 * request produced, then its done marker). The commands run as at the
 * prompt, through the one command table; what they print to stdout and
 * stderr is caught in a pipe and sent on as text while they run; tables,
 * figures, errors and progress come through the app's display. */
#include "serve.h"
#include "cmds.h"
#include "complete.h"
#include "help.h"
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* The protocol's side of a session: the channel out, the pipe that
 * catches the commands' output, and the thread that reads it. */
typedef struct server {
	app *a;
	FILE *out;                /* the protocol's stdout */
	pthread_mutex_t lock;     /* one message at a time on out */
	int cap[2];               /* fd 1 and 2 write to cap[1] */
	int ctl[2];               /* "drain now" to the reader */
	pthread_mutex_t dm;
	pthread_cond_t dc;
	int drain_req, stop;
	sbuf pending;             /* caught output not yet sent: a line's start */
	char *id;                 /* the request being answered */
	uint64_t progress_ns;     /* when the last progress was sent */
	int err;                  /* stderr as it was, put back at the end */
} server;

/* Sends one message: {"id": ..., "type": TYPE, ...body} (body: the rest,
 * starting with a comma, or ""). */
static void send_msg(server *s, const char *type, const char *body)
{
	sbuf m = {0};
	sb_puts(&m, "{");
	if (s->id) {
		sb_puts(&m, "\"id\": ");
		json_str(&m, s->id);
		sb_puts(&m, ", ");
	}
	sb_puts(&m, "\"type\": ");
	json_str(&m, type);
	sb_puts(&m, body);
	sb_puts(&m, "}\n");
	pthread_mutex_lock(&s->lock);
	fputs(m.s, s->out);
	fflush(s->out);
	pthread_mutex_unlock(&s->lock);
	sb_free(&m);
}

static void send_text(server *s, const char *type, const char *text, size_t n)
{
	sbuf b = {0};
	sb_puts(&b, ", \"text\": ");
	json_strn(&b, text, n);
	send_msg(s, type, b.s);
	sb_free(&b);
}

/* What was caught, sent as text: whole lines, or everything (all). */
static void flush_pending(server *s, int all)
{
	size_t n = s->pending.len;
	if (!all)
		while (n > 0 && s->pending.s[n - 1] != '\n')
			n--;
	if (n == 0)
		return;
	send_text(s, "text", s->pending.s, n);
	memmove(s->pending.s, s->pending.s + n, s->pending.len - n + 1);
	s->pending.len -= n;
}

/* Reads what is in the pipe now (it does not block): 0, or -1 at its end. */
static int read_caught(server *s)
{
	char buf[4096];
	for (;;) {
		ssize_t r = read(s->cap[0], buf, sizeof buf);
		if (r > 0) {
			sb_add(&s->pending, buf, (size_t)r);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		return r == 0 ? -1 : 0;
	}
}

static void *reader(void *arg)
{
	server *s = arg;
	struct pollfd p[2] = { { s->cap[0], POLLIN, 0 }, { s->ctl[0], POLLIN, 0 } };
	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents) {
			int end = read_caught(s);
			flush_pending(s, 0);
			if (end)
				p[0].fd = -1;
		}
		if (p[1].revents) {
			char c;
			if (read(s->ctl[0], &c, 1) <= 0)
				break;
			read_caught(s);
			flush_pending(s, 1);
			pthread_mutex_lock(&s->dm);
			s->drain_req = 0;
			int stop = s->stop;
			pthread_cond_signal(&s->dc);
			pthread_mutex_unlock(&s->dm);
			if (stop)
				break;
		}
	}
	return NULL;
}

/* Everything the commands printed so far sent, before what comes next. */
static void drain(server *s)
{
	fflush(stdout);
	fflush(stderr);
	pthread_mutex_lock(&s->dm);
	s->drain_req = 1;
	while (write(s->ctl[1], "d", 1) < 0 && errno == EINTR)
		;
	while (s->drain_req)
		pthread_cond_wait(&s->dc, &s->dm);
	pthread_mutex_unlock(&s->dm);
}

/* ---- the app's display ---- */

static void display(server *s, const char *text, const char *mime, const char *rich)
{
	drain(s);
	sbuf b = {0};
	sb_puts(&b, ", \"data\": {\"text/plain\": ");
	json_str(&b, text ? text : "");
	if (rich) {
		sb_puts(&b, ", ");
		json_str(&b, mime);
		sb_puts(&b, ": ");
		json_str(&b, rich);
	}
	sb_puts(&b, "}");
	send_msg(s, "display", b.s);
	sb_free(&b);
}

static char *memprint(void (*fn)(const table *, FILE *, int), const table *t, int indent)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	if (!f)
		return NULL;
	fn(t, f, indent);
	fclose(f);
	return text;
}

static void text_of(const table *t, FILE *f, int indent)
{
	table_print(t, f, FMT_TABLE, 0, indent);
}

static void html_of(const table *t, FILE *f, int indent)
{
	(void)indent;
	table_html(t, f);
}

static void on_table(void *ctx, const table *t, int indent)
{
	char *text = memprint(text_of, t, indent), *html = memprint(html_of, t, indent);
	display(ctx, text, "text/html", html);
	free(text);
	free(html);
}

static void on_figure(void *ctx, const char *text, const char *svg)
{
	display(ctx, text, "image/svg+xml", svg);
}

/* PTX or SASS: the text, and as highlighted HTML */
static void on_code(void *ctx, const char *text, const char *lang)
{
	(void)lang;
	char *html = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&html, &n);
	if (f) {
		code_html(text, f);
		fclose(f);
	}
	display(ctx, text, "text/html", html);
	free(html);
}

static void on_error(void *ctx, const char *line)
{
	server *s = ctx;
	drain(s);
	send_text(s, "error", line, strlen(line));
}

static void on_progress(void *ctx, const char *text)
{
	server *s = ctx;
	uint64_t t = now_ns();
	if (t - s->progress_ns < 200000000ull) /* five a second at most */
		return;
	s->progress_ns = t;
	send_text(s, "progress", text, strlen(text));
}

/* ---- requests ---- */

static void done(server *s, const char *status, int failed)
{
	drain(s);
	sbuf b = {0};
	sb_puts(&b, ", \"status\": ");
	json_str(&b, status);
	sb_printf(&b, ", \"failed\": %d", failed);
	send_msg(s, "done", b.s);
	sb_free(&b);
}

/* "run": the lines of code, as a session named `name` (its errors say
 * name:line); without a name, as typed at the prompt (an error names what
 * it names itself: a kernel file's line). */
static void req_run(server *s, const char *code, const char *name)
{
	app *a = s->a;
	g_interrupt = 0;
	FILE *f = name && *name ? fmemopen((void *)code, strlen(code), "r") : NULL;
	int failed = 0;
	if (!name || !*name) {
		char *lines = xstrdup(code), *save = NULL;
		for (char *l = strtok_r(lines, "\n", &save); l && !a->quit && !g_interrupt; l = strtok_r(NULL, "\n", &save))
			failed += command_line(a, l);
		free(lines);
	} else if (!f) {
		app_error(a, "cannot read the request: %s", strerror(errno));
		failed = 1;
	} else {
		failed = source_stream(a, f, name);
		fclose(f);
	}
	const char *st = g_interrupt ? "interrupted" : failed ? "error" : "ok";
	g_interrupt = 0;
	done(s, st, failed);
}

static void req_complete(server *s, const char *code, long cursor)
{
	size_t start;
	char *cmd;
	if (cursor < 0 || (size_t)cursor > strlen(code))
		cursor = (long)strlen(code);
	complete_word_at(code, (size_t)cursor, &start, &cmd);
	int n;
	char **v = complete_candidates(s->a, cmd, &n);
	const char *word = code + start;
	size_t wl = (size_t)cursor - start;
	sbuf b = {0};
	sb_puts(&b, ", \"matches\": [");
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (strncmp(v[i], word, wl) == 0) {
			if (k++)
				sb_puts(&b, ", ");
			json_str(&b, v[i]);
		}
		free(v[i]);
	}
	free(v);
	sb_printf(&b, "], \"start\": %zu, \"end\": %ld", start, cursor);
	send_msg(s, "complete", b.s);
	sb_free(&b);
	free(cmd);
	done(s, "ok", 0);
}

/* "inspect": `help CMD` of the command (or topic) the cursor is in. */
static void req_inspect(server *s, const char *code, long cursor)
{
	if (cursor < 0 || (size_t)cursor > strlen(code))
		cursor = (long)strlen(code);
	size_t start;
	char *cmd;
	complete_word_at(code, (size_t)cursor, &start, &cmd);
	if (!cmd) /* the cursor is in the command word: the whole word */
		cmd = xstrndup(code + start, strcspn(code + start, " \t;\n"));
	const command *c = command_find(cmd);
	char *text = c ? help_command(c) : help_topic(cmd);
	sbuf b = {0};
	sb_printf(&b, ", \"found\": %s, \"text\": ", text ? "true" : "false");
	json_str(&b, text ? text : "");
	send_msg(s, "inspect", b.s);
	sb_free(&b);
	free(text);
	free(cmd);
	done(s, "ok", 0);
}

/* "summary": what a replay says at its end; an error where an expectation
 * failed or a command did, as the replay's exit status says. */
static void req_summary(server *s, const char *name)
{
	app *a = s->a;
	int h = a->expect_held, fl = a->expect_failed, sk = a->expect_skipped;
	cmds_expect_summary(a, name && *name ? name : "<notebook>", h, fl, sk);
	done(s, a->nerrors || fl ? "error" : "ok", a->nerrors);
}

static void request(server *s, const char *line)
{
	jfield *f;
	int n;
	char *err = NULL;
	if (json_object(line, &f, &n, &err) != 0) {
		free(s->id);
		s->id = NULL;
		send_text(s, "error", err, strlen(err));
		free(err);
		done(s, "error", 1);
		return;
	}
	free(s->id);
	s->id = xstrdup(jfield_str(f, n, "id", ""));
	const char *type = jfield_str(f, n, "type", "");
	const char *code = jfield_str(f, n, "code", "");
	const char *name = jfield_str(f, n, "name", "");
	long cursor = (long)jfield_num(f, n, "cursor", -1);
	if (strcmp(type, "run") == 0) {
		req_run(s, code, name);
	} else if (strcmp(type, "complete") == 0) {
		req_complete(s, code, cursor);
	} else if (strcmp(type, "inspect") == 0) {
		req_inspect(s, code, cursor);
	} else if (strcmp(type, "summary") == 0) {
		req_summary(s, name);
	} else {
		char *m = xasprintf("unknown request type '%s' (run, complete, inspect or summary)", type);
		send_text(s, "error", m, strlen(m));
		free(m);
		done(s, "error", 1);
	}
	jfields_free(f, n);
}

/* fd 1 and 2 into the pipe, the protocol on a copy of fd 1; stdin kept for
 * requests alone (fd 0 is /dev/null to the commands and their children).
 * 0, or -1 (said on stderr). */
static int plumb(server *s, int *in)
{
	int out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	*in = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (out < 0 || *in < 0 || null < 0 || pipe2(s->cap, O_CLOEXEC) != 0 || pipe2(s->ctl, O_CLOEXEC) != 0) {
		fprintf(stderr, "cuplay: --serve: cannot set up its channels: %s\n", strerror(errno));
		return -1;
	}
	s->out = fdopen(out, "w");
	fflush(stdout);
	fflush(stderr);
	s->err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (!s->out || s->err < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(s->cap[1], STDOUT_FILENO) < 0 ||
	    dup2(s->cap[1], STDERR_FILENO) < 0) {
		fprintf(stderr, "cuplay: --serve: cannot set up its channels: %s\n", strerror(errno));
		return -1;
	}
	close(null);
	close(s->cap[1]);
	fcntl(s->cap[0], F_SETFL, fcntl(s->cap[0], F_GETFL) | O_NONBLOCK);
	setvbuf(stdout, NULL, _IOLBF, 0);
	return 0;
}

int serve_loop(app *a)
{
	server s;
	memset(&s, 0, sizeof s);
	s.a = a;
	pthread_mutex_init(&s.lock, NULL);
	pthread_mutex_init(&s.dm, NULL);
	pthread_cond_init(&s.dc, NULL);
	int in;
	if (plumb(&s, &in) != 0)
		return 2;
#ifdef __linux__
	/* the front end gone (a notebook's kernel killed): this goes too,
	 * and its worker and compile server see their pipes close */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
	/* Ctrl-C is the commands' thread's: the reader blocks it, so that the
	 * signal interrupts the wait the command is in */
	sigset_t intr, old;
	sigemptyset(&intr);
	sigaddset(&intr, SIGINT);
	pthread_sigmask(SIG_BLOCK, &intr, &old);
	pthread_t th;
	int started = pthread_create(&th, NULL, reader, &s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (started != 0) {
		fprintf(s.out, "{\"type\": \"error\", \"text\": \"cuplay: --serve: cannot start its reader\"}\n");
		fclose(s.out);
		return 2;
	}
	const app_display d = { &s, on_table, on_figure, on_error, on_progress, on_code };
	a->display = &d;
	send_msg(&s, "ready", ", \"version\": \"" CUPLAY_VERSION "\"");
	FILE *req = fdopen(in, "r");
	char *line = NULL;
	size_t cap = 0;
	while (req && !a->quit) {
		errno = 0;
		ssize_t n = getline(&line, &cap, req);
		if (n < 0) {
			if (errno == EINTR) { /* Ctrl-C between requests: nothing to stop */
				clearerr(req);
				g_interrupt = 0;
				continue;
			}
			break;
		}
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		if (n > 0)
			request(&s, line);
	}
	free(line);
	if (req)
		fclose(req);
	/* the reader sends what is left, then ends */
	pthread_mutex_lock(&s.dm);
	s.stop = 1;
	pthread_mutex_unlock(&s.dm);
	drain(&s);
	pthread_join(th, NULL);
	a->display = NULL;
	sb_free(&s.pending);
	free(s.id);
	close(s.ctl[0]);
	close(s.ctl[1]);
	/* what is printed after (the worker stopping) goes where stderr went */
	fflush(stdout);
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0) {
		/* at the end of the protocol: a stdout that cannot be silenced
		 * only lets the worker's last words through */
		(void)dup2(null, STDOUT_FILENO);
		close(null);
	}
	/* stderr back where it was: nothing is left to report a failure to */
	(void)dup2(s.err, STDERR_FILENO);
	close(s.err);
	close(s.cap[0]);
	fclose(s.out);
	return 0;
}
