/* sanitize.c: compute-sanitizer's argv and its report, read back. */
#include "sanitize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#ifndef CUDA_HOME_DEFAULT
#define CUDA_HOME_DEFAULT "/usr/local/cuda"
#endif

static const char *const tool_names[] = { "memcheck", "racecheck", "initcheck", "synccheck" };

int san_tool_parse(const char *name, san_tool *tool, char **err)
{
	for (size_t i = 0; i < ARRAY_LEN(tool_names); i++) {
		if (strcmp(name, tool_names[i]) == 0) {
			*tool = (san_tool)i;
			return 0;
		}
	}
	const char *near = nearest_name(name, tool_names, (int)ARRAY_LEN(tool_names));
	if (near)
		return fail(err, "unknown sanitizer tool '%s' (did you mean '%s'?)", name, near);
	return fail(err, "unknown sanitizer tool '%s' (memcheck, racecheck, initcheck or synccheck)", name);
}

const char *san_tool_name(san_tool tool)
{
	return (unsigned)tool < ARRAY_LEN(tool_names) ? tool_names[tool] : "?";
}

/* ------------------------------------------------------------ finding */

static char *exec_in(const char *dir, const char *name)
{
	if (!dir || !*dir)
		return NULL;
	char *p = xasprintf("%s/%s", dir, name);
	struct stat st;
	if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0)
		return p;
	free(p);
	return NULL;
}

int san_find(char **path, char **why)
{
	*path = NULL;
	const char *home = getenv("CUDA_HOME");
	const char *homes[2] = { home && *home ? home : NULL, CUDA_HOME_DEFAULT };
	for (int h = 0; h < 2 && !*path; h++) {
		if (!homes[h])
			continue;
		char *bin = xasprintf("%s/bin", homes[h]);
		char *own = xasprintf("%s/compute-sanitizer", homes[h]);
		*path = exec_in(bin, "compute-sanitizer");
		if (!*path)
			*path = exec_in(own, "compute-sanitizer");
		free(bin);
		free(own);
	}
	const char *envpath = getenv("PATH");
	if (!*path && envpath) {
		char *copy = xstrdup(envpath);
		for (char *save = NULL, *d = strtok_r(copy, ":", &save); d && !*path; d = strtok_r(NULL, ":", &save))
			*path = exec_in(d, "compute-sanitizer");
		free(copy);
	}
	if (*path)
		return 0;
	return fail(why, "no compute-sanitizer in %s/bin or PATH (it comes with the CUDA toolkit; set CUDA_HOME)",
	            home && *home ? home : CUDA_HOME_DEFAULT);
}

/* ------------------------------------------------------------ argv */

/* The strings san_argv made itself sit after the NULL that ends argv,
 * then a second NULL: san_argv_free frees those and the array. */
char **san_argv(const char *sanitizer, san_tool tool, const char *log_file, const char *kernel,
                const char *const *target)
{
	int nt = 0;
	while (target && target[nt])
		nt++;
	int cap = 16 + nt + 4;
	char **v = xcalloc((size_t)cap, sizeof *v);
	char *owned[3] = { NULL, NULL, NULL };
	int n = 0;
	v[n++] = (char *)sanitizer;
	v[n++] = (char *)"--tool";
	v[n++] = (char *)san_tool_name(tool);
	if (log_file) {
		v[n++] = (char *)"--log-file";
		/* '%' is the sanitizer's escape in file names */
		sbuf b = {0};
		for (const char *p = log_file; *p; p++)
			sb_add(&b, *p == '%' ? "%%" : p, *p == '%' ? 2 : 1);
		owned[0] = sb_steal(&b);
		v[n++] = owned[0];
	}
	v[n++] = (char *)"--print-limit";
	v[n++] = (char *)"20";
	v[n++] = (char *)"--show-backtrace";
	v[n++] = (char *)"device";
	if (kernel && *kernel) {
		v[n++] = (char *)"--kernel-name";
		owned[1] = xasprintf("kne=%s", kernel);
		v[n++] = owned[1];
	}
	for (int i = 0; i < nt; i++)
		v[n++] = (char *)target[i];
	v[n++] = NULL;
	for (int i = 0; i < 3; i++)
		if (owned[i])
			v[n++] = owned[i];
	v[n] = NULL;
	return v;
}

