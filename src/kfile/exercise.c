/* exercise.c: an exercise file parsed (exercise.h says its format). */
#include "exercise.h"

#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_NAME, K_TITLE, K_FILE, K_KERNEL, K_BASELINE, K_SIZES, K_CHECK_SIZES, K_TOLERANCE, K_RANK_BY,
       K_LIMITS, K_FRESH_SEEDS, K_COUNT };
static const char *const key_names[K_COUNT] = {
	"name", "title", "file", "kernel", "baseline", "sizes", "check_sizes", "tolerance", "rank_by",
	"limits", "fresh_seeds",
};
static const int key_required[K_COUNT] = { 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0 };

/* the line being read, for its errors */
typedef struct exline {
	const char *path;
	const char *bol;   /* the line's first character */
	int line;
	char *err;
	size_t errlen;
} exline;

static int PRINTF_LIKE(3, 4) ex_err(exline *x, const char *at, const char *fmt, ...)
{
	int n = snprintf(x->err, x->errlen, "%s:%d:%d: ", x->path, x->line, (int)(at - x->bol) + 1);
	if (n < 0 || (size_t)n >= x->errlen)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->err + n, x->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* a positive integer from [p, end) into *v: 0, or -1 */
static int whole_number(const char *p, const char *end, long long max, long long *v)
{
	if (p == end || *p < '0' || *p > '9')
		return -1;
	long long r = 0;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9' || r > max / 10)
			return -1;
		r = r * 10 + (*p - '0');
		if (r > max)
			return -1;
	}
	*v = r;
	return r > 0 ? 0 : -1;
}

/* a word of [p, end) copied into out[len]: 0, or -1 (too long) */
static int copy_word(exline *x, const char *p, const char *end, char *out, size_t len, const char *what)
{
	if ((size_t)(end - p) >= len)
		return ex_err(x, p, "%s too long (at most %zu characters)", what, len - 1);
	memcpy(out, p, (size_t)(end - p));
	out[end - p] = 0;
	return 0;
}

/* NAME=VALUE[,NAME=VALUE...] in [p, end) into *s */
static int parse_size(exline *x, const char *p, const char *end, struct ex_size *s)
{
	s->n = 0;
	while (p < end) {
		const char *q = p;
		if (!is_ident_start((unsigned char)*q))
			return ex_err(x, p, "expected NAME=VALUE in a size, got '%.*s'", (int)(end - p), p);
		while (q < end && is_ident_char((unsigned char)*q))
			q++;
		if (q == end || *q != '=')
			return ex_err(x, q, "expected '=' after '%.*s' in a size", (int)(q - p), p);
		const char *v = q + 1, *ve = v;
		while (ve < end && *ve != ',')
			ve++;
		if (s->n == EX_MAX_ASSIGN)
			return ex_err(x, p, "too many values in one size (at most %d)", EX_MAX_ASSIGN);
		struct ex_assign *a = &s->v[s->n];
		if (copy_word(x, p, q, a->name, sizeof a->name, "a param's name") != 0)
			return -1;
		for (int i = 0; i < s->n; i++)
			if (strcmp(s->v[i].name, a->name) == 0)
				return ex_err(x, p, "'%s' twice in one size", a->name);
		if (whole_number(v, ve, (long long)1 << 40, &a->value) != 0)
			return ex_err(x, v, "expected a positive whole number for '%s', got '%.*s'", a->name,
			              (int)(ve - v), v);
		s->n++;
		p = ve < end ? ve + 1 : ve;
		if (ve < end && p == end)
			return ex_err(x, ve, "expected NAME=VALUE after ','");
	}
	return 0;
}

/* the words of [p, end), each a size */
static int parse_check_sizes(exline *x, const char *p, const char *end, struct exercise *ex)
{
	while (p < end) {
		const char *w = p;
		while (w < end && !is_blank(*w))
			w++;
		if (ex->nchecks == EX_MAX_CHECK_SIZES)
			return ex_err(x, p, "too many check sizes (at most %d)", EX_MAX_CHECK_SIZES);
		if (parse_size(x, p, w, &ex->checks[ex->nchecks]) != 0)
			return -1;
		ex->nchecks++;
		for (p = w; p < end && is_blank(*p); p++)
			;
	}
	return 0;
}

