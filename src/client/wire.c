/* wire.c: framed messages between the front end and the GPU worker. */
#include "wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fdio.h"
#include "util.h"

int wire_send(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen)
{
	return fd_msg_send(fd, type, a, alen, b, blen, WIRE_MAX_PAYLOAD);
}

int wire_recv(int fd, uint32_t *type, void **payload, uint64_t *len)
{
	return wire_recv_until(fd, type, payload, len, 0, NULL);
}

int wire_recv_until(int fd, uint32_t *type, void **payload, uint64_t *len, uint64_t deadline_ns,
                    volatile sig_atomic_t *stop)
{
	char *p = NULL;
	int r = fd_msg_recv(fd, type, &p, len, WIRE_MAX_PAYLOAD, deadline_ns, stop, 0);
	*payload = p;
	return r;
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
