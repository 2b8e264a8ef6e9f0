/* bserve.h: the board over HTTP (GNU libmicrohttpd): a thread a
 * connection under a bounded count, a timeout each, bodies over
 * b->body_max answered 413 without being kept, every other request handed
 * to bapi, and /events: Server-Sent Events, b->sse_max streams at most,
 * an event a finished submission and a comment every 15 s. */
#ifndef CUPLAY_BSERVE_H
#define CUPLAY_BSERVE_H

#include "board_types.h"

typedef struct bserver bserver;

/* Listens on addr:port (port 0: any free one): 0 with *out and *bound
 * (the port), or -1 with *err. */
int bserve_start(board *b, const char *addr, int port, bserver **out, int *bound, char **err);
/* Stops listening and ends every connection (set b->stopping first, so
 * that the /events streams end). */
void bserve_stop(bserver *s);

#endif
