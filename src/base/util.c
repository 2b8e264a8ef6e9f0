/* util.c: strings, files, clocks. */
#include "util.h"

#include <ctype.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fputs("cuplay: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *big_malloc(size_t n)
{
	const size_t huge = (size_t)2 << 20;
	if (n < 2 * huge)
		return malloc(n ? n : 1);
	void *p = NULL;
	if (posix_memalign(&p, huge, n) != 0)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, n / huge * huge, MADV_HUGEPAGE); /* advice: nothing to do if refused */
#endif
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p) {
		fputs("cuplay: out of memory\n", stderr);
		abort();
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("cuplay: out of memory\n", stderr);
		abort();
	}
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	sbuf b = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	return sb_steal(&b);
}

int fail(char **err, const char *fmt, ...)
{
	if (err) {
		sbuf b = {0};
		va_list ap;
		va_start(ap, fmt);
		sb_vprintf(&b, fmt, ap);
		va_end(ap);
		free(*err);
		*err = sb_steal(&b);
	}
	return -1;
}

static void sb_grow(sbuf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1)
		cap *= 2;
	b->s = xrealloc(b->s, cap);
	b->cap = cap;
}

void sb_add(sbuf *b, const char *s, size_t n)
{
	sb_grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void sb_puts(sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

void sb_putc(sbuf *b, char c)
{
	sb_add(b, &c, 1);
}

void sb_xml(sbuf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': sb_puts(b, "&lt;"); break;
		case '>': sb_puts(b, "&gt;"); break;
		case '&': sb_puts(b, "&amp;"); break;
		case '"': sb_puts(b, "&quot;"); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				sb_putc(b, *s);
		}
	}
}

void sb_vprintf(sbuf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	sb_grow(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void sb_printf(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(b, fmt, ap);
	va_end(ap);
}

char *sb_steal(sbuf *b)
{
	char *s = b->s ? b->s : xstrdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

void sb_free(sbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

int sb_copy_out(sbuf *b, char *buf, int n)
{
	int len = (int)b->len;
	if (n > 0) {
		snprintf(buf, (size_t)n, "%s", b->s ? b->s : "");
		if (len >= n)
			len = n - 1;
	}
	sb_free(b);
	return len;
}

int read_file(const char *path, char **out, size_t *len)
{
	return read_file_max(path, out, len, SIZE_MAX);
}

int read_file_max(const char *path, char **out, size_t *len, size_t max)
{
	/* never waits on a FIFO nor reads a device: a regular file or nothing */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : !S_ISREG(st.st_mode) ? EINVAL : EFBIG;
		return -1;
	}
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	sbuf b = {0};
	char buf[65536];
	size_t n;
	int big = 0;
	while (!big && (n = fread(buf, 1, sizeof buf, f)) > 0) {
		big = n > max - b.len; /* grown since fstat */
		if (!big)
			sb_add(&b, buf, n);
	}
	int bad = ferror(f) || big;
	int saved = big ? EFBIG : errno;
	fclose(f);
	if (bad) {
		sb_free(&b);
		errno = saved ? saved : EIO;
		return -1;
	}
	if (len)
		*len = b.len;
	*out = sb_steal(&b);
	return 0;
}

/* The process's umask, without changing it (Linux: /proc/self/status). */
static mode_t current_umask(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	if (f) {
		char line[256];
		unsigned m;
		while (fgets(line, sizeof line, f))
			if (sscanf(line, "Umask: %o", &m) == 1) {
				fclose(f);
				return (mode_t)m;
			}
		fclose(f);
	}
	mode_t m = umask(022);
	umask(m);
	return m;
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	/* a temporary name no one can guess (mkstemp, O_EXCL), in the same
	 * directory: a link planted at a predictable name is never followed */
	const char *slash = strrchr(path, '/');
	char *tmp = slash ? xasprintf("%.*s/.cuplay-XXXXXX", (int)(slash - path), path)
	                  : xstrdup(".cuplay-XXXXXX");
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		free(tmp);
		errno = e;
		return -1;
	}
	struct stat st;
	int had = lstat(path, &st) == 0 && S_ISREG(st.st_mode);
	mode_t mode = had ? st.st_mode & 07777 : 0666 & ~current_umask();
	/* the owner and group kept where this process may give them (root, or
	 * a group of its own); before the mode, which a change of owner clears */
	if (had && fchown(fd, st.st_uid, st.st_gid) != 0)
		(void)!fchown(fd, (uid_t)-1, st.st_gid);
	if (fchmod(fd, mode) != 0)
		goto bad;
	const char *p = data;
	size_t left = len;
	while (left > 0) {
		ssize_t w = write(fd, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto bad;
		}
		p += w;
		left -= (size_t)w;
	}
	if (fsync(fd) != 0 && errno != EINVAL)
		goto bad;
	if (close(fd) != 0) {
		fd = -1;
		goto bad;
	}
	if (rename(tmp, path) != 0) {
		fd = -1;
		goto bad;
	}
	free(tmp);
	return 0;
bad:;
	int saved = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	errno = saved;
	return -1;
}

int mkdir_p(const char *path, int mode)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(p, (mode_t)mode) != 0 && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	int r = mkdir(p, (mode_t)mode);
	free(p);
	if (r != 0 && errno != EEXIST)
		return -1;
	return 0;
}

uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double ms_since(uint64_t t0)
{
	return (double)(now_ns() - t0) / 1e6;
}

static int start_pthread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	return pthread_create(t, NULL, fn, arg);
}

