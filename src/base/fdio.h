/* fdio.h: whole writes and reads on pipes and sockets between cuplay's
 * processes (the GPU worker, the compile server), where a read waits at
 * most until a deadline or a stop flag (Ctrl-C). */
#ifndef CUPLAY_FDIO_H
#define CUPLAY_FDIO_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Writes every byte of the pieces, in as few calls as the other end takes
 * (one where its buffer has room, so a reader never sees half a message
 * from a writer that goes on). sendmsg with MSG_NOSIGNAL on a socket (a
 * gone reader is EPIPE, never SIGPIPE), writev on anything else. Retries
 * on EINTR and short writes; iov is consumed. 0, or -1 with errno. */
int fd_write_iov(int fd, struct iovec *iov, int n);

/* Reads n bytes. Returns the bytes read before end of file (n when
 * complete), or -1 with errno: ETIMEDOUT when deadline_ns (now_ns() time;
 * 0: none) passed, EINTR when *stop (may be NULL) became non-zero, while
 * no byte came; a read's own error. Bytes already there are always read. */
ssize_t fd_read_until(int fd, void *p, size_t n, uint64_t deadline_ns, volatile sig_atomic_t *stop);

/* Reads n bytes into a buffer of its own (NUL-terminated, caller frees),
 * grown as they come: a header that claims a gigabyte costs memory only
 * as its bytes arrive. 0 with *out; -1 with errno as fd_read_until, EPROTO
 * at end of file before n bytes (*out NULL). */
int fd_read_alloc(int fd, size_t n, uint64_t deadline_ns, volatile sig_atomic_t *stop, char **out);

#endif
