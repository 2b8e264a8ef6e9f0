/* sass.c: SASS by nvdisasm or cuobjdump, PTX of one kernel, counts. */
#include "sass.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "util.h"

#ifndef CUDA_HOME_DEFAULT
#define CUDA_HOME_DEFAULT "/usr/local/cuda"
#endif


/* ---------------------------------------------------------- lines */

typedef struct lines {
	char **v;
	int n, cap;
	char *buf;
} lines;

/* Splits a copy of text into lines (without '\n' or '\r'). */
static void lines_split(lines *l, const char *text)
{
	memset(l, 0, sizeof *l);
	l->buf = xstrdup(text ? text : "");
	char *p = l->buf;
	while (*p) {
		char *e = strchr(p, '\n');
		if (e)
			*e = 0;
		size_t n = strlen(p);
		if (n && p[n - 1] == '\r')
			p[n - 1] = 0;
		if (l->n == l->cap) {
			l->cap = l->cap ? l->cap * 2 : 256;
			l->v = xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
		}
		l->v[l->n++] = p;
		if (!e)
			break;
		p = e + 1;
	}
}

static void lines_free(lines *l)
{
	free(l->v);
	free(l->buf);
	memset(l, 0, sizeof *l);
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* ---------------------------------------------------------- sources */

/* Line `line` (1-based) of the source `file`, trimmed, into buf; 0 when
 * there is no such source or line. */
static int source_line(const sass_src *srcs, int nsrcs, const char *file, int line, char *buf, int n)
{
	const sass_src *s = NULL;
	for (int i = 0; i < nsrcs && !s; i++)
		if (srcs[i].name && strcmp(srcs[i].name, file) == 0)
			s = &srcs[i];
	for (int i = 0; i < nsrcs && !s; i++)
		if (srcs[i].name && strcmp(base_name(srcs[i].name), base_name(file)) == 0)
			s = &srcs[i];
	if (!s || !s->text || line <= 0)
		return 0;
	const char *p = s->text;
	for (int k = 1; k < line; k++) {
		p = strchr(p, '\n');
		if (!p)
			return 0;
		p++;
	}
	p = skip_ws(p);
	size_t len = strcspn(p, "\r\n");
	while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
		len--;
	snprintf(buf, (size_t)n, "%.*s", (int)len, p);
	return 1;
}

/* "// k.cu:17  int i = ...;" */
static void annotate(sbuf *b, const sass_src *srcs, int nsrcs, const char *file, int line)
{
	char text[512];
	if (source_line(srcs, nsrcs, file, line, text, sizeof text) && text[0])
		sb_printf(b, "        // %s:%d  %s\n", base_name(file), line, text);
	else
		sb_printf(b, "        // %s:%d\n", base_name(file), line);
}

/* ---------------------------------------------------------- extraction */

/* 1 when line is "NAME:" (a label of exactly that name). */
static int is_label_of(const char *line, const char *name)
{
	line = skip_ws(line);
	size_t n = strlen(name);
	return strncmp(line, name, n) == 0 && line[n] == ':' && *skip_ws(line + n + 1) == 0;
}

/* cuobjdump: "		Function : NAME" */
static int is_function_header(const char *line, const char **name)
{
	line = skip_ws(line);
	if (strncmp(line, "Function :", 10) != 0)
		return 0;
	*name = skip_ws(line + 10);
	return 1;
}

char *sass_extract(const char *listing, const char *lowered, sass_tool kind)
{
	if (!listing || !lowered || !*lowered)
		return NULL;
	lines l;
	lines_split(&l, listing);
	sbuf b = {0};
	int found = 0;
	if (kind == SASS_CUOBJDUMP) {
		for (int i = 0; i < l.n && !found; i++) {
			const char *name;
			if (!is_function_header(l.v[i], &name) || strcmp(name, lowered) != 0)
				continue;
			found = 1;
			for (int j = i + 1; j < l.n; j++) {
				const char *t = skip_ws(l.v[j]);
				if (is_function_header(l.v[j], &name) || strncmp(t, "......", 6) == 0 ||
				    strncmp(t, "Fatbin ", 7) == 0 || strncmp(t, "code for ", 9) == 0)
					break;
				if (strncmp(t, ".headerflags", 12) == 0)
					continue;
				sb_puts(&b, l.v[j]);
				sb_putc(&b, '\n');
			}
		}
	} else {
		for (int i = 0; i < l.n && !found; i++) {
			if (!is_label_of(l.v[i], lowered))
				continue;
			found = 1;
			for (int j = i + 1; j < l.n; j++) {
				const char *t = skip_ws(l.v[j]);
				if (strncmp(t, "//----", 6) == 0 || strncmp(t, ".section", 8) == 0)
					break;
				if (t[0] == '.' && strncmp(t, ".text.", 6) == 0 && t[strlen(t) - 1] == ':')
					continue; /* the section's own label */
				sb_puts(&b, l.v[j]);
				sb_putc(&b, '\n');
			}
		}
	}
	lines_free(&l);
	if (!found) {
		sb_free(&b);
		return NULL;
	}
	return sb_steal(&b);
}

/* ---------------------------------------------------------- instructions */

typedef struct insn {
	unsigned offset;
	char pred[16];     /* "@P0", "@!PT", or "" */
	char text[400];    /* opcode and operands, up to and with ';' */
	char op[48];       /* opcode with modifiers: "LDG.E.128" */
} insn;

/* Parses a tool's instruction line: the offset in a comment, an optional
 * predicate, the instruction up to ';', maybe its encoding in a comment:
 *     / *0110* /   @P0 LDG.E.128 R4, desc[UR6][R6.64] ;   (without the spaces) */
static int parse_insn(const char *line, insn *in)
{
	const char *p = skip_ws(line);
	if (p[0] != '/' || p[1] != '*')
		return 0;
	char *end;
	unsigned long off = strtoul(p + 2, &end, 16);
	if (end == p + 2 || end[0] != '*' || end[1] != '/')
		return 0;
	memset(in, 0, sizeof *in);
	in->offset = (unsigned)off;
	p = skip_ws(end + 2);
	if (*p == '{') /* a VLIW pair opener on old architectures */
		p = skip_ws(p + 1);
	if (*p == '@') {
		size_t n = strcspn(p, " \t");
		snprintf(in->pred, sizeof in->pred, "%.*s", (int)n, p);
		p = skip_ws(p + n);
	}
	if (!*p || (p[0] == '/' && p[1] == '*'))
		return 0; /* an encoding-only line */
	size_t n = strcspn(p, ";");
	if (p[n] == ';')
		n++;
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	snprintf(in->text, sizeof in->text, "%.*s", (int)n, p);
	size_t k = strcspn(p, " \t;");
	snprintf(in->op, sizeof in->op, "%.*s", (int)k, p);
	return 1;
}

/* An instruction line of a tool's listing, or of sass_tidy's:
 * "  0110    @P0 LDG.E.128 R4, desc[UR6][R6.64] ;" */
static int parse_any(const char *line, insn *in)
{
	if (parse_insn(line, in))
		return 1;
	const char *t = skip_ws(line);
	size_t hex = strspn(t, "0123456789abcdefABCDEF");
	if (hex == 0 || hex > 8 || (t[hex] != ' ' && t[hex] != '\t'))
		return 0;
	char buf[600];
	snprintf(buf, sizeof buf, "/*%.*s*/%s", (int)hex, t, t + hex);
	return parse_insn(buf, in);
}

static int op_is(const char *op, const char *base)
{
	size_t n = strlen(base);
	return strncmp(op, base, n) == 0 && (op[n] == 0 || op[n] == '.');
}

/* 1 when the opcode's modifiers include ".M" exactly. */
static int has_mod(const char *op, const char *m)
{
	size_t n = strlen(m);
	for (const char *p = strchr(op, '.'); p; p = strchr(p + 1, '.'))
		if (strncmp(p + 1, m, n) == 0 && (p[1 + n] == 0 || p[1 + n] == '.'))
			return 1;
	return 0;
}

static unsigned width_bits(const char *op)
{
	if (has_mod(op, "128"))
		return 128;
	if (has_mod(op, "64"))
		return 64;
	if (has_mod(op, "U8") || has_mod(op, "S8"))
		return 8;
	if (has_mod(op, "U16") || has_mod(op, "S16"))
		return 16;
	return 32;
}

void sass_count(const char *listing, sass_counts *c)
{
	memset(c, 0, sizeof *c);
	lines l;
	lines_split(&l, listing);
	int nops = 0; /* NOPs since the last other instruction: trailing padding */
	for (int i = 0; i < l.n; i++) {
		insn in;
		if (!parse_any(l.v[i], &in))
			continue;
		if (op_is(in.op, "NOP")) {
			nops++;
			continue;
		}
		c->instructions += nops + 1;
		nops = 0;
		const char *op = in.op;
		if (op_is(op, "LDG") || op_is(op, "LD")) { /* LD: a generic address */
			c->ld_global++;
			c->ld_global_bits |= width_bits(op);
		} else if (op_is(op, "LDGSTS")) {          /* cp.async: global to shared */
			c->ld_global++;
			c->ld_global_bits |= width_bits(op);
			c->st_shared++;
			c->st_shared_bits |= width_bits(op);
		} else if (op_is(op, "STG") || op_is(op, "ST")) {
			c->st_global++;
			c->st_global_bits |= width_bits(op);
		} else if (op_is(op, "LDS") || op_is(op, "LDSM")) {
			c->ld_shared++;
			c->ld_shared_bits |= width_bits(op);
		} else if (op_is(op, "STS")) {
			c->st_shared++;
			c->st_shared_bits |= width_bits(op);
		} else if (op_is(op, "LDL")) {
			c->ld_local++;
		} else if (op_is(op, "STL")) {
			c->st_local++;
		} else if (op_is(op, "LDC") || op_is(op, "ULDC")) {
			c->ld_const++;
		} else if (op_is(op, "BAR")) {
			c->barriers++;
		} else if (op_is(op, "ATOM") || op_is(op, "ATOMG") || op_is(op, "ATOMS") || op_is(op, "RED") ||
		           op_is(op, "REDG")) {
			c->atomics++;
		}
	}
	lines_free(&l);
}

static void widths(sbuf *b, unsigned bits)
{
	static const unsigned w[] = { 8, 16, 32, 64, 128 };
	int first = 1;
	sb_puts(b, " (");
	for (size_t i = 0; i < ARRAY_LEN(w); i++) {
		if (!(bits & w[i]))
			continue;
		sb_printf(b, "%s%u", first ? "" : "/", w[i]);
		first = 0;
	}
	sb_puts(b, "-bit)");
}

static void ldst(sbuf *b, const char *what, int ld, unsigned ldbits, int st, unsigned stbits)
{
	sb_printf(b, "; %s: ", what);
	if (!ld && !st) {
		sb_puts(b, "none");
		return;
	}
	sb_printf(b, "%d load%s", ld, ld == 1 ? "" : "s");
	if (ld && ldbits)
		widths(b, ldbits);
	sb_printf(b, ", %d store%s", st, st == 1 ? "" : "s");
	if (st && stbits)
		widths(b, stbits);
}

void sass_summary(const sass_counts *c, char *buf, int n)
{
	sbuf b = {0};
	sb_printf(&b, "%d instruction%s", c->instructions, c->instructions == 1 ? "" : "s");
	ldst(&b, "global", c->ld_global, c->ld_global_bits, c->st_global, c->st_global_bits);
	ldst(&b, "shared", c->ld_shared, c->ld_shared_bits, c->st_shared, c->st_shared_bits);
	ldst(&b, "local", c->ld_local, 0, c->st_local, 0);
	if (c->barriers)
		sb_printf(&b, "; %d barrier%s", c->barriers, c->barriers == 1 ? "" : "s");
	if (c->atomics)
		sb_printf(&b, "; %d atomic%s", c->atomics, c->atomics == 1 ? "" : "s");
	snprintf(buf, (size_t)n, "%s", b.s ? b.s : "");
	sb_free(&b);
}

/* ---------------------------------------------------------- tidy */

/* `//## File "path", line 17` (and `... inlined at ...`): file and line. */
static int parse_file_line(const char *t, char *file, int nfile, int *line)
{
	t = skip_ws(t);
	if (strncmp(t, "//## File \"", 11) != 0)
		return 0;
	t += 11;
	const char *q = strchr(t, '"');
	if (!q)
		return 0;
	snprintf(file, (size_t)nfile, "%.*s", (int)(q - t), t);
	const char *l = strstr(q, ", line ");
	if (!l)
		return 0;
	*line = atoi(l + 7);
	return *line > 0;
}

char *sass_tidy(const char *func, const sass_src *srcs, int nsrcs)
{
	lines l;
	lines_split(&l, func);
	/* the end of the real code: the last instruction that is not a NOP */
	int last = -1;
	for (int i = 0; i < l.n; i++) {
		insn in;
		if (parse_insn(l.v[i], &in) && !op_is(in.op, "NOP"))
			last = i;
	}
	sbuf b = {0};
	char pend_file[512] = "", shown_file[512] = "";
	int pend_line = 0, shown_line = 0;
	for (int i = 0; i <= last; i++) {
		const char *t = skip_ws(l.v[i]);
		char file[512];
		int line;
		insn in;
		if (parse_file_line(t, file, sizeof file, &line)) {
			snprintf(pend_file, sizeof pend_file, "%s", file);
			pend_line = line;
			continue;
		}
		if (parse_insn(l.v[i], &in)) {
			if (pend_line && (pend_line != shown_line || strcmp(pend_file, shown_file) != 0)) {
				annotate(&b, srcs, nsrcs, pend_file, pend_line);
				snprintf(shown_file, sizeof shown_file, "%s", pend_file);
				shown_line = pend_line;
			}
			pend_line = 0;
			sb_printf(&b, "  %04x  %5s %s\n", in.offset, in.pred, in.text);
			continue;
		}
		if (t[0] == '.' && t[strlen(t) - 1] == ':') {
			sb_printf(&b, "%s\n", t); /* a branch target label */
			continue;
		}
		/* encodings, blank lines, directives: dropped */
	}
	lines_free(&l);
	return sb_steal(&b);
}

/* ---------------------------------------------------------- PTX */

/* 1 when line declares entry `name`: ".visible .entry NAME(" */
static int is_entry_of(const char *line, const char *name)
{
	const char *e = strstr(line, ".entry");
	if (!e)
		return 0;
	const char *p = skip_ws(e + 6);
	size_t n = strlen(name);
	return strncmp(p, name, n) == 0 && (*skip_ws(p + n) == '(' || *skip_ws(p + n) == 0);
}

char *ptx_extract(const char *ptx, const char *lowered, const sass_src *srcs, int nsrcs)
{
	if (!ptx || !lowered || !*lowered)
		return NULL;
	lines l;
	lines_split(&l, ptx);
	/* the .file table: ".file	1 \"path\"" (maybe with a timestamp and size) */
	enum { MAXF = 64 };
	char *files[MAXF] = {0};
	for (int i = 0; i < l.n; i++) {
		const char *t = skip_ws(l.v[i]);
		if (strncmp(t, ".file", 5) != 0 || (t[5] != ' ' && t[5] != '\t'))
			continue;
		int id = atoi(skip_ws(t + 5));
		const char *q = strchr(t, '"');
		const char *q2 = q ? strchr(q + 1, '"') : NULL;
		if (id > 0 && id < MAXF && q2 && !files[id])
			files[id] = xstrndup(q + 1, (size_t)(q2 - q - 1));
	}
	int start = -1;
	for (int i = 0; i < l.n && start < 0; i++)
		if (is_entry_of(l.v[i], lowered))
			start = i;
	if (start < 0) {
		for (int i = 0; i < MAXF; i++)
			free(files[i]);
		lines_free(&l);
		return NULL;
	}
	sbuf b = {0};
	int depth = 0, opened = 0, shown_file = 0, shown_line = 0;
	for (int i = start; i < l.n; i++) {
		const char *t = skip_ws(l.v[i]);
		if (strncmp(t, ".loc", 4) == 0 && (t[4] == ' ' || t[4] == '\t')) {
			char *end;
			long f = strtol(t + 4, &end, 10);
			long ln = strtol(end, NULL, 10);
			if ((f != shown_file || ln != shown_line) && ln > 0) {
				const char *fname = f > 0 && f < MAXF && files[f] ? files[f] : "?";
				annotate(&b, srcs, nsrcs, fname, (int)ln);
				shown_file = (int)f;
				shown_line = (int)ln;
			}
			continue;
		}
		sb_puts(&b, l.v[i]);
		sb_putc(&b, '\n');
		for (const char *p = t; *p; p++) {
			if (p[0] == '/' && p[1] == '/')
				break;
			if (*p == '{') {
				depth++;
				opened = 1;
			} else if (*p == '}') {
				depth--;
			}
		}
		if (opened && depth <= 0)
			break;
	}
	for (int i = 0; i < MAXF; i++)
		free(files[i]);
	lines_free(&l);
	return sb_steal(&b);
}

/* ---------------------------------------------------------- processes */

static double now_s(void)
{
	return (double)now_ns() / 1e9;
}

int proc_capture(const char *const *argv, double timeout_s, char **out, char **errout, int *status,
                 char **err)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	if (out)
		*out = NULL;
	if (errout)
		*errout = NULL;
	if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0) {
		int e = errno;
		for (int i = 0; i < 2; i++) {
			if (po[i] >= 0)
				close(po[i]);
			if (pe[i] >= 0)
				close(pe[i]);
		}
		return fail(err, "cannot run '%s': %s", argv[0], strerror(e));
	}
	int null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	child_opts o;
	child_opts_init(&o);
	o.path = argv[0];
	o.argv = (char *const *)argv;
	o.stdio[0] = null_in;
	o.stdio[1] = po[1];
	o.stdio[2] = pe[1];
	pid_t pid = null_in < 0 ? -1 : child_start(&o);
	int e = errno;
	if (null_in >= 0)
		close(null_in);
	close(po[1]);
	close(pe[1]);
	if (pid < 0) {
		close(po[0]);
		close(pe[0]);
		return fail(err, "cannot run '%s': %s", argv[0], strerror(e));
	}
	sbuf so = {0}, se = {0};
	int open_o = 1, open_e = 1, killed = 0;
	double deadline = now_s() + (timeout_s > 0 ? timeout_s : 60);
	while (open_o || open_e) {
		struct pollfd pf[2];
		int np = 0;
		if (open_o)
			pf[np++] = (struct pollfd){ .fd = po[0], .events = POLLIN };
		if (open_e)
			pf[np++] = (struct pollfd){ .fd = pe[0], .events = POLLIN };
		double left = deadline - now_s();
		if (left <= 0) {
			kill(pid, SIGKILL);
			killed = 1;
			break;
		}
		int r = poll(pf, (nfds_t)np, (int)(left * 1000) + 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			kill(pid, SIGKILL);
			killed = 1;
			break;
		}
		for (int i = 0; i < np; i++) {
			if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char buf[65536];
			ssize_t k = read(pf[i].fd, buf, sizeof buf);
			if (k < 0 && errno == EINTR)
				continue;
			int is_o = pf[i].fd == po[0];
			if (k <= 0) {
				if (is_o)
					open_o = 0;
				else
					open_e = 0;
				continue;
			}
			sb_add(is_o ? &so : &se, buf, (size_t)k);
		}
	}
	close(po[0]);
	close(pe[0]);
	int ws = 0;
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	if (killed) {
		sb_free(&so);
		sb_free(&se);
		return fail(err, "'%s' took longer than %.0f s: stopped", base_name(argv[0]),
		             timeout_s > 0 ? timeout_s : 60);
	}
	if (status)
		*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : 255;
	if (out)
		*out = sb_steal(&so);
	if (errout)
		*errout = sb_steal(&se);
	sb_free(&so);
	sb_free(&se);
	return 0;
}