void san_argv_free(char **argv)
{
	if (!argv)
		return;
	int i = 0;
	while (argv[i])
		i++;
	for (i++; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* ------------------------------------------------------------ parsing */

#define PREFIX "========="

/* Writes s[0..len) at dst+at, truncated to fit cap, terminated. */
static void put(char *dst, size_t cap, size_t at, const char *s, size_t len)
{
	if (cap == 0 || at >= cap)
		return;
	if (len > cap - 1 - at)
		len = cap - 1 - at;
	memcpy(dst + at, s, len);
	dst[at + len] = 0;
}

static void copy_trim(char *dst, size_t n, const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t len = strcspn(s, "\r\n");
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	put(dst, n, 0, s, len);
}

static void append(char *dst, size_t n, const char *s)
{
	size_t len = strlen(dst);
	if (len)
		put(dst, n, len++, " ", 1);
	put(dst, n, len, s, strlen(s));
}

/* "[508 hazards]" at the end of a line: 508, and the line without it. */
static long take_hazards(char *s)
{
	char *b = strrchr(s, '[');
	if (!b || !strstr(b, "hazard"))
		return 0;
	long n = strtol(b + 1, NULL, 10);
	while (b > s && b[-1] == ' ')
		b--;
	*b = 0;
	return n;
}

static int starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static void summary_add(san_report *r, const char *line)
{
	if (starts(line, "ERROR SUMMARY:") && r->errors < 0)
		r->errors = strtol(line + 14, NULL, 10);
	size_t len = strlen(r->summary);
	if (len) {
		put(r->summary, sizeof r->summary, len, "; ", 2);
		len += 2;
	}
	put(r->summary, sizeof r->summary, len, line, strlen(line));
}

/* The last " at " in s, or NULL. */
static char *last_at(char *s)
{
	char *found = NULL;
	for (char *q = strstr(s, " at "); q; q = strstr(q + 1, " at "))
		found = q;
	return found;
}

/* Folds the block into the report: the same what + where adds up. */
static void commit(san_report *r, san_issue *cur, int *open)
{
	if (!*open)
		return;
	*open = 0;
	r->reports++;
	for (int i = 0; i < r->nissues; i++) {
		san_issue *x = &r->issues[i];
		if (strcmp(x->what, cur->what) == 0 && strcmp(x->where, cur->where) == 0) {
			x->count++;
			x->hazards += cur->hazards;
			return;
		}
	}
	if (r->nissues < SAN_MAX_ISSUES) {
		cur->count = 1;
		r->issues[r->nissues++] = *cur;
	}
}

int san_parse(const char *text, san_report *r)
{
	memset(r, 0, sizeof *r);
	r->errors = -1;
	if (!text)
		return -1;
	san_issue cur;
	memset(&cur, 0, sizeof cur);
	int open = 0, seen = 0, details = 0;
	const char *p = text;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		char line[1024];
		put(line, sizeof line, 0, p, n);
		p = eol ? eol + 1 : p + n;
		const char *s = line;
		while (*s == ' ')
			s++;
		if (!starts(s, PREFIX))
			continue; /* the program's own output */
		seen = 1;
		s += strlen(PREFIX);
		int indent = 0;
		while (s[indent] == ' ')
			indent++;
		const char *body = s + indent;
		if (!*body) {
			commit(r, &cur, &open);
			continue;
		}
		if (indent <= 2) {
			/* a headline: a new report, a summary, or the banner */
			commit(r, &cur, &open);
			if (strcmp(body, "COMPUTE-SANITIZER") == 0)
				continue;
			if (strstr(body, "SUMMARY:")) {
				char t[300];
				copy_trim(t, sizeof t, body);
				summary_add(r, t);
				continue;
			}
			memset(&cur, 0, sizeof cur);
			open = 1;
			details = 0;
			char t[600];
			copy_trim(t, sizeof t, body);
			cur.hazards = take_hazards(t);
			/* racecheck and synccheck put the place on the headline */
			char *at = NULL;
			if (strstr(t, "Race reported between"))
				at = strstr(t, " at ");          /* "... Write access at f()+0x90 in k.cu:41" */
			else if (strstr(t, "called by threads"))
				at = last_at(t);                 /* "... starting at (32,0,0) ... at f()+0x2b0 in k.cu:36" */
			if (at) {
				copy_trim(cur.where, sizeof cur.where, at + 4);
				*at = 0;
			}
			size_t tl = strlen(t);
			while (tl > 0 && (t[tl - 1] == ':' || t[tl - 1] == ' '))
				t[--tl] = 0;
			copy_trim(cur.what, sizeof cur.what, t);
			continue;
		}
		if (!open)
			continue;
		char t[600];
		copy_trim(t, sizeof t, body);
		long hz = take_hazards(t);
		cur.hazards += hz;
		if (starts(t, "at ") && !cur.where[0]) {
			copy_trim(cur.where, sizeof cur.where, t + 3);
		} else if (starts(t, "by thread ")) {
			copy_trim(cur.thread, sizeof cur.thread, t + 3);
		} else if (starts(t, "and ") && strstr(t, " access at ")) {
			/* racecheck: "and Read access at f()+0x100 in k.cu:51" */
			append(cur.detail, sizeof cur.detail, t);
		} else if (starts(t, "Address ") || starts(t, "and is ") || starts(t, "Not written") ||
		           starts(t, "Write Thread") || starts(t, "Read Thread") || strstr(t, "% of")) {
			if (details++ < 3)
				append(cur.detail, sizeof cur.detail, t);
		}
		/* Saved host backtrace, Host Frame, Device Frame, Current Value: dropped */
	}
	commit(r, &cur, &open);
	return seen ? 0 : -1;
}

char *san_format(const san_report *r, san_tool tool)
{
	sbuf b = {0};
	const char *name = san_tool_name(tool);
	if (r->nissues == 0) {
		sb_printf(&b, "%s: no problems found", name);
		if (r->summary[0])
			sb_printf(&b, " (%s)", r->summary);
		sb_putc(&b, '\n');
		return sb_steal(&b);
	}
	sb_printf(&b, "%s: %d problem%s", name, r->nissues, r->nissues == 1 ? "" : "s");
	if (r->summary[0])
		sb_printf(&b, " (%s)", r->summary);
	sb_putc(&b, '\n');
	for (int i = 0; i < r->nissues; i++) {
		const san_issue *x = &r->issues[i];
		sb_printf(&b, "  %s", x->what);
		if (x->where[0])
			sb_printf(&b, " at %s", x->where);
		sb_putc(&b, '\n');
		sbuf d = {0};
		if (x->count > 1)
			sb_printf(&d, "%d reports", x->count);
		if (x->hazards > 0)
			sb_printf(&d, "%s%ld hazard%s", d.len ? ", " : "", x->hazards, x->hazards == 1 ? "" : "s");
		if (x->thread[0])
			sb_printf(&d, "%s%s%s", d.len ? ", " : "", x->count > 1 ? "first " : "", x->thread);
		if (x->detail[0])
			sb_printf(&d, "%s%s", d.len ? "; " : "", x->detail);
		if (d.len)
			sb_printf(&b, "    %s\n", d.s);
		sb_free(&d);
	}
	return sb_steal(&b);
}