int threads_run(int n, void *(*fn)(void *), void *args, size_t size, thread_start_fn start)
{
	if (n <= 0)
		return 0;
	pthread_t *th = xcalloc((size_t)n, sizeof *th);
	char *ok = xcalloc((size_t)n, 1);
	int started = 0;
	for (int i = 0; i < n; i++) {
		ok[i] = (start ? start : start_pthread)(&th[i], fn, (char *)args + (size_t)i * size) == 0;
		started += ok[i];
	}
	if (started == 0)
		fn(args);
	for (int i = 0; i < n; i++)
		if (ok[i])
			pthread_join(th[i], NULL);
	free(ok);
	free(th);
	return started;
}

char *str_trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t l = strlen(s);
	while (l && isspace((unsigned char)s[l - 1]))
		s[--l] = 0;
	return s;
}

uint64_t fnv1a64(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The slot of name in x: where it is, or the empty one where it would go. */
static int nix_slot(const name_ix *x, const char *name, size_t len)
{
	unsigned mask = (unsigned)x->cap - 1, h = (unsigned)fnv1a64(name, len) & mask;
	/* memcmp, never strncmp: name is often inside a whole file, which a
	 * checked strncmp would measure to its end at every call */
	while (x->e[h].key && !(strlen(x->e[h].key) == len && memcmp(x->e[h].key, name, len) == 0))
		h = (h + 1) & mask;
	return (int)h;
}

void nix_put(name_ix *x, const char *key, int val)
{
	if (2 * (x->n + 1) > x->cap) { /* at most half full: short probes */
		name_ix old = *x;
		x->cap = old.cap ? 2 * old.cap : 64;
		x->e = xcalloc((size_t)x->cap, sizeof *x->e);
		x->n = 0;
		for (int i = 0; i < old.cap; i++)
			if (old.e[i].key)
				nix_put(x, old.e[i].key, old.e[i].val);
		free(old.e);
	}
	int h = nix_slot(x, key, strlen(key));
	if (!x->e[h].key)
		x->n++;
	x->e[h] = (name_ix_entry){ key, val };
}

int nix_get(const name_ix *x, const char *name, size_t len)
{
	if (x->cap == 0)
		return -1;
	int h = nix_slot(x, name, len);
	return x->e[h].key ? x->e[h].val : -1;
}

void nix_free(name_ix *x)
{
	free(x->e);
	memset(x, 0, sizeof *x);
}

static int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 1000;
	int d[65][65];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int c = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			int v = d[i - 1][j - 1] + c;
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			/* two letters swapped is one typo: shwo -> show, gird -> grid */
			if (i > 1 && j > 1 && tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

/* How many leading characters a and b share, case aside. */
static size_t common_prefix(const char *a, const char *b)
{
	size_t i = 0;
	while (a[i] && tolower((unsigned char)a[i]) == tolower((unsigned char)b[i]))
		i++;
	return i;
}

/* 1 when the shorter of a and b (3 characters or more) is a whole part of
 * the longer, case aside: its start or its end, at a '_' (BLOCK against
 * BLOCK_SIZE, SIZE against TILE_SIZE). */
static int part_of(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > lb) {
		const char *t = a;
		a = b;
		b = t;
		size_t tl = la;
		la = lb;
		lb = tl;
	}
	if (la < 3 || la == lb)
		return 0;
	return (strncasecmp(a, b, la) == 0 && b[la] == '_') ||
	       (strncasecmp(a, b + lb - la, la) == 0 && b[lb - la - 1] == '_');
}

/* The nearest candidate: the fewest edits (a prefix of the candidate, or a
 * whole '_' part of it or it of s, counts as one); of candidates as near,
 * the one that shares the longest start with s (y -> yy rather than x),
 * then the first. */
const char *nearest_name(const char *s, const char *const *cands, int n)
{
	const char *best = NULL;
	int bestd = 1000;
	size_t bestp = 0;
	size_t ls = strlen(s);
	for (int i = 0; i < n; i++) {
		if (!cands[i])
			continue;
		int d = edit_distance(s, cands[i]);
		/* a prefix counts as close: `transpose_t` -> transpose_tiled */
		if ((ls >= 3 && strncmp(cands[i], s, ls) == 0) || part_of(s, cands[i]))
			d = d < 1 ? d : 1;
		size_t p = common_prefix(s, cands[i]);
		if (d < bestd || (d == bestd && p > bestp)) {
			bestd = d;
			bestp = p;
			best = cands[i];
		}
	}
	size_t limit = ls <= 4 ? 1 : ls <= 8 ? 2 : 3;
	return bestd <= (int)limit ? best : NULL;
}

static char *visible(const char *s, int keep_lines)
{
	sbuf b = {0};
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 || *p == 0x7f) && !(keep_lines && (*p == '\n' || *p == '\t')))
			sb_printf(&b, "\\x%02x", *p);
		else
			sb_putc(&b, (char)*p);
	return sb_steal(&b);
}

