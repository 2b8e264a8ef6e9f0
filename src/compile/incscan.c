/* incscan.c: the headers a kernel file brings in, found as NVRTC finds them. */
#include "incscan.h"
#include "cxxlex.h"
#include "sha256.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *inc_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

static char *join(const char *dir, const char *name)
{
	if (!dir || !*dir || strcmp(dir, ".") == 0)
		return xstrdup(name);
	size_t n = strlen(dir);
	return xasprintf("%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", name);
}

/* Something is there that is not a directory (a directory is passed over,
 * as compilers do). */
static int present(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

inc_kind inc_resolve(const inc_dir *dirs, int ndirs, const char *cur, const char *name, int angle,
                     char **path)
{
	*path = NULL;
	if (name[0] == '/') {
		if (!present(name))
			return INC_MISSING;
		*path = xstrdup(name);
		return INC_USER;
	}
	if (!angle && cur) {
		char *p = join(cur, name);
		if (present(p)) {
			*path = p;
			return INC_USER;
		}
		free(p);
	}
	for (int i = 0; i < ndirs; i++) {
		char *p = join(dirs[i].path, name);
		if (present(p)) {
			*path = p;
			return dirs[i].toolkit ? INC_TOOLKIT : INC_USER;
		}
		free(p);
	}
	return INC_MISSING;
}

void inc_graph_free(inc_graph *g)
{
	for (int i = 0; i < g->nfiles; i++)
		free(g->files[i].path);
	for (int i = 0; i < g->nrefs; i++) {
		free(g->refs[i].name);
		free(g->refs[i].path);
	}
	free(g->files);
	free(g->refs);
	memset(g, 0, sizeof *g);
}

typedef struct scan {
	const inc_dir *dirs;
	int ndirs;
	inc_memory_fn mem;
	void *ctx;
	inc_graph *g;
	struct { dev_t dev; ino_t ino; } *ids; /* of files[], to read each once */
	char **err;
} scan;

static int is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static const char *kind_of_mode(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
	     : S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a directory" : "not a regular file";
}

/* Reads a header: never blocks on a FIFO, never reads a device, at most
 * INC_SIZE_MAX bytes. 0 read (*text set unless big), 1 unreadable, -1 not a
 * regular file (*err says so at the including line). */
static int read_header(scan *sc, const char *path, const inc_ref *r, const char *from_path,
                       char **text, size_t *len, struct stat *st, int *big)
{
	*text = NULL;
	*big = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return 1;
	if (fstat(fd, st) != 0) {
		close(fd);
		return 1;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		fail(sc->err, "%s:%d:%d: cannot include '%s': '%s' is %s, not a file", from_path, r->line,
		     r->col, r->name, path, kind_of_mode(st->st_mode));
		return -1;
	}
	if (st->st_size > INC_SIZE_MAX) {
		close(fd);
		*big = 1;
		return 0;
	}
	sbuf b = {0};
	char buf[65536];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			sb_free(&b);
			return 1;
		}
		if (n == 0)
			break;
		sb_add(&b, buf, (size_t)n);
		if (b.len > INC_SIZE_MAX) { /* it grew while being read */
			*big = 1;
			break;
		}
	}
	close(fd);
	if (*big) {
		sb_free(&b);
		return 0;
	}
	*len = b.len;
	*text = sb_steal(&b);
	return 0;
}

static void add_ref(inc_graph *g, inc_ref r)
{
	g->refs = xrealloc(g->refs, ((size_t)g->nrefs + 1) * sizeof *g->refs);
	g->refs[g->nrefs++] = r;
}

static int add_file(scan *sc, const char *path, const struct stat *st)
{
	inc_graph *g = sc->g;
	g->files = xrealloc(g->files, ((size_t)g->nfiles + 1) * sizeof *g->files);
	sc->ids = xrealloc(sc->ids, ((size_t)g->nfiles + 1) * sizeof *sc->ids);
	memset(&g->files[g->nfiles], 0, sizeof g->files[0]);
	g->files[g->nfiles].path = xstrdup(path);
	sc->ids[g->nfiles].dev = st ? st->st_dev : 0;
	sc->ids[g->nfiles].ino = st ? st->st_ino : 0;
	return g->nfiles++;
}

static int scan_text(scan *sc, int fi, const char *text, int depth);

