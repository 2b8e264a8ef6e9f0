/* util.h: small helpers shared by every module (strings, files, clocks). */
#ifndef CUPLAY_UTIL_H
#define CUPLAY_UTIL_H

#include <stddef.h>
#include <pthread.h>
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
/* Appends s as XML text or an attribute value: < > & " escaped, control
 * bytes other than tab left out. */
void sb_xml(sbuf *b, const char *s);
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

/* A whole regular file into a NUL-terminated buffer. 0, or -1 with errno
 * set (EISDIR for a directory, EINVAL for another kind of file: a FIFO is
 * never waited on, a device never read). */
int read_file(const char *path, char **out, size_t *len);
/* read_file of a file of at most max bytes; a larger one (or one grown
 * past max while read) is not read: -1 with errno EFBIG. */
int read_file_max(const char *path, char **out, size_t *len, size_t max);
/* Replaces path at once: a temporary file made with mkstemp in the same
 * directory, written, synced, then renamed over path (whatever path was,
 * a link too: see fileio.h for files a user names). The mode of the file
 * replaced is kept, and its owner and group where this process may give
 * them; a new one gets 0666 less the umask. */
int write_file_atomic(const char *path, const void *data, size_t len);
/* mkdir -p; 0 or -1 (errno set). */
int mkdir_p(const char *path, int mode);

uint64_t now_ns(void); /* CLOCK_MONOTONIC */
/* Milliseconds since t0 (a now_ns() reading). */
double ms_since(uint64_t t0);

/* Runs fn on n threads, thread i given args + i * size, and waits for
 * them. start (NULL: pthread_create) starts one; a thread that cannot be
 * started is left out, so fn must take its work from a pool the others
 * share; when none starts, the calling thread runs fn(args) itself.
 * Returns how many threads were started. */
typedef int (*thread_start_fn)(pthread_t *t, void *(*fn)(void *), void *arg);
int threads_run(int n, void *(*fn)(void *), void *args, size_t size, thread_start_fn start);

/* s without its leading white space, its trailing white space cut off in
 * place. */
char *str_trim(char *s);
/* The 64-bit FNV-1a hash of n bytes. */
uint64_t fnv1a64(const void *data, size_t n);

/* An index of names, by hash: each name (not copied: it must stay where it
 * is while indexed) with a number its owner gives it (a position). Names
 * are found in constant time, so a file or a command of N names costs N. */
typedef struct name_ix_entry {
	const char *key;
	int val;
} name_ix_entry;
typedef struct name_ix {
	name_ix_entry *e;
	int cap, n;
} name_ix;
/* Adds key with val (a key already there: its val replaced). */
void nix_put(name_ix *x, const char *key, int val);
/* The val of the name of len bytes at name, or -1 when absent. */
int nix_get(const name_ix *x, const char *name, size_t len);
void nix_free(name_ix *x);

/* Sizes in bytes. */
#define KiB ((uint64_t)1024)
#define MiB (KiB * 1024)
#define GiB (MiB * 1024)

/* Levenshtein-nearest of cands[0..n) to s, or NULL when nothing is close. */
const char *nearest_name(const char *s, const char *const *cands, int n);

int str_ieq(const char *a, const char *b);
/* s with control characters written \xNN (caller frees): a stray byte in a
 * name must show, and never reach the terminal raw. */
char *str_visible(const char *s);
/* The same, keeping newlines and tabs (a message of several lines). */
char *str_visible_text(const char *s);
/* s for a message: str_visible, and when longer than max bytes, its start
 * and its end around " ... " (caller frees). */
char *str_excerpt(const char *s, size_t max);
/* The same around byte `at` of s (an error's column less one): about max
 * bytes of s with " ... " where the text was cut (caller frees). */
char *str_excerpt_at(const char *s, size_t at, size_t max);
int is_ident_start(int c);
int is_ident_char(int c);

#endif
