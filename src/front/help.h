/* help.h: the text of `help`, made from the command table and the core's
 * own tables: the list of commands, one command's usage with its
 * explanation and examples, and the topics (header: the //@ lines of a
 * kernel file; refs: the CPU references; buffers: what buffers hold).
 * Every line fits HELP_WIDTH columns. The functions return the text
 * (caller frees); `help` prints it. */
#ifndef CUPLAY_HELP_H
#define CUPLAY_HELP_H

#include "command.h"

#define HELP_WIDTH 80

/* Every command: a synopsis (cut short, with "...", where it is long) and
 * its one-line help, wrapped; then the topics. */
char *help_list(const command *const *t, int n);

/* "usage: NAME ARGS", then the command's long help: paragraphs wrapped,
 * indented lines (examples) as written. */
char *help_command(const command *c);

/* The topic's text, or NULL when there is no topic of that name. */
char *help_topic(const char *name);
/* The topics' names, NULL-terminated. */
const char *const *help_topics(void);

/* Lays out text: lines that start with a space are kept as written (examples,
 * tables); other lines run together into paragraphs, wrapped at width; a
 * blank line separates paragraphs. */
void help_format(sbuf *b, const char *text, int width);

#endif