/* Resolves and follows the directive r (already filled but for kind, file, path). */
static int follow(scan *sc, inc_ref r, const char *cur, int depth)
{
	inc_graph *g = sc->g;
	r.file = -1;
	r.path = NULL;
	if (sc->mem && sc->mem(r.name, sc->ctx)) {
		r.kind = INC_MEMORY;
		add_ref(g, r);
		return 0;
	}
	char *path = NULL;
	r.kind = inc_resolve(sc->dirs, sc->ndirs, cur, r.name, r.angle, &path);
	r.path = path;
	if (r.kind != INC_USER) {
		add_ref(g, r);
		return 0;
	}
	const char *from_path = g->files[r.from].path;
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	int big = 0;
	int rd = read_header(sc, path, &r, from_path, &text, &len, &st, &big);
	if (rd < 0) {
		free(r.name);
		free(r.path);
		return -1;
	}
	if (rd > 0) {
		r.kind = INC_UNREADABLE;
		add_ref(g, r);
		return 0;
	}
	for (int i = 0; i < g->nfiles; i++)
		if (sc->ids[i].ino && sc->ids[i].dev == st.st_dev && sc->ids[i].ino == st.st_ino) {
			r.file = i; /* read before: once is enough */
			add_ref(g, r);
			free(text);
			return 0;
		}
	if (g->nfiles >= INC_FILES_MAX || depth >= INC_DEPTH_MAX) {
		g->truncated = 1;
		r.kind = INC_UNREADABLE;
		add_ref(g, r);
		free(text);
		return 0;
	}
	int fi = add_file(sc, path, &st);
	r.file = fi;
	add_ref(g, r);
	inc_file *f = &g->files[fi];
	sha256 h;
	sha256_init(&h);
	if (big) {
		f->big = 1;
		int64_t meta[4] = { (int64_t)st.st_size, (int64_t)st.st_mtim.tv_sec, (int64_t)st.st_mtim.tv_nsec,
		                    (int64_t)st.st_ino };
		sha256_update(&h, meta, sizeof meta);
		sha256_final(&h, f->sha);
		return 0;
	}
	sha256_update(&h, text, len);
	sha256_final(&h, f->sha);
	int line, col, byte = cxx_bad_byte(text, len, &line, &col);
	if (byte >= 0) {
		free(*sc->err);
		*sc->err = cxx_bad_byte_msg(path, byte, line, col);
		free(text);
		return -1;
	}
	int rc = scan_text(sc, fi, text, depth + 1);
	free(text);
	return rc;
}

/* The #include directive whose '#' is at text[i], if it is one with a
 * literal name: *name (caller frees), *angle. */
static int parse_include(const char *text, size_t i, char **name, int *angle)
{
	const char *p = text + i + 1;
	while (is_blank(*p))
		p++;
	if (strncmp(p, "include", 7) != 0 || is_ident_char((unsigned char)p[7]))
		return 0;
	p += 7;
	while (is_blank(*p))
		p++;
	char close = *p == '"' ? '"' : *p == '<' ? '>' : 0;
	if (!close)
		return 0; /* #include MACRO */
	const char *s = ++p;
	while (*p && *p != close && *p != '\n')
		p++;
	if (*p != close || p == s)
		return 0;
	*name = xstrndup(s, (size_t)(p - s));
	*angle = close == '>';
	return 1;
}

static int is_pragma_once(const char *text, size_t i)
{
	const char *p = text + i + 1;
	while (is_blank(*p))
		p++;
	if (strncmp(p, "pragma", 6) != 0)
		return 0;
	p += 6;
	while (is_blank(*p))
		p++;
	if (strncmp(p, "once", 4) != 0)
		return 0;
	p += 4;
	while (is_blank(*p))
		p++;
	return *p == '\n' || *p == 0;
}

static int scan_text(scan *sc, int fi, const char *text, int depth)
{
	char *cur = inc_dirname(sc->g->files[fi].path);
	int line = 1, bol = 1, leading = fi == 0;
	size_t linestart = 0;
	int rc = 0;
	for (size_t i = 0; text[i] && rc == 0;) {
		char c = text[i];
		if (c == '\n') {
			line++;
			bol = 1;
			linestart = ++i;
			continue;
		}
		if (is_blank(c)) {
			i++;
			continue;
		}
		if (bol && c == '#') {
			char *name = NULL;
			int angle = 0;
			int dline = line, dcol = (int)(i - linestart) + 1;
			if (parse_include(text, i, &name, &angle)) {
				inc_ref r = { .name = name, .angle = angle, .from = fi, .line = dline, .col = dcol,
				              .leading = leading };
				rc = follow(sc, r, cur, depth);
			} else if (!is_pragma_once(text, i)) {
				leading = 0;
			}
			/* to the end of the directive: its comments and splices too */
			size_t j = i;
			while (text[j] && !(text[j] == '\n' && !cxx_spliced(text, j))) {
				size_t e = cxx_skip_literal_or_comment(text, j);
				j = e > j ? e : j + 1;
			}
			for (size_t k = i; k < j; k++)
				if (text[k] == '\n') {
					line++;
					linestart = k + 1;
				}
			i = j;
			bol = 0;
			continue;
		}
		size_t e = cxx_skip_literal_or_comment(text, i);
		if (e > i) {
			int comment = text[i] == '/';
			for (size_t k = i; k < e; k++)
				if (text[k] == '\n') {
					line++;
					linestart = k + 1;
				}
			/* a comment is blank space: a directive may follow it on its line */
			if (!comment) {
				leading = 0;
				bol = 0;
			}
			i = e;
			continue;
		}
		leading = 0;
		bol = 0;
		i++;
	}
	free(cur);
	return rc;
}

int inc_scan(const char *path, const char *src, const inc_dir *dirs, int ndirs,
             inc_memory_fn mem, void *ctx, inc_graph *g, char **err)
{
	memset(g, 0, sizeof *g);
	scan sc = { dirs, ndirs, mem, ctx, g, NULL, err };
	struct stat st;
	int fi = add_file(&sc, path, stat(path, &st) == 0 ? &st : NULL);
	sha256 h;
	sha256_init(&h);
	sha256_update(&h, src, strlen(src));
	sha256_final(&h, g->files[fi].sha);
	int rc = scan_text(&sc, fi, src, 0);
	free(sc.ids);
	if (rc != 0)
		inc_graph_free(g);
	return rc;
}