/* time=S memory=MIB source=BYTES, each once, all three */
static int parse_limits(exline *x, const char *p, const char *end, struct exercise *ex)
{
	static const char *const names[] = { "time", "memory", "source" };
	static const long long max[] = { 86400, 1 << 30, 16 << 20 };
	int seen[3] = { 0 };
	while (p < end) {
		const char *w = p, *eq;
		while (w < end && !is_blank(*w))
			w++;
		for (eq = p; eq < w && *eq != '='; eq++)
			;
		int k = 0;
		while (k < 3 && !((size_t)(eq - p) == strlen(names[k]) && memcmp(p, names[k], (size_t)(eq - p)) == 0))
			k++;
		if (k == 3 || eq == w)
			return ex_err(x, p, "expected time=SECONDS, memory=MIB or source=BYTES, got '%.*s'",
			              (int)(w - p), p);
		if (seen[k])
			return ex_err(x, p, "'%s' twice in limits", names[k]);
		seen[k] = 1;
		long long v;
		if (whole_number(eq + 1, w, max[k], &v) != 0)
			return ex_err(x, eq + 1, "expected a whole number from 1 to %lld for '%s'", max[k], names[k]);
		if (k == 0)
			ex->time_limit_s = (int)v;
		else if (k == 1)
			ex->mem_limit_mb = (long)v;
		else
			ex->source_limit = (long)v;
		for (p = w; p < end && is_blank(*p); p++)
			;
	}
	for (int k = 0; k < 3; k++)
		if (!seen[k])
			return ex_err(x, end, "limits: missing %s=", names[k]);
	return 0;
}

/* a name of [a-z0-9_-] or a C identifier, per key */
static int parse_word(exline *x, int key, const char *p, const char *end, struct exercise *ex)
{
	for (const char *q = p; q < end; q++) {
		int ok = key == K_NAME ? ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') || *q == '_' || *q == '-')
		                       : (q == p ? is_ident_start((unsigned char)*q) : is_ident_char((unsigned char)*q));
		if (!ok)
			return ex_err(x, q, key == K_NAME ? "a name is lowercase letters, digits, '_' and '-', got '%.*s'"
			                                   : "expected a kernel's name, got '%.*s'", (int)(end - p), p);
	}
	if (key == K_NAME)
		return copy_word(x, p, end, ex->name, sizeof ex->name, "the name");
	if (key == K_KERNEL)
		return copy_word(x, p, end, ex->kernel, sizeof ex->kernel, "the kernel's name");
	return copy_word(x, p, end, ex->baseline, sizeof ex->baseline, "the baseline's name");
}

static int parse_file(exline *x, const char *p, const char *end, struct exercise *ex)
{
	size_t n = (size_t)(end - p);
	if (*p == '/' || n < 4 || memcmp(end - 3, ".cu", 3) != 0)
		return ex_err(x, p, "expected a kernel file's name in kernels_src/ (NAME.cu), got '%.*s'", (int)n, p);
	for (const char *q = p; q < end; q++)
		if (*q == '/' || is_blank(*q))
			return ex_err(x, q, "the file is a name in kernels_src/, without folders or blanks");
	return copy_word(x, p, end, ex->file, sizeof ex->file, "the file's name");
}

static int parse_value(exline *x, int key, const char *p, const char *end, struct exercise *ex)
{
	char num[64];
	switch (key) {
	case K_NAME: case K_KERNEL: case K_BASELINE:
		return parse_word(x, key, p, end, ex);
	case K_TITLE:
		return copy_word(x, p, end, ex->title, sizeof ex->title, "the title");
	case K_FILE:
		return parse_file(x, p, end, ex);
	case K_SIZES:
		return parse_size(x, p, end, &ex->timed);
	case K_CHECK_SIZES:
		return parse_check_sizes(x, p, end, ex);
	case K_LIMITS:
		return parse_limits(x, p, end, ex);
	case K_RANK_BY:
		if ((size_t)(end - p) == 9 && memcmp(p, "median_ms", 9) == 0)
			ex->rank_by = EX_RANK_MEDIAN;
		else if ((size_t)(end - p) == 7 && memcmp(p, "speedup", 7) == 0)
			ex->rank_by = EX_RANK_SPEEDUP;
		else
			return ex_err(x, p, "expected 'median_ms' or 'speedup' after rank_by, got '%.*s'", (int)(end - p), p);
		return 0;
	case K_TOLERANCE: {
		char *e;
		if ((size_t)(end - p) >= sizeof num)
			return ex_err(x, p, "expected a positive number after tolerance");
		memcpy(num, p, (size_t)(end - p));
		num[end - p] = 0;
		errno = 0;
		double v = strtod(num, &e);
		if (*e || errno || !(v > 0) || v > 1e30)
			return ex_err(x, p, "expected a positive number after tolerance, got '%s'", num);
		ex->tolerance = v;
		return 0;
	}
	default: { /* K_FRESH_SEEDS */
		long long v;
		if (whole_number(p, end, 8, &v) != 0)
			return ex_err(x, p, "expected a whole number from 1 to 8 after fresh_seeds, got '%.*s'",
			              (int)(end - p), p);
		ex->fresh_seeds = (int)v;
		return 0;
	}
	}
}

