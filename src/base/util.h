/* util.h: small helpers shared by every module (strings, files, clocks). */
#ifndef CUPLAY_UTIL_H
#define CUPLAY_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* Growable string. Zero-initialise ({0}) before use. */
typedef struct sbuf {
	char *s;
	size_t len, cap;
} sbuf;

void sb_add(sbuf *b, const char *s, size_t n);
void sb_puts(sbuf *b, const char *s);
void sb_putc(sbuf *b, char c);
void sb_printf(sbuf *b, const char *fmt, ...) PRINTF_LIKE(2, 3);
void sb_vprintf(sbuf *b, const char *fmt, va_list ap);
char *sb_steal(sbuf *b); /* returns the string (never NULL), resets b */
void sb_free(sbuf *b);
/* Copies b into buf[0..n) (truncating, NUL-terminated), frees b, and
 * returns the number of characters written. */
int sb_copy_out(sbuf *b, char *buf, int n);

/* Appends text to b, its words wrapped at `width` columns: the text starts
 * at column `col` of the current line (what b's last line already holds),
 * and every further line starts with `indent` spaces. A word wider than
 * the room gets a line of its own. */
void sb_wrap(sbuf *b, const char *text, int col, int indent, int width);

/* Allocation never fails silently: out of memory aborts (not exit()). */
void *xmalloc(size_t n);
/* malloc for arrays of megabytes (freed with free): where it is at least
 * 4 MiB, 2 MiB-aligned and advised to the kernel as huge pages, so that
 * first touching it takes one fault per 2 MiB instead of per 4 KiB.
 * NULL when there is no memory. */
void *big_malloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);

/* Sets *err to a formatted message (caller frees) and returns -1.
 * Lets core modules report errors without printing. err may be NULL. */
int fail(char **err, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* Whole file into a NUL-terminated buffer. 0 or -1 (errno set). */
int read_file(const char *path, char **out, size_t *len);
/* Writes atomically: temp file in the same directory, then rename. */
int write_file_atomic(const char *path, const void *data, size_t len);
/* mkdir -p; 0 or -1 (errno set). */
int mkdir_p(const char *path, int mode);

uint64_t now_ns(void); /* CLOCK_MONOTONIC */

/* Levenshtein-nearest of cands[0..n) to s, or NULL when nothing is close. */
const char *nearest_name(const char *s, const char *const *cands, int n);

int str_ieq(const char *a, const char *b);
int is_ident_start(int c);
int is_ident_char(int c);

#endif