/* ---------------------------------------------------------- tools */

static int is_exec(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static char *find_in(const char *dir, const char *tool)
{
	if (!dir || !*dir)
		return NULL;
	char *p = xasprintf("%s/%s", dir, tool);
	if (is_exec(p))
		return p;
	free(p);
	return NULL;
}

static char *find_tool(const char *tool)
{
	const char *home = getenv("CUDA_HOME");
	char *p = NULL;
	if (home && *home) {
		char *bin = xasprintf("%s/bin", home);
		p = find_in(bin, tool);
		free(bin);
	}
	if (!p)
		p = find_in(CUDA_HOME_DEFAULT "/bin", tool);
	const char *path = getenv("PATH");
	if (!p && path) {
		char *copy = xstrdup(path);
		for (char *save = NULL, *d = strtok_r(copy, ":", &save); d && !p; d = strtok_r(NULL, ":", &save))
			p = find_in(d, tool);
		free(copy);
	}
	return p;
}

sass_tool sass_find_tool(sass_tool want, char **path, char **why)
{
	*path = NULL;
	if (want != SASS_CUOBJDUMP && (*path = find_tool("nvdisasm")))
		return SASS_NVDISASM;
	if (want != SASS_NVDISASM && (*path = find_tool("cuobjdump")))
		return SASS_CUOBJDUMP;
	const char *home = getenv("CUDA_HOME");
	fail(why, "no %s in %s/bin or PATH (%s with the CUDA toolkit; set CUDA_HOME)",
	     want == SASS_NVDISASM ? "nvdisasm" : want == SASS_CUOBJDUMP ? "cuobjdump" : "nvdisasm or cuobjdump",
	     home && *home ? home : CUDA_HOME_DEFAULT, want == SASS_NONE ? "they come" : "it comes");
	return SASS_NONE;
}

/* Writes the cubin to a temp file; its path (caller unlinks and frees). */
static char *write_temp(const void *data, size_t len, char **err)
{
	const char *dir = getenv("TMPDIR");
	char *path = xasprintf("%s/cuplay-XXXXXX.cubin", dir && *dir ? dir : "/tmp");
	int fd = mkstemps(path, 6);
	if (fd < 0) {
		fail(err, "cannot create a temp file in '%s': %s", dir && *dir ? dir : "/tmp", strerror(errno));
		free(path);
		return NULL;
	}
	const char *p = data;
	size_t left = len;
	while (left > 0) {
		ssize_t k = write(fd, p, left);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			fail(err, "cannot write '%s': %s", path, strerror(errno));
			close(fd);
			unlink(path);
			free(path);
			return NULL;
		}
		p += k;
		left -= (size_t)k;
	}
	close(fd);
	return path;
}