/* one line [p, end): blank, a comment, or KEY VALUE */
static int parse_line(exline *x, const char *p, const char *end, struct exercise *ex, int *seen)
{
	while (p < end && is_blank(*p))
		p++;
	for (const char *q = p; q < end; q++)
		if (*q == '#' && (q == p || (is_blank(q[-1]) && (q + 1 == end || is_blank(q[1]))))) {
			end = q;
			break;
		}
	while (end > p && is_blank(end[-1]))
		end--;
	if (p == end)
		return 0;
	const char *k = p;
	while (p < end && !is_blank(*p))
		p++;
	int key = 0;
	while (key < K_COUNT && !((size_t)(p - k) == strlen(key_names[key]) && memcmp(k, key_names[key], (size_t)(p - k)) == 0))
		key++;
	if (key == K_COUNT)
		return ex_err(x, k, "unknown key '%.*s' (keys: name, title, file, kernel, baseline, sizes, check_sizes, "
		              "tolerance, rank_by, limits, fresh_seeds)", (int)(p - k), k);
	if (seen[key])
		return ex_err(x, k, "duplicate '%s' (first at line %d)", key_names[key], seen[key]);
	seen[key] = x->line;
	while (p < end && is_blank(*p))
		p++;
	if (p == end)
		return ex_err(x, p, "expected a value after '%s'", key_names[key]);
	return parse_value(x, key, p, end, ex);
}

int exercise_parse(const char *text, const char *path, struct exercise *ex, char *err, size_t errlen)
{
	memset(ex, 0, sizeof *ex);
	ex->fresh_seeds = 1;
	exline x = { .path = path, .bol = text, .line = 1, .err = err, .errlen = errlen };
	int seen[K_COUNT] = { 0 };
	for (const char *p = text;; x.line++) {
		const char *nl = strchr(p, '\n');
		const char *end = nl ? nl : p + strlen(p);
		x.bol = p;
		for (const char *q = p; q < end; q++)
			if ((unsigned char)*q < 0x20 && *q != '\t' && *q != '\r')
				return ex_err(&x, q, "a control character in the file");
		if (parse_line(&x, p, end, ex, seen) != 0)
			return -1;
		if (!nl)
			break;
		p = nl + 1;
	}
	for (int k = 0; k < K_COUNT; k++)
		if (key_required[k] && !seen[k]) {
			snprintf(err, errlen, "%s: missing '%s'", path, key_names[k]);
			return -1;
		}
	if (strcmp(ex->kernel, ex->baseline) == 0) {
		x.line = seen[K_BASELINE];
		snprintf(err, errlen, "%s:%d:1: the baseline is the kernel to write ('%s'): name another", path,
		         seen[K_BASELINE], ex->kernel);
		return -1;
	}
	return 0;
}

int exercise_load(const char *path, struct exercise *ex, char *err, size_t errlen)
{
	char *text = NULL;
	size_t n = 0;
	if (read_file_max(path, &text, &n, 1 << 20) != 0) {
		snprintf(err, errlen, "cannot read exercise '%s': %s", path, strerror(errno));
		return -1;
	}
	if (strlen(text) != n) {
		snprintf(err, errlen, "%s: a NUL byte in the file", path);
		free(text);
		return -1;
	}
	int rc = exercise_parse(text, path, ex, err, errlen);
	free(text);
	return rc;
}

const char *exercise_rank_name(enum ex_rank r)
{
	return r == EX_RANK_SPEEDUP ? "speedup" : "median_ms";
}

void exercise_size_text(const struct ex_size *s, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = 0;
	for (int i = 0; i < s->n && at < len; i++) {
		int n = snprintf(buf + at, len - at, "%s%s=%lld", i ? ", " : "", s->v[i].name, s->v[i].value);
		if (n < 0)
			break;
		at += (size_t)n;
	}
}
