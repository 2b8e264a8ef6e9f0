/* bserve.c: the board over HTTP (bserve.h). */
#ifndef BOARD_MISSING /* built without the board's libraries: board.c says so */
#include "bserve.h"
#include "bapi.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CONN_MAX 256       /* connections at once */
#define CONN_TIMEOUT_S 30  /* idle seconds before one is closed */
#define PING_S 15          /* a comment on an idle /events stream */

struct bserver {
	struct MHD_Daemon *d;
	board *b;
};

/* a request's body as it arrives */
typedef struct upload {
	sbuf body;
	int too_big;
} upload;

typedef struct sse {
	board *b;
	unsigned long long seen;
	int said_hello;
} sse;

static enum MHD_Result send_resp(struct MHD_Connection *c, bresp *r, int page)
{
	struct MHD_Response *m = MHD_create_response_from_buffer(r->len, r->body, MHD_RESPMEM_MUST_FREE);
	if (!m) {
		free(r->body);
		return MHD_NO;
	}
	MHD_add_response_header(m, "Content-Type", r->type);
	MHD_add_response_header(m, "Cache-Control", "no-store");
	MHD_add_response_header(m, "X-Content-Type-Options", "nosniff");
	if (page)
		MHD_add_response_header(m, "Content-Security-Policy",
		                        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
		                        "connect-src 'self'");
	enum MHD_Result rc = MHD_queue_response(c, (unsigned)r->status, m);
	MHD_destroy_response(m);
	return rc;
}

static enum MHD_Result send_error(struct MHD_Connection *c, int status, const char *msg)
{
	bresp r;
	bapi_error(&r, status, msg);
	return send_resp(c, &r, 0);
}

/* An /events stream's next bytes: what finished since it last looked, or a
 * comment after PING_S seconds of nothing. */
static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	sse *e = cls;
	board *b = e->b;
	(void)pos;
	if (!e->said_hello) {
		e->said_hello = 1;
		return snprintf(buf, max, "retry: 2000\n: cuplay board\n\n");
	}
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += PING_S;
	pthread_mutex_lock(&b->mu);
	while (!b->stopping && b->gen == e->seen)
		if (pthread_cond_timedwait(&b->events, &b->mu, &t) == ETIMEDOUT)
			break;
	if (b->stopping) {
		pthread_mutex_unlock(&b->mu);
		return MHD_CONTENT_READER_END_OF_STREAM;
	}
	if (b->gen == e->seen) {
		pthread_mutex_unlock(&b->mu);
		return snprintf(buf, max, ": ping\n\n");
	}
	if (b->gen - e->seen > BOARD_RING)
		e->seen = b->gen - BOARD_RING;
	size_t n = 0;
	while (e->seen < b->gen) {
		sbuf ev = {0};
		sb_puts(&ev, "event: ranking\ndata: {\"exercise\":\"");
		sb_puts(&ev, b->ring[(e->seen + 1) % BOARD_RING]); /* a checked exercise name: nothing to escape */
		sb_puts(&ev, "\"}\n\n");
		int fits = n + ev.len < max;
		if (fits) {
			memcpy(buf + n, ev.s, ev.len);
			n += ev.len;
			e->seen++;
		}
		sb_free(&ev);
		if (!fits)
			break;
	}
	pthread_mutex_unlock(&b->mu);
	return (ssize_t)n;
}

static void sse_free(void *cls)
{
	sse *e = cls;
	pthread_mutex_lock(&e->b->mu);
	e->b->nsse--;
	pthread_mutex_unlock(&e->b->mu);
	free(e);
}

static enum MHD_Result events(board *b, struct MHD_Connection *c)
{
	pthread_mutex_lock(&b->mu);
	int full = b->nsse >= b->sse_max;
	if (!full)
		b->nsse++;
	unsigned long long gen = b->gen;
	pthread_mutex_unlock(&b->mu);
	if (full)
		return send_error(c, 503, "too many live pages open");
	sse *e = xcalloc(1, sizeof *e);
	e->b = b;
	e->seen = gen;
	struct MHD_Response *m = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, sse_read, e, sse_free);
	if (!m) {
		sse_free(e);
		return MHD_NO;
	}
	MHD_add_response_header(m, "Content-Type", "text/event-stream");
	MHD_add_response_header(m, "Cache-Control", "no-store");
	enum MHD_Result rc = MHD_queue_response(c, MHD_HTTP_OK, m);
	MHD_destroy_response(m);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *data, size_t *size, void **con_cls)
{
	bserver *s = cls;
	board *b = s->b;
	(void)version;
	upload *u = *con_cls;
	if (!u) {
		u = xcalloc(1, sizeof *u);
		const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl && strtoull(cl, NULL, 10) > b->body_max)
			u->too_big = 1;
		*con_cls = u;
		return MHD_YES;
	}
	if (*size) {
		if (!u->too_big && u->body.len + *size <= b->body_max)
			sb_add(&u->body, data, *size);
		else
			u->too_big = 1;
		*size = 0;
		return MHD_YES;
	}
	if (u->too_big) {
		char msg[80];
		snprintf(msg, sizeof msg, "the body is over the limit of %zu bytes", b->body_max);
		return send_error(c, 413, msg);
	}
	if (strcmp(method, "GET") == 0 && strcmp(url, "/events") == 0)
		return events(b, c);
	const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	bresp r;
	bapi_handle(b, method, url, auth, u->body.s ? u->body.s : "", u->body.len, &r);
	return send_resp(c, &r, strcmp(url, "/") == 0 && r.status == 200);
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode why)
{
	(void)cls; (void)c; (void)why;
	upload *u = *con_cls;
	if (u) {
		sb_free(&u->body);
		free(u);
		*con_cls = NULL;
	}
}

int bserve_start(board *b, const char *addr, int port, bserver **out, int *bound, char **err)
{
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
	memset(&v4, 0, sizeof v4);
	memset(&v6, 0, sizeof v6);
	const struct sockaddr *sa;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;
	if (inet_pton(AF_INET, addr, &v4.sin_addr) == 1) {
		v4.sin_family = AF_INET;
		v4.sin_port = htons((uint16_t)port);
		sa = (const struct sockaddr *)&v4;
	} else if (inet_pton(AF_INET6, addr, &v6.sin6_addr) == 1) {
		v6.sin6_family = AF_INET6;
		v6.sin6_port = htons((uint16_t)port);
		sa = (const struct sockaddr *)&v6;
		flags |= MHD_USE_IPv6;
	} else {
		*err = xasprintf("--bind: '%s' is not an IPv4 or IPv6 address", addr);
		return -1;
	}
	bserver *s = xcalloc(1, sizeof *s);
	s->b = b;
	s->d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, s,
	                        MHD_OPTION_SOCK_ADDR, sa,
	                        MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONN_MAX,
	                        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONN_TIMEOUT_S,
	                        MHD_OPTION_NOTIFY_COMPLETED, on_done, s,
	                        MHD_OPTION_END);
	if (!s->d) {
		*err = xasprintf("cannot listen on %s port %d: %s", addr, port, strerror(errno ? errno : EADDRINUSE));
		free(s);
		return -1;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	*bound = info && info->port ? info->port : port;
	*out = s;
	return 0;
}

void bserve_stop(bserver *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->d);
	free(s);
}

#endif
