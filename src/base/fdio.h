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

/* Framed messages between cuplay's processes (the GPU worker's wire, the
 * compile server's): a header of FD_MSG_HDR bytes, the type (4) and the
 * payload's length (8) in this machine's order, then the payload. */
#define FD_MSG_HDR 12

/* Sends one message whose payload is a then b (either may be empty), in
 * one write where the other end has room. 0, or -1 with errno (EMSGSIZE:
 * over max bytes). */
int fd_msg_send(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen, uint64_t max);

/* Receives one message: 0 with *type, *payload (NUL-terminated, caller
 * frees; NULL when empty) and *len; 1 at end of input before it; -1 with
 * errno: ETIMEDOUT or EINTR (*stop) as fd_read_until while the header has
 * not come, EPROTO for a header cut short or a length over max. The
 * payload is read within the same deadline and stop; with rest_ns, once
 * the header came, within rest_ns more (and the deadline) whatever *stop
 * says. */
int fd_msg_recv(int fd, uint32_t *type, char **payload, uint64_t *len, uint64_t max, uint64_t deadline_ns,
                volatile sig_atomic_t *stop, uint64_t rest_ns);

#endif
