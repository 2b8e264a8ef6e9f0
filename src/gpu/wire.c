/* wire.c: framed messages between the front end and the GPU worker. */
#include "wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util.h"

/* send() with MSG_NOSIGNAL on the worker's sockets (a gone reader gives
 * EPIPE, never SIGPIPE); write() on anything else, e.g. a pipe. */
static ssize_t write_some(int fd, const void *p, size_t n)
{
	ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
	if (w < 0 && errno == ENOTSOCK)
		w = write(fd, p, n);
	return w;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *s = p;
	while (n > 0) {
		ssize_t w = write_some(fd, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Bytes read before end of file (n when complete), or -1. */
static ssize_t read_full(int fd, void *p, size_t n)
{
	char *s = p;
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, s + got, n - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

#define WIRE_HDR 12

int wire_send(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen)
{
	uint64_t len = (uint64_t)alen + (uint64_t)blen;
	if (len > WIRE_MAX_PAYLOAD) {
		errno = EMSGSIZE;
		return -1;
	}
	unsigned char hdr[WIRE_HDR];
	memcpy(hdr, &type, 4);
	memcpy(hdr + 4, &len, 8);
	if (WIRE_HDR + len <= 4096) {
		/* One write: atomic on a pipe, so a dying writer never leaves half
		 * a small message. */
		unsigned char buf[4096];
		memcpy(buf, hdr, WIRE_HDR);
		if (alen)
			memcpy(buf + WIRE_HDR, a, alen);
		if (blen)
			memcpy(buf + WIRE_HDR + alen, b, blen);
		return write_all(fd, buf, WIRE_HDR + (size_t)len);
	}
	if (write_all(fd, hdr, WIRE_HDR) != 0)
		return -1;
	if (alen && write_all(fd, a, alen) != 0)
		return -1;
	if (blen && write_all(fd, b, blen) != 0)
		return -1;
	return 0;
}

int wire_recv(int fd, uint32_t *type, void **payload, uint64_t *len)
{
	unsigned char hdr[WIRE_HDR];
	*payload = NULL;
	*len = 0;
	ssize_t r = read_full(fd, hdr, WIRE_HDR);
	if (r < 0)
		return -1;
	if (r == 0)
		return 1;
	if (r < WIRE_HDR) {
		errno = EPROTO;
		return -1;
	}
	uint64_t n;
	memcpy(type, hdr, 4);
	memcpy(&n, hdr + 4, 8);
	if (n > WIRE_MAX_PAYLOAD) {
		errno = EPROTO;
		return -1;
	}
	if (n == 0)
		return 0;
	char *p = malloc((size_t)n + 1);
	if (!p) {
		errno = ENOMEM;
		return -1;
	}
	r = read_full(fd, p, (size_t)n);
	if (r < 0 || (uint64_t)r != n) {
		int e = r < 0 ? errno : EPROTO;
		free(p);
		errno = e;
		return -1;
	}
	p[n] = 0;
	*payload = p;
	*len = n;
	return 0;
}

/* ----------------------------------------------------------- the HELLO */

static const char *const size_names[WIRE_NSIZES] = { "plan", "result", "devinfo", "progress message" };

static void wire_sizes(uint32_t sizes[WIRE_NSIZES])
{
	memset(sizes, 0, WIRE_NSIZES * sizeof sizes[0]);
	sizes[WIRE_SIZE_PLAN] = (uint32_t)sizeof(plan);
	sizes[WIRE_SIZE_RESULT] = (uint32_t)sizeof(result);
	sizes[WIRE_SIZE_DEVINFO] = (uint32_t)sizeof(devinfo);
	sizes[WIRE_SIZE_PROGRESS] = (uint32_t)sizeof(wire_progress);
}

void wire_hello_make(wire_hello *h, const devinfo *d)
{
	memset(h, 0, sizeof *h);
	h->magic = WIRE_MAGIC;
	h->version = WIRE_VERSION;
	wire_sizes(h->sizes);
	h->dev = *d;
}

int wire_hello_read(const void *payload, uint64_t len, devinfo *d, char **err)
{
	uint32_t head[2] = { 0, 0 };
	if (payload && len >= sizeof head)
		memcpy(head, payload, sizeof head);
	if (head[0] != WIRE_MAGIC) /* a bare devinfo: a worker from before the version */
		return fail(err, WIRE_OTHER_BUILD " (wire version 0, this is %d): restart cuplay", WIRE_VERSION);
	if (head[1] != WIRE_VERSION)
		return fail(err, WIRE_OTHER_BUILD " (wire version %u, this is %d): restart cuplay", head[1], WIRE_VERSION);
	wire_hello h;
	if (len != sizeof h)
		return fail(err, WIRE_OTHER_BUILD " (its HELLO is %llu bytes, here %zu): restart cuplay",
		            (unsigned long long)len, sizeof h);
	memcpy(&h, payload, sizeof h);
	uint32_t want[WIRE_NSIZES];
	wire_sizes(want);
	for (int i = 0; i < WIRE_NSIZES; i++)
		if (h.sizes[i] != want[i])
			return fail(err, WIRE_OTHER_BUILD " (its %s is %u bytes, here %u): restart cuplay",
			            size_names[i] ? size_names[i] : "struct", h.sizes[i], want[i]);
	*d = h.dev;
	d->name[sizeof d->name - 1] = 0;
	d->pci_bus_id[sizeof d->pci_bus_id - 1] = 0;
	return 0;
}

int wire_version_check(const char *front_version, char **err)
{
	const char *v = front_version ? front_version : "0";
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (!errno && end != v && !*end && n == WIRE_VERSION)
		return 0;
	return fail(err, WIRE_OTHER_BUILD " (wire version %d, this is %s): restart cuplay", WIRE_VERSION, v);
}