char *str_visible(const char *s)
{
	return visible(s, 0);
}

char *str_visible_text(const char *s)
{
	return visible(s, 1);
}

char *str_excerpt(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (max < 16)
		max = 16;
	if (n <= max)
		return str_visible(s);
	/* cut at character boundaries (never inside a UTF-8 sequence) */
	size_t head = max / 2, tail = n - (max - head - 5);
	while (head > 0 && ((unsigned char)s[head] & 0xC0) == 0x80)
		head--;
	while (tail < n && ((unsigned char)s[tail] & 0xC0) == 0x80)
		tail++;
	char *cut = xasprintf("%.*s ... %s", (int)head, s, s + tail);
	char *v = str_visible(cut);
	free(cut);
	return v;
}

char *str_excerpt_at(const char *s, size_t at, size_t max)
{
	size_t n = strlen(s);
	if (max < 16)
		max = 16;
	if (n <= max)
		return str_visible(s);
	if (at > n)
		at = n;
	size_t lo = at > max / 2 ? at - max / 2 : 0;
	size_t hi = lo + max < n ? lo + max : n;
	if (hi == n)
		lo = n - max;
	while (lo > 0 && ((unsigned char)s[lo] & 0xC0) == 0x80)
		lo--;
	while (hi < n && ((unsigned char)s[hi] & 0xC0) == 0x80)
		hi++;
	char *cut = xasprintf("%s%.*s%s", lo ? "... " : "", (int)(hi - lo), s + lo, hi < n ? " ..." : "");
	char *v = str_visible(cut);
	free(cut);
	return v;
}

int str_ieq(const char *a, const char *b)
{
	return strcasecmp(a, b) == 0;
}

int is_ident_start(int c)
{
	return c == '_' || isalpha(c);
}

int is_ident_char(int c)
{
	return c == '_' || isalnum(c);
}

void sb_wrap(sbuf *b, const char *text, int col, int indent, int width)
{
	const char *p = text;
	int first = 1;
	while (*p) {
		while (*p == ' ' || *p == '\n')
			p++;
		if (!*p)
			break;
		int l = (int)strcspn(p, " \n");
		if (!first && col + 1 + l > width) {
			sb_putc(b, '\n');
			for (int i = 0; i < indent; i++)
				sb_putc(b, ' ');
			col = indent;
		} else if (!first) {
			sb_putc(b, ' ');
			col++;
		}
		sb_add(b, p, (size_t)l);
		col += l;
		p += l;
		first = 0;
	}
}
