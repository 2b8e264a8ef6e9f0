/* wire.c: framed messages between the front end and the GPU worker. */
#include "wire.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "util.h"

/* sendmsg() with MSG_NOSIGNAL on the worker's sockets (a gone reader
 * gives EPIPE, never SIGPIPE); writev() on anything else, e.g. a pipe. */
static ssize_t write_some(int fd, struct iovec *iov, int n)
{
	struct msghdr m;
	memset(&m, 0, sizeof m);
	m.msg_iov = iov;
	m.msg_iovlen = (size_t)n;
	ssize_t w = sendmsg(fd, &m, MSG_NOSIGNAL);
	if (w < 0 && errno == ENOTSOCK)
		w = writev(fd, iov, n);
	return w;
}

/* Writes the pieces in as few calls as the other end takes: one, where its
 * buffer has room, so a reader never sees half a message from a writer
 * that goes on. */
static int write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		if (iov->iov_len == 0) {
			iov++;
			n--;
			continue;
		}
		ssize_t w = write_some(fd, iov, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		for (size_t left = (size_t)w; left > 0 && n > 0;) {
			size_t k = left < iov->iov_len ? left : iov->iov_len;
			iov->iov_base = (char *)iov->iov_base + k;
			iov->iov_len -= k;
			left -= k;
			if (iov->iov_len == 0) {
				iov++;
				n--;
			}
		}
	}
	return 0;
}

/* Waits for fd to be readable: 0 yes; -1 with ETIMEDOUT (the deadline
 * passed) or EINTR (*stop became non-zero) while nothing came. Slices of
 * 50 ms, so a stop set by a signal handler just before the wait is seen
 * soon. */
static int wait_readable(int fd, uint64_t deadline_ns, volatile int *stop)
{
	struct pollfd now_pf = { fd, POLLIN, 0 };
	if (poll(&now_pf, 1, 0) > 0)
		return 0; /* bytes are there: a message in flight is read whole */
	for (;;) {
		if (stop && *stop) {
			errno = EINTR;
			return -1;
		}
		int ms = 50;
		if (deadline_ns) {
			uint64_t now = now_ns();
			if (now >= deadline_ns) {
				errno = ETIMEDOUT;
				return -1;
			}
			if (deadline_ns - now < 50000000ull)
				ms = (int)((deadline_ns - now) / 1000000ull) + 1;
		}
		if (!deadline_ns && !stop)
			ms = -1;
		struct pollfd pf = { fd, POLLIN, 0 };
		int r = poll(&pf, 1, ms);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

/* Bytes read before end of file (n when complete), or -1 (errno; ETIMEDOUT
 * or EINTR from wait_readable). */
static ssize_t read_full(int fd, void *p, size_t n, uint64_t deadline_ns, volatile int *stop)
{
	char *s = p;
	size_t got = 0;
	while (got < n) {
		if ((deadline_ns || stop) && wait_readable(fd, deadline_ns, stop) != 0)
			return -1;
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
	/* header and payload in one call (atomic on a pipe up to PIPE_BUF; on
	 * the worker's sockets whole while their buffer has room) */
	struct iovec iov[3] = {
		{ hdr, WIRE_HDR },
		{ (void *)a, alen },
		{ (void *)b, blen },
	};
	return write_all(fd, iov, 3);
}

int wire_recv(int fd, uint32_t *type, void **payload, uint64_t *len)
{
	return wire_recv_until(fd, type, payload, len, 0, NULL);
}

int wire_recv_until(int fd, uint32_t *type, void **payload, uint64_t *len, uint64_t deadline_ns,
                    volatile int *stop)
{
	unsigned char hdr[WIRE_HDR];
	*payload = NULL;
	*len = 0;
	ssize_t r = read_full(fd, hdr, WIRE_HDR, deadline_ns, stop);
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
	r = read_full(fd, p, (size_t)n, deadline_ns, stop);
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