/* The first non-empty line of a tool's stderr, without its "tool fatal : " prefix. */
static void first_line(const char *s, char *buf, int n)
{
	buf[0] = 0;
	if (!s)
		return;
	while (*s == '\n' || *s == ' ')
		s++;
	size_t len = strcspn(s, "\n");
	const char *colon = memchr(s, ':', len);
	if (colon && (colon - s) < 32 && strstr(s, "fatal") && strstr(s, "fatal") < colon) {
		len -= (size_t)(colon + 1 - s);
		s = skip_ws(colon + 1);
		len = strcspn(s, "\n");
	}
	snprintf(buf, (size_t)n, "%.*s", (int)len, s);
}

static int run_tool(sass_tool kind, const char *tool, const char *file, char **listing, char **err)
{
	const char *argv_nv[] = { tool, "-c", "-g", file, NULL };
	const char *argv_co[] = { tool, "-sass", file, NULL };
	char *out = NULL, *eout = NULL;
	int status = 0;
	if (proc_capture(kind == SASS_NVDISASM ? argv_nv : argv_co, 60, &out, &eout, &status, err) != 0)
		return -1;
	if (status != 0) {
		char line[300];
		first_line(eout && *eout ? eout : out, line, sizeof line);
		fail(err, "%s failed: %s", kind == SASS_NVDISASM ? "nvdisasm" : "cuobjdump",
		     line[0] ? line : "no message");
		free(out);
		free(eout);
		return -1;
	}
	free(eout);
	*listing = out;
	return 0;
}

