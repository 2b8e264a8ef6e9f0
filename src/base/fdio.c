/* fdio.c: whole writes and bounded reads (fdio.h). */
#include "fdio.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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

int fd_write_iov(int fd, struct iovec *iov, int n)
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

/* Waits for fd to be readable: 0 yes; -1 with ETIMEDOUT or EINTR while
 * nothing came. Slices of 50 ms, so a stop set by a signal handler just
 * before the wait is seen soon. */
static int wait_readable(int fd, uint64_t deadline_ns, volatile sig_atomic_t *stop)
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
		struct pollfd pf = { fd, POLLIN, 0 };
		int r = poll(&pf, 1, ms);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

int fd_read_alloc(int fd, size_t n, uint64_t deadline_ns, volatile sig_atomic_t *stop, char **out)
{
	*out = NULL;
	size_t cap = n < ((size_t)1 << 20) ? n : (size_t)1 << 20;
	char *p = xmalloc(cap + 1);
	size_t got = 0;
	while (got < n) {
		if (got == cap) {
			cap = cap * 2 < n ? cap * 2 : n;
			p = xrealloc(p, cap + 1);
		}
		ssize_t r = fd_read_until(fd, p + got, cap - got, deadline_ns, stop);
		if (r < 0 || (size_t)r < cap - got) {
			int e = r < 0 ? errno : EPROTO;
			free(p);
			errno = e;
			return -1;
		}
		got += (size_t)r;
	}
	p[n] = 0;
	*out = p;
	return 0;
}

ssize_t fd_read_until(int fd, void *p, size_t n, uint64_t deadline_ns, volatile sig_atomic_t *stop)
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

int fd_msg_send(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen, uint64_t max)
{
	uint64_t len = (uint64_t)alen + (uint64_t)blen;
	if (len > max) {
		errno = EMSGSIZE;
		return -1;
	}
	unsigned char hdr[FD_MSG_HDR];
	memcpy(hdr, &type, 4);
	memcpy(hdr + 4, &len, 8);
	/* header and payload in one call where the other end has room */
	struct iovec iov[3] = {
		{ hdr, FD_MSG_HDR },
		{ (void *)a, alen },
		{ (void *)b, blen },
	};
	return fd_write_iov(fd, iov, 3);
}

int fd_msg_recv(int fd, uint32_t *type, char **payload, uint64_t *len, uint64_t max, uint64_t deadline_ns,
                volatile sig_atomic_t *stop, uint64_t rest_ns)
{
	unsigned char hdr[FD_MSG_HDR];
	*payload = NULL;
	*len = 0;
	ssize_t r = fd_read_until(fd, hdr, FD_MSG_HDR, deadline_ns, stop);
	if (r < 0)
		return -1;
	if (r == 0)
		return 1;
	uint64_t n;
	memcpy(type, hdr, 4);
	memcpy(&n, hdr + 4, 8);
	if (r < FD_MSG_HDR || n > max) {
		errno = EPROTO;
		return -1;
	}
	if (n == 0)
		return 0;
	if (rest_ns) {
		uint64_t soon = now_ns() + rest_ns;
		if (!deadline_ns || soon < deadline_ns)
			deadline_ns = soon;
		stop = NULL;
	}
	char *p = NULL;
	if (fd_read_alloc(fd, (size_t)n, deadline_ns, stop, &p) != 0)
		return -1;
	*payload = p;
	*len = n;
	return 0;
}
