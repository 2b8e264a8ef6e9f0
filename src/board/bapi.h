/* bapi.h: the board's HTTP API and page, one request at a time, apart
 * from the HTTP library (bserve feeds it; the fuzzer calls it directly):
 * the routes of docs/formats.md, their tokens, limits and errors. */
#ifndef CUPLAY_BAPI_H
#define CUPLAY_BAPI_H

#include <stddef.h>

#include "board_types.h"

/* Answers METHOD URL with the Authorization header's value (NULL: none)
 * and the body (len bytes, not NUL-terminated) into *r. A new submission
 * wakes the queues (b->work). */
void bapi_handle(board *b, const char *method, const char *url, const char *auth, const char *body,
                 size_t len, bresp *r);
/* The error response `{"error":"MSG"}` with status. */
void bapi_error(bresp *r, int status, const char *msg);

/* A name an exercise may have (a file's: letters, digits, '_', '-', '.';
 * not starting with '.'), 1 or 0. */
int bapi_exercise_name_ok(const char *s, size_t n);

#endif