int sass_disasm(const void *cubin, size_t len, const char *lowered, const sass_src *srcs, int nsrcs,
                char **out, char **err)
{
	*out = NULL;
	if (!cubin || len == 0)
		return fail(err, "no cubin to disassemble");
	char *tool = NULL;
	sass_tool kind = sass_find_tool(SASS_NONE, &tool, err);
	if (kind == SASS_NONE)
		return -1;
	char *file = write_temp(cubin, len, err);
	if (!file) {
		free(tool);
		return -1;
	}
	char *listing = NULL;
	int rc = run_tool(kind, tool, file, &listing, err);
	if (rc != 0 && kind == SASS_NVDISASM) {
		/* an nvdisasm older than the cubin: cuobjdump may still read it */
		char *tool2 = NULL, *why = NULL;
		if (sass_find_tool(SASS_CUOBJDUMP, &tool2, &why) == SASS_CUOBJDUMP) {
			char *err2 = NULL;
			if (run_tool(SASS_CUOBJDUMP, tool2, file, &listing, &err2) == 0) {
				rc = 0;
				kind = SASS_CUOBJDUMP;
				if (err) {
					free(*err);
					*err = NULL;
				}
			}
			free(err2);
		}
		free(tool2);
		free(why);
	}
	unlink(file);
	free(file);
	free(tool);
	if (rc != 0)
		return -1;
	char *func = sass_extract(listing, lowered, kind);
	free(listing);
	if (!func)
		return fail(err, "no kernel '%s' in the cubin", lowered);
	*out = sass_tidy(func, srcs, nsrcs);
	free(func);
	return 0;
}
