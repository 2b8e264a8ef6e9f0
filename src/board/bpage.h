/* bpage.h: the board's page: every exercise's ranking, one table a GPU
 * kind, as one self-contained HTML document (no external assets), every
 * name escaped; its script refetches an exercise's ranking when /events
 * says it changed, and builds the rows as text nodes. */
#ifndef CUPLAY_BPAGE_H
#define CUPLAY_BPAGE_H

#include "board_types.h"
#include "util.h"

/* The page into *out: the board's exercises with their titles. 0 or -1
 * (the database failed). */
int bpage_render(const board *b, sbuf *out);

#endif
