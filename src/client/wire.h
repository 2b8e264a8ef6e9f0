/* wire.h: the messages between the front end and the GPU worker, over two
 * pipes (socket pairs used as pipes). */
#ifndef CUPLAY_WIRE_H
#define CUPLAY_WIRE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "plan.h"
#include "result.h"

/* The wire: framed messages, a 12-byte header {u32 type, u64 payload length}
 * in host byte order (both ends are this binary), then the payload. The
 * worker answers every RUN with PROGRESS messages and then exactly one
 * RESULT; after a RES_FATAL result it exits.
 *
 * Both ends should be one build, but need not be: a binary rebuilt under a
 * running front end is what its next worker runs. So the front end passes
 * WIRE_VERSION on the worker's command line, and the worker checks it
 * before it loads the driver; the worker's HELLO carries its version and the
 * sizes of the structs that cross the pipe, and the front end checks those.
 * Either refusal is one line (WIRE_OTHER_BUILD ...: restart cuplay). The
 * header and MSG_ERROR never change, so any two builds can say why they
 * refuse. Builds from before the version count as version 0. */
#define WIRE_VERSION 8
#define WIRE_MAGIC 0x57504c43u /* "CLPW" in a little-endian word: a versioned HELLO */
#define WIRE_OTHER_BUILD "the GPU worker is from another build of cuplay"

enum wire_msg {
	MSG_HELLO = 1,    /* worker -> front: wire_hello, once, when the device is known (its
	                     context is still being made: free_mem is 0) */
	MSG_ERROR = 2,    /* worker -> front: one line of text; the worker then exits */
	MSG_RUN = 3,      /* front -> worker: plan, then plan.cubin_len bytes of cubin */
	MSG_STOP = 4,     /* front -> worker: end sampling early (RES_INTERRUPTED) */
	MSG_QUIT = 5,     /* front -> worker: leave */
	MSG_PROGRESS = 6, /* worker -> front: wire_progress */
	MSG_RESULT = 7,   /* worker -> front: result, then for a `lines` plan the per-line
	                     run's sp_head and its sp_pc records (sassprof.h) */
	MSG_NOTE = 8,     /* worker -> front: one line for the user (waiting for the GPU) */
	MSG_DEVICE = 9    /* front -> worker: empty; worker -> front: devinfo with free_mem now
	                     (or MSG_ERROR when it has no context, and it exits) */
};

#define WIRE_MAX_PAYLOAD ((uint64_t)1 << 30)

/* What the worker is doing: the front end's no-progress timeout applies to
 * GPU work; host work (loading, filling buffers, CPU references) gets a
 * longer limit. */
enum { WIRE_PHASE_GPU = 0, WIRE_PHASE_HOST = 1,
       WIRE_PHASE_WAIT = 2 /* waiting for another process to finish measuring: no limit */ };

typedef struct wire_progress {
	int32_t nsamples; /* timed samples so far (0 before timing) */
	int32_t phase;    /* WIRE_PHASE_* of the work that follows */
	double last_ms;   /* the last sample, or 0 */
} wire_progress;

/* The HELLO: version and struct sizes first, then the device. */
enum { WIRE_SIZE_PLAN, WIRE_SIZE_RESULT, WIRE_SIZE_DEVINFO, WIRE_SIZE_PROGRESS, WIRE_NSIZES = 8 };
typedef struct wire_hello {
	uint32_t magic;               /* WIRE_MAGIC */
	uint32_t version;             /* WIRE_VERSION */
	uint32_t sizes[WIRE_NSIZES];  /* sizeof plan, result, devinfo, wire_progress; 0 after */
	devinfo dev;
} wire_hello;

/* The worker's HELLO for device d. */
void wire_hello_make(wire_hello *h, const devinfo *d);
/* The front end's check of a HELLO payload: 0 with *d set, or -1 with
 * *err: "the GPU worker is from another build of cuplay (wire version 2,
 * this is 1): restart cuplay", or "(its result is N bytes, here M)". */
int wire_hello_read(const void *payload, uint64_t len, devinfo *d, char **err);
/* The worker's check of the version its front end passed (NULL: none, a
 * front end from before the version): 0, or -1 with *err, the line to send
 * back as MSG_ERROR ("... (wire version 1, this is 0): restart cuplay"). */
int wire_version_check(const char *front_version, char **err);

/* Writes one message: header, then a[0..alen) and b[0..blen). Retries on
 * EINTR and short writes. 0, or -1 with errno (EPIPE: the other end left).
 * On a socket (as wc_start makes) no SIGPIPE is raised; on a pipe SIGPIPE
 * must be ignored. */
int wire_send(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen);
/* Reads one message. 0: *payload (malloc'ed, NUL-terminated, caller frees;
 * NULL when empty) and *len are set; 1: end of file before a header; -1: a
 * read error or a bad frame (errno; EPROTO for a bad frame). */
int wire_recv(int fd, uint32_t *type, void **payload, uint64_t *len);
/* The same, where every wait for a byte, of the header or of the payload,
 * ends at deadline_ns (now_ns() time; 0: none) with -1 and ETIMEDOUT, or
 * when *stop (may be NULL) becomes non-zero with -1 and EINTR: a message
 * that stalls half way never holds the reader. */
int wire_recv_until(int fd, uint32_t *type, void **payload, uint64_t *len, uint64_t deadline_ns,
                    volatile sig_atomic_t *stop);

#endif
