/* ccache.c: the compile cache (memory, then disk, then NVRTC). */
#include "ccache.h"
#include "ccdisk.h"
#include "ccprog.h"
#include "prelude.h"
#include "reduce.h"
#include "ccserver.h"
#include "cubin.h"
#include "incscan.h"
#include "pchdir.h"
#include "jitlink.h"
#include "sha256.h"
#include "toolkit.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Parses "64M"-like sizes; 0 when malformed. */
static uint64_t parse_bytes(const char *s)
{
	char *e;
	unsigned long long v = strtoull(s, &e, 10);
	if (e == s)
		return 0;
	switch (*e) {
	case 'k': case 'K': v <<= 10; e++; break;
	case 'm': case 'M': v <<= 20; e++; break;
	case 'g': case 'G': v <<= 30; e++; break;
	}
	return *e ? 0 : (uint64_t)v;
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

void ccache_init(ccache *c, const char *dir)
{
	memset(c, 0, sizeof *c);
	c->max = 64;
	const char *pch = getenv("CUPLAY_PCH");
	c->pch = !(pch && strcmp(pch, "0") == 0);
	const char *mb = getenv("CUPLAY_CACHE_MAX");
	c->max_bytes = mb && parse_bytes(mb) ? parse_bytes(mb) : CCACHE_MAX_BYTES_DEFAULT;
	if (dir) {
		c->dir = *dir ? xstrdup(dir) : NULL;
		return;
	}
	/* the XDG base directory rules: a relative XDG_CACHE_HOME is ignored;
	 * ~/.cache only under a HOME that exists (HOME=/nonexistent is the
	 * convention for "no home": nothing may be made there) */
	const char *x = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	if (x && x[0] == '/')
		c->dir = xasprintf("%s/cuplay", x);
	else if (home && home[0] == '/' && is_dir(home))
		c->dir = xasprintf("%s/.cache/cuplay", home);
	else
		c->off_why = xasprintf("no cache directory (%s%s%s): compiled kernels are kept in memory only",
		                       x && *x ? "XDG_CACHE_HOME is not an absolute path, " :
		                                 "XDG_CACHE_HOME is not set, ",
		                       home && *home ? "HOME is not a directory: " : "HOME is not set",
		                       home && *home ? home : "");
}

/* This process's directory for precompiled headers, made once. */
static const char *pch_dir(ccache *c)
{
	if (!c->pch_dir)
		c->pch_dir = pch_dir_make();
	return c->pch_dir;
}

void ccache_free(ccache *c)
{
	ccache_cancel(c);
	if (c->pch_dir) {
		pch_trim(c->pch_dir, 0);
		rmdir(c->pch_dir);
		free(c->pch_dir);
	}
	for (cunit *u = c->head, *next; u; u = next) {
		next = u->next;
		cunit_free(u);
	}
	for (int i = 0; i < c->nincdirs; i++)
		free(c->incdirs[i]);
	free(c->incdirs);
	free(c->dir);
	free(c->off_why);
	memset(c, 0, sizeof *c);
}

int ccache_add_include(ccache *c, const char *dir, char **err)
{
	if (!is_dir(dir))
		return fail(err, "include directory '%s' %s", dir,
		            access(dir, F_OK) == 0 ? "is not a directory" : "does not exist");
	for (int i = 0; i < c->nincdirs; i++)
		if (strcmp(c->incdirs[i], dir) == 0)
			return 0;
	c->incdirs = xrealloc(c->incdirs, ((size_t)c->nincdirs + 1) * sizeof *c->incdirs);
	c->incdirs[c->nincdirs++] = xstrdup(dir);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ---- what NVRTC gets ---------------------------------------------------- */

/* `//@ include` directory i of s, as a path (relative to the file's directory). */
static char *incdir_path(const spec *s, int i)
{
	const char *d = s->incdirs[i].dir;
	if (d[0] == '/')
		return xstrdup(d);
	char *base = inc_dirname(s->path);
	char *p = strcmp(base, ".") == 0 ? xstrdup(d) : xasprintf("%s/%s", base, d);
	free(base);
	return p;
}

char **ccache_search_path(const ccache *c, const spec *s, int *n, int **toolkit)
{
	int ntk = 0;
	const char *const *tk = toolkit_include_dirs(&ntk, NULL);
	int cap = 1 + s->nincdirs + c->nincdirs + ntk;
	char **v = xcalloc((size_t)cap + 1, sizeof *v);
	int *t = xcalloc((size_t)cap + 1, sizeof *t);
	int k = 0;
	v[k++] = inc_dirname(s->path);
	for (int i = 0; i < s->nincdirs; i++)
		v[k++] = incdir_path(s, i);
	for (int i = 0; i < c->nincdirs; i++)
		v[k++] = xstrdup(c->incdirs[i]);
	for (int i = 0; i < ntk; i++) {
		t[k] = 1;
		v[k++] = xstrdup(tk[i]);
	}
	*n = k;
	*toolkit = t;
	return v;
}

/* Everything one compile needs, and its key. */
typedef struct prep {
	char **dirs;            /* the search list */
	int *toolkit;
	int ndirs;
	inc_graph g;
	int nshims;
	const toolkit_shim **shims; /* offered to NVRTC */
	char **opts;
	int nopts;
	char *program;          /* the program NVRTC compiles */
	char *program_name;
	const char *path;       /* the kernel file */
	char *hname;            /* its name for NVRTC: its path, '_' for a byte PTX cannot quote */
	const char **hnames, **htexts;
	int nh;
	const char **exprs, **names;
	char **where;
	int nexprs;
	int nhoisted;           /* toolkit headers compiled ahead of the defines */
	char *display;          /* the options line */
	const char *src;        /* the file's text, or the file cut down to some kernels (reduce.h) */
	const int *need;        /* the kernels compiled (NULL: all) */
	uint8_t key[32];
} prep;

static void prep_free(prep *p)
{
	for (int i = 0; i < p->ndirs; i++)
		free(p->dirs[i]);
	free(p->dirs);
	free(p->toolkit);
	inc_graph_free(&p->g);
	free(p->shims);
	for (int i = 0; i < p->nopts; i++)
		free(p->opts[i]);
	free(p->opts);
	free(p->program);
	free(p->program_name);
	free(p->hname);
	free(p->hnames);
	free(p->htexts);
	for (int i = 0; i < p->nexprs; i++)
		free(p->where[i]);
	free(p->exprs);
	free(p->names);
	free(p->where);
	free(p->display);
	memset(p, 0, sizeof *p);
}

typedef struct shimset {
	const toolkit_shim **v;
	int n;
} shimset;

static const char *shim_text(const char *name, void *ctx)
{
	const shimset *s = ctx;
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->v[i]->name, name) == 0)
			return s->v[i]->text;
	return NULL;
}

static char *where_of(const spec *s, const spec_kernel *k)
{
	if (k->tmpl >= 0 && k->decl_line > 0)
		return xasprintf("%s:%d:%d", s->path, k->decl_line, k->decl_col);
	return xasprintf("%s:%d:%d", s->path, k->line, k->col);
}

/* The search list (the file's directory, its `//@ include` ones, the
 * user's, the toolkit's), the stand-ins for the C headers NVRTC lacks (each
 * unless a directory of the user's has one, and only where what it needs
 * is found), and the file's includes scanned. 0, or -1 with *err. */
static int prep_headers(const ccache *c, const spec *s, prep *p, char **err)
{
	p->dirs = ccache_search_path(c, s, &p->ndirs, &p->toolkit);
	for (int i = 0; i < s->nincdirs; i++)
		if (!is_dir(p->dirs[1 + i])) {
			fail(err, "%s:%d:%d: include directory '%s' %s", s->path, s->incdirs[i].line,
			     s->incdirs[i].col, s->incdirs[i].dir,
			     access(p->dirs[1 + i], F_OK) == 0 ? "is not a directory" : "does not exist");
			return -1;
		}
	inc_dir *dirs = xcalloc((size_t)p->ndirs + 1, sizeof *dirs);
	for (int i = 0; i < p->ndirs; i++)
		dirs[i] = (inc_dir){ p->dirs[i], p->toolkit[i] };
	int nall;
	const toolkit_shim *all = toolkit_shims(&nall);
	p->shims = xcalloc((size_t)nall + 1, sizeof *p->shims);
	for (int i = 0; i < nall; i++) {
		char *found = NULL;
		int ntk = 0;
		while (ntk < p->ndirs && !p->toolkit[ntk])
			ntk++;
		inc_kind own = inc_resolve(dirs, ntk, NULL, all[i].name, 1, &found);
		free(found);
		inc_kind need = INC_TOOLKIT;
		if (all[i].needs) {
			need = inc_resolve(dirs, p->ndirs, NULL, all[i].needs, 1, &found);
			free(found);
		}
		if (own == INC_MISSING && need != INC_MISSING)
			p->shims[p->nshims++] = &all[i];
	}
	shimset ss = { p->shims, p->nshims };
	if (inc_scan(s->path, p->src, dirs, p->ndirs, shim_text, &ss, &p->g, err) != 0) {
		free(dirs);
		return -1;
	}
	free(dirs);
	return 0;
}

/* The options (the defines go before every header, or after the
 * toolkit's: NVRTC sees those for headers alone, wrap) and the line that
 * shows them. */
static void prep_options(const spec *s, prep *p, char *const *sorted, int ndefs, const char *arch, int wrap)
{
	p->opts = xcalloc((size_t)ndefs + (size_t)p->ndirs + 8, sizeof *p->opts);
	p->opts[p->nopts++] = xasprintf("-arch=%s", arch);
	sbuf disp = {0};
	sb_printf(&disp, "-arch=%s", arch);
	for (int i = 0; i < ndefs; i++) {
		if (!wrap || ccprog_define_for_headers(sorted[i]))
			p->opts[p->nopts++] = xasprintf("-D%s", sorted[i]);
		sb_printf(&disp, " -D%s", sorted[i]);
	}
	for (int i = 0; i < p->ndirs; i++) {
		p->opts[p->nopts++] = xasprintf("-I%s", p->dirs[i]);
		if (!p->toolkit[i])
			sb_printf(&disp, " -I%s", p->dirs[i]);
	}
	/* what nvcc's implicit cuda_runtime.h gives device code (prelude.h) */
	p->opts[p->nopts++] = xstrdup("-include=" PRELUDE_NAME);
	p->opts[p->nopts++] = xstrdup("-lineinfo");
	p->opts[p->nopts++] = xstrdup("--ptxas-options=-v");
	sb_puts(&disp, " -lineinfo --ptxas-options=-v");
	if (s->nlinks > 0) {
		p->opts[p->nopts++] = xstrdup("-rdc=true");
		sb_puts(&disp, " -rdc=true");
	}
	p->display = sb_steal(&disp);
}

/* In memory: the kernel file under its own name, the prelude, the
 * stand-ins. The
 * program: the toolkit headers the file starts with (when nothing before
 * them can change them), a declaration that ends the precompiled part,
 * the defines, the file. */
/* The file's path as NVRTC may name it: it goes into the PTX's `.file`
 * lines and an `#include "..."`, where a quote, a backslash or a control
 * byte breaks them, so each becomes '_' (messages say the path again:
 * user_path). */
static char *nvrtc_name(const char *path)
{
	char *n = xstrdup(path);
	for (unsigned char *c = (unsigned char *)n; *c; c++)
		if (*c == '"' || *c == '\\' || *c < 0x20 || *c == 0x7f)
			*c = '_';
	return n;
}

/* msg (taken) with NVRTC's name of the file back to the user's path. */
static char *user_path(char *msg, const prep *p)
{
	const char *path = p->path;
	if (!msg || !p->hname || !path || strcmp(p->hname, path) == 0)
		return msg;
	sbuf b = {0};
	size_t hl = strlen(p->hname);
	const char *q = msg;
	for (const char *f; (f = strstr(q, p->hname)) != NULL; q = f + hl) {
		sb_add(&b, q, (size_t)(f - q));
		sb_puts(&b, path);
	}
	sb_puts(&b, q);
	free(msg);
	return sb_steal(&b);
}

static void prep_program(const spec *s, prep *p, char *const *sorted, int ndefs, int wrap, int early)
{
	p->path = s->path;
	p->hname = nvrtc_name(s->path);
	p->hnames = xcalloc((size_t)p->nshims + 3, sizeof *p->hnames);
	p->htexts = xcalloc((size_t)p->nshims + 3, sizeof *p->htexts);
	if (wrap) {
		p->hnames[p->nh] = p->hname;
		p->htexts[p->nh++] = p->src;
	}
	p->hnames[p->nh] = PRELUDE_NAME;
	p->htexts[p->nh++] = prelude_text();
	for (int i = 0; i < p->nshims; i++) {
		p->hnames[p->nh] = p->shims[i]->name;
		p->htexts[p->nh++] = p->shims[i]->text;
	}

	sbuf prog = {0};
	if (wrap) {
		for (int i = 0; i < p->g.nrefs && !early; i++) {
			const inc_ref *r = &p->g.refs[i];
			if (r->from != 0)
				continue;
			if (!r->leading || !(r->kind == INC_TOOLKIT || r->kind == INC_MEMORY) ||
			    (r->kind == INC_TOOLKIT && !ccprog_guarded(r->path)))
				break;
			sb_printf(&prog, "#include %c%s%c\n", r->angle ? '<' : '"', r->name, r->angle ? '>' : '"');
			p->nhoisted++;
		}
		sb_puts(&prog, "typedef int __cuplay_precompiled_above;\n");
		for (int i = 0; i < ndefs; i++) {
			if (ccprog_define_for_headers(sorted[i]))
				continue;
			const char *eq = strchr(sorted[i], '=');
			if (eq)
				sb_printf(&prog, "#define %.*s %s\n", (int)(eq - sorted[i]), sorted[i], eq + 1);
			else
				sb_printf(&prog, "#define %s\n", sorted[i]);
		}
		sb_printf(&prog, "#include \"%s\"\n", p->hname);
		p->program_name = xasprintf("%s (defines)", p->hname);
	} else {
		sb_puts(&prog, p->src);
		p->program_name = xstrdup(p->hname);
	}
	p->program = sb_steal(&prog);
}

/* Every launchable kernel compiled gets a name expression. */
static void prep_kernels(const spec *s, prep *p)
{
	p->exprs = xcalloc((size_t)s->nkernels + 1, sizeof *p->exprs);
	p->names = xcalloc((size_t)s->nkernels + 1, sizeof *p->names);
	p->where = xcalloc((size_t)s->nkernels + 1, sizeof *p->where);
	for (int i = 0; i < s->nkernels; i++) {
		const spec_kernel *k = &s->kernels[i];
		if (k->is_template || k->nsteps > 0 || (p->need && !p->need[i]))
			continue;
		p->exprs[p->nexprs] = k->expr ? k->expr : k->name;
		p->names[p->nexprs] = k->name;
		p->where[p->nexprs++] = where_of(s, k);
	}
}

/* The key: NVRTC's version, the options, the program, the headers in
 * memory, the source, every include and what it found, the kernels. */
static void prep_key(const spec *s, prep *p)
{
	sha256 h;
	sha256_init(&h);
	sha256_update(&h, CCDISK_MAGIC, 8);
	const char *ver = nvrtc_version();
	sha256_update(&h, ver, strlen(ver) + 1);
	for (int i = 0; i < p->nopts; i++)
		sha256_update(&h, p->opts[i], strlen(p->opts[i]) + 1);
	sha256_update(&h, "name\0", 5);
	sha256_update(&h, s->path, strlen(s->path) + 1);
	sha256_update(&h, "program\0", 8);
	sha256_update(&h, p->program, strlen(p->program) + 1);
	for (int i = 0; i < p->nh; i++) {
		sha256_update(&h, p->hnames[i], strlen(p->hnames[i]) + 1);
		sha256_update(&h, p->htexts[i], strlen(p->htexts[i]) + 1);
	}
	sha256_update(&h, "source\0", 7);
	sha256_update(&h, p->src, strlen(p->src) + 1);
	for (int i = 0; i < p->g.nrefs; i++) {
		const inc_ref *r = &p->g.refs[i];
		int v[2] = { r->angle, (int)r->kind };
		sha256_update(&h, r->name, strlen(r->name) + 1);
		sha256_update(&h, v, sizeof v);
		if (r->path)
			sha256_update(&h, r->path, strlen(r->path) + 1);
		if (r->kind == INC_USER)
			sha256_update(&h, p->g.files[r->file].sha, 32);
	}
	sha256_update(&h, &p->g.truncated, sizeof p->g.truncated);
	for (int i = 0; i < p->nexprs; i++)
		sha256_update(&h, p->exprs[i], strlen(p->exprs[i]) + 1);
	sha256_final(&h, p->key);
}

/* src: the text compiled (s->src, or less of it: reduce.h); need: the
 * kernels compiled (NULL: all). */
static int prepare(const ccache *c, const spec *s, const char *src, const int *need, const char *const *defs,
                   int ndefs, const char *arch, prep *p, char **err)
{
	memset(p, 0, sizeof *p);
	p->src = src;
	p->need = need;
	if (prep_headers(c, s, p, err) != 0) {
		prep_free(p);
		return -1;
	}
	/* the defines, sorted: before every header or after the toolkit's */
	char **sorted = xcalloc((size_t)ndefs + 1, sizeof *sorted);
	for (int i = 0; i < ndefs; i++)
		sorted[i] = (char *)defs[i];
	qsort(sorted, (size_t)ndefs, sizeof *sorted, cmp_str);
	int early = 0;
	for (int i = 0; i < ndefs; i++)
		early |= ccprog_define_for_headers(sorted[i]);
	int wrap = ccprog_includable(s->path);
	prep_options(s, p, sorted, ndefs, arch, wrap);
	prep_program(s, p, sorted, ndefs, wrap, early);
	free(sorted);
	prep_kernels(s, p);
	prep_key(s, p);
	return 0;
}

int ccache_key(const ccache *c, const spec *s, const char *const *defs, int ndefs, const char *arch,
               uint8_t key[32], char **err)
{
	if (nvrtc_load(err) != 0)
		return -1;
	prep p;
	if (prepare(c, s, s->src, NULL, defs, ndefs, arch, &p, err) != 0)
		return -1;
	memcpy(key, p.key, 32);
	prep_free(&p);
	return 0;
}

/* u kept on disk where there is a cache directory; the first failure to
 * write says so once (*warn) */
static void disk_store(ccache *c, const cunit *u, char **warn)
{
	if (!c->dir)
		return;
	if (ccdisk_store(c->dir, u, c->max_bytes, &c->pruned) != 0) {
		if (!c->disk_warned && warn)
			*warn = xasprintf("cannot write compile cache '%s': %s (caching in memory only)", c->dir,
			                  strerror(errno));
		c->disk_warned = 1;
	}
}

static void mem_insert(ccache *c, cunit *u)
{
	u->used = ++c->tick;
	u->next = c->head;
	c->head = u;
	if (++c->n <= c->max)
		return;
	/* evict the least recently used */
	cunit **victim = &c->head;
	for (cunit **pp = &c->head; *pp; pp = &(*pp)->next)
		if ((*pp)->used < (*victim)->used)
			victim = pp;
	cunit *v = *victim;
	*victim = v->next;
	cunit_free(v);
	c->n--;
}

/* A compile's error, with the defines in force (and why the toolkit's
 * headers are missing, when a header could not be opened). */
static void compile_error(char **err, const prep *p, const char *const *defs, int ndefs)
{
	if (err && *err)
		*err = user_path(ccprog_name_defines(*err, p->program_name), p);
	if (!err || !*err)
		return;
	sbuf b = {0};
	sb_puts(&b, *err);
	int ntk = 0;
	const char *why = NULL;
	toolkit_include_dirs(&ntk, &why);
	if (ntk == 0 && why && strstr(*err, "cannot open source file"))
		sb_printf(&b, "\n(%s)", why);
	/* say which -D values were in force */
	if (ndefs > 0) {
		sb_puts(&b, "\n(compiled with");
		char **sorted = xcalloc((size_t)ndefs + 1, sizeof *sorted);
		for (int i = 0; i < ndefs; i++)
			sorted[i] = (char *)defs[i];
		qsort(sorted, (size_t)ndefs, sizeof *sorted, cmp_str);
		for (int i = 0; i < ndefs; i++)
			sb_printf(&b, " -D%s", sorted[i]);
		free(sorted);
		sb_puts(&b, ")");
	}
	free(*err);
	*err = sb_steal(&b);
}

/* The file's `//@ link` libraries linked into out's cubin; resources read
 * from the linked cubin, where shared memory is placed. 0, or -1 with
 * *err (out freed). */
static int link_libraries(const spec *s, const char *arch, nvrtc_out *out, char **err)
{
	void *linked;
	size_t llen;
	if (jitlink(out->cubin, out->cubin_len, s->path, arch, (const char *const *)s->links, s->nlinks, &linked,
	            &llen, err) != 0) {
		nvrtc_out_free(out);
		return -1;
	}
	free(out->cubin);
	out->cubin = linked;
	out->cubin_len = llen;
	for (int i = 0; i < out->nk; i++)
		if (out->res[i].spill_st < 0)
			cubin_resources(out->cubin, out->cubin_len, out->lowered[i], atoi(arch + 3), &out->res[i]);
	return 0;
}

/* A new unit of what NVRTC made (out's parts move into it). */
static cunit *unit_of(prep *p, nvrtc_out *out)
{
	cunit *u = xcalloc(1, sizeof *u);
	memcpy(u->key, p->key, 32);
	u->cubin = out->cubin;
	u->cubin_len = out->cubin_len;
	u->ptx = out->ptx;
	u->warnings = user_path(ccprog_name_defines(nvrtc_user_log_names(out->log, p->exprs, (const char *const *)p->where,
	                                                                 p->nexprs), p->program_name), p);
	u->nk = p->nexprs;
	u->names = xcalloc((size_t)p->nexprs + 1, sizeof *u->names);
	for (int i = 0; i < p->nexprs; i++)
		u->names[i] = xstrdup(p->names[i]);
	u->lowered = out->lowered;
	u->res = out->res;
	u->options = p->display;
	u->pch = out->pch;
	p->display = NULL;
	free(out->log);
	return u;
}

/* A sequence of s is found in the unit like a kernel, as its first step
 * (its symbol and resources): what launches it and what a row shows of it. */
static void add_sequences(cunit *u, const spec *s)
{
	for (int i = 0; i < s->nkernels; i++) {
		const spec_kernel *k = &s->kernels[i];
		int first = k->nsteps > 0 ? cunit_find(u, s->kernels[k->steps[0]].name) : -1;
		if (first < 0 || cunit_find(u, k->name) >= 0)
			continue;
		u->names = xrealloc(u->names, ((size_t)u->nk + 2) * sizeof *u->names);
		u->lowered = xrealloc(u->lowered, ((size_t)u->nk + 2) * sizeof *u->lowered);
		u->res = xrealloc(u->res, ((size_t)u->nk + 2) * sizeof *u->res);
		u->names[u->nk] = xstrdup(k->name);
		u->lowered[u->nk] = xstrdup(u->lowered[first]);
		u->res[u->nk] = u->res[first];
		u->nk++;
		u->names[u->nk] = u->lowered[u->nk] = NULL;
	}
}

/* The unit of key from memory or disk, or NULL; *src says where. */
static cunit *cached(ccache *c, const uint8_t key[32], cc_source *src)
{
	for (cunit *u = c->head; u; u = u->next)
		if (memcmp(u->key, key, 32) == 0) {
			u->used = ++c->tick;
			c->hits_mem++;
			*src = CC_MEMORY;
			return u;
		}
	cunit *u = c->dir ? ccdisk_load(c->dir, key, &c->corrupt) : NULL;
	if (u) {
		c->hits_disk++;
		*src = CC_DISK;
		mem_insert(c, u);
	}
	return u;
}

/* What the compile server gets for p. */
static nvrtc_job job_of(ccache *c, const spec *s, prep *p)
{
	nvrtc_job job = {
		.name = p->program_name, .path = s->path, .src = p->program,
		.nheaders = p->nh, .header_names = p->hnames, .header_texts = p->htexts,
		.opts = (const char *const *)p->opts, .nopts = p->nopts,
		.exprs = p->exprs, .where = (const char *const *)p->where, .nexprs = p->nexprs,
		/* precompiled headers where there are headers to precompile: NVRTC's
		 * own alone save little and cost the first compile ~40 ms */
		.pch = c->pch && p->nhoisted > 0,
	};
	if (job.pch)
		job.pch_dir = pch_dir(c);
	return job;
}

/* The unit of what NVRTC made of p (out's parts move into it; p freed),
 * linked, kept in memory and on disk. */
static cunit *unit_made(ccache *c, const char *path, prep *p, nvrtc_out *out, char **warn)
{
	if (getenv("CUPLAY_NVRTC_LOG") && *getenv("CUPLAY_NVRTC_LOG"))
		fprintf(stderr, "nvrtc %s log of %s:\n%s\n", nvrtc_version(), path, out->log ? out->log : "(none)");
	cunit *u = unit_of(p, out);
	if (out->pch == PCH_CREATED)
		pch_trim(c->pch_dir, CCACHE_PCH_KEPT);
	prep_free(p);
	c->misses++;
	disk_store(c, u, warn);
	mem_insert(c, u);
	return u;
}

/* ---- compiles in the background ---------------------------------------- */

/* A compile sent to the compile server ahead of the command that needs it. */
struct ccpending {
	prep p;
	char *src;    /* the text compiled, when cut (p points into it) */
	int links;    /* the file has `//@ link` libraries: its unit is linked by the compile that waits */
};

static void pending_free(ccache *c)
{
	if (!c->pending)
		return;
	prep_free(&c->pending->p);
	free(c->pending->src);
	free(c->pending);
	c->pending = NULL;
}

/* Before a compile of key (NULL: none): a background compile of another
 * key is taken into the cache when it has finished (a `set` and back costs
 * nothing twice), stopped when it has not. One of key is left to run. */
static void pending_settle(ccache *c, const uint8_t *key)
{
	if (!c->pending || (key && memcmp(c->pending->p.key, key, 32) == 0))
		return;
	nvrtc_out out;
	char *err = NULL;
	int r = ccs_collect(&out, &err);
	free(err);
	if (r == 1 && !c->pending->links) {
		unit_made(c, c->pending->p.program_name, &c->pending->p, &out, NULL);
		if (getenv("CUPLAY_TRACE"))
			fprintf(stderr, "trace: background compile kept in the cache\n");
	} else {
		if (r == 1)
			nvrtc_out_free(&out);
		if (r == 0 && ccs_cancel() && getenv("CUPLAY_TRACE"))
			fprintf(stderr, "trace: background compile stopped: another is wanted\n");
	}
	pending_free(c);
}

/* A background compile that has finished, taken into the cache (one not
 * finished is left to run): a run of some of its kernels then finds them
 * there, where the compile ahead was of every kernel of the file. */
static void pending_take(ccache *c)
{
	if (!c->pending)
		return;
	nvrtc_out out;
	char *err = NULL;
	int r = ccs_collect(&out, &err);
	free(err);
	if (r == 0)
		return;
	if (r == 1 && !c->pending->links) {
		unit_made(c, c->pending->p.program_name, &c->pending->p, &out, NULL);
		if (getenv("CUPLAY_TRACE"))
			fprintf(stderr, "trace: background compile kept in the cache\n");
	} else if (r == 1) {
		nvrtc_out_free(&out);
	}
	pending_free(c);
}

/* After the compile of key: a background compile of it is done with. */
static void pending_drop(ccache *c, const uint8_t *key)
{
	if (c->pending && memcmp(c->pending->p.key, key, 32) == 0)
		pending_free(c);
}

int ccache_cancel(ccache *c)
{
	int had = c->pending != NULL && ccs_pending();
	if (had)
		ccs_cancel();
	pending_free(c);
	if (had && getenv("CUPLAY_TRACE"))
		fprintf(stderr, "trace: background compile stopped\n");
	return had;
}

int ccache_pending(const ccache *c)
{
	return c->pending != NULL && ccs_pending();
}

/* The unit of a prepared compile, from the cache or NVRTC (p freed). */
static const cunit *compile_prepared(ccache *c, const spec *s, prep *pp, const char *const *defs, int ndefs,
                                     const char *arch, cc_source *src, char **warn, char **err)
{
	prep p = *pp;
	cunit *u = cached(c, p.key, src);
	if (u) {
		add_sequences(u, s); /* from the disk: without them */
		prep_free(&p);
		return u;
	}
	pending_settle(c, p.key);
	nvrtc_job job = job_of(c, s, &p);
	nvrtc_out out;
	int rc = ccs_run(&job, &out, err); /* in the compile server, which Ctrl-C can abandon */
	pending_drop(c, p.key);
	if (rc != 0) {
		compile_error(err, &p, defs, ndefs);
		prep_free(&p);
		return NULL;
	}
	if (s->nlinks > 0 && link_libraries(s, arch, &out, err) != 0) {
		prep_free(&p);
		return NULL;
	}
	u = unit_made(c, s->path, &p, &out, warn);
	add_sequences(u, s);
	*src = CC_COMPILED;
	return u;
}

/* NVRTC loaded, and the note about the disk cache said once. */
static int compile_start(ccache *c, char **warn, char **err)
{
	if (nvrtc_load(err) != 0)
		return -1;
	if (c->off_why && warn && !c->disk_warned) {
		*warn = xstrdup(c->off_why);
		c->disk_warned = 1;
	}
	return 0;
}

const cunit *ccache_compile(ccache *c, const spec *s, const char *const *defs, int ndefs,
                            const char *arch, cc_source *src, double *ms, char **warn, char **err)
{
	uint64_t t0 = now_ns();
	prep p;
	if (compile_start(c, warn, err) != 0 || prepare(c, s, s->src, NULL, defs, ndefs, arch, &p, err) != 0)
		return NULL;
	const cunit *u = compile_prepared(c, s, &p, defs, ndefs, arch, src, warn, err);
	*ms = ms_since(t0);
	return u;
}

const cunit *ccache_compile_some(ccache *c, const spec *s, const int *want, int nwant, const char *const *defs,
                                 int ndefs, const char *arch, cc_source *src, double *ms, char **warn, char **err)
{
	uint64_t t0 = now_ns();
	prep p;
	if (compile_start(c, warn, err) != 0 || prepare(c, s, s->src, NULL, defs, ndefs, arch, &p, err) != 0)
		return NULL;
	char *why = NULL, *cut = NULL;
	pending_take(c);
	cunit *whole = cached(c, p.key, src); /* the whole file's unit holds every kernel */
	if (whole) {
		add_sequences(whole, s);
		prep_free(&p);
		*ms = ms_since(t0);
		return whole;
	}
	cut = spec_reduce(s, want, nwant, &why);
	if (why && getenv("CUPLAY_TRACE"))
		fprintf(stderr, "trace: %s compiles whole: %s\n", s->path, why);
	free(why);
	const cunit *u;
	if (!cut) {
		u = compile_prepared(c, s, &p, defs, ndefs, arch, src, warn, err);
	} else {
		int *need = xcalloc((size_t)s->nkernels + 1, sizeof *need);
		spec_needed(s, want, nwant, need);
		prep_free(&p);
		u = prepare(c, s, cut, need, defs, ndefs, arch, &p, err) == 0
		    ? compile_prepared(c, s, &p, defs, ndefs, arch, src, warn, err) : NULL;
		free(need);
		free(cut);
	}
	*ms = ms_since(t0);
	return u;
}

int ccache_prefetch_some(ccache *c, const spec *s, const int *want, int nwant, const char *const *defs, int ndefs,
                         const char *arch)
{
	if (!ccs_enabled() || nvrtc_load(NULL) != 0)
		return -1;
	prep p;
	char *err = NULL;
	if (prepare(c, s, s->src, NULL, defs, ndefs, arch, &p, &err) != 0) {
		free(err);
		ccache_cancel(c);
		return -1;
	}
	cc_source from;
	char *why = NULL, *cut = NULL;
	int *need = NULL;
	if (cached(c, p.key, &from)) {
		prep_free(&p);
		return 0;
	}
	cut = spec_reduce(s, want, nwant, &why);
	free(why);
	if (cut) {
		need = xcalloc((size_t)s->nkernels + 1, sizeof *need);
		spec_needed(s, want, nwant, need);
		prep_free(&p);
		int r = prepare(c, s, cut, need, defs, ndefs, arch, &p, &err);
		free(err);
		if (r != 0) {
			free(need);
			free(cut);
			ccache_cancel(c);
			return -1;
		}
	}
	int rc = 0;
	if (cached(c, p.key, &from)) {
		prep_free(&p);
	} else if (c->pending && memcmp(c->pending->p.key, p.key, 32) == 0) {
		prep_free(&p); /* under way */
	} else {
		pending_settle(c, p.key);
		nvrtc_job job = job_of(c, s, &p);
		p.need = NULL;
		if (ccs_submit(&job) == 0) {
			c->pending = xcalloc(1, sizeof *c->pending);
			c->pending->p = p;
			c->pending->src = cut;
			cut = NULL;
			c->pending->links = s->nlinks > 0;
			if (getenv("CUPLAY_TRACE"))
				fprintf(stderr, "trace: background compile of %s (%d kernel%s) started\n", s->path,
				        p.nexprs, p.nexprs == 1 ? "" : "s");
		} else {
			prep_free(&p);
			rc = -1;
		}
	}
	free(cut);
	free(need);
	return rc;
}

/* One compile of a batch: prepared, with the text it compiles. */
typedef struct batch_one {
	prep p;
	char *cut;
} batch_one;

/* The prepared compile of item it, or -1 when it is cached (or cannot be
 * prepared: the compile that needs it says why). */
static int batch_prepare(ccache *c, const spec *s, const cc_item *it, const char *arch, batch_one *b)
{
	memset(b, 0, sizeof *b);
	char *err = NULL, *why = NULL;
	cc_source from;
	if (prepare(c, s, s->src, NULL, it->defs, it->ndefs, arch, &b->p, &err) != 0) {
		free(err);
		return -1;
	}
	if (cached(c, b->p.key, &from)) {
		prep_free(&b->p);
		return -1;
	}
	b->cut = it->want ? spec_reduce(s, it->want, it->nwant, &why) : NULL;
	free(why);
	if (!b->cut)
		return 0;
	int *need = xcalloc((size_t)s->nkernels + 1, sizeof *need);
	spec_needed(s, it->want, it->nwant, need);
	prep_free(&b->p);
	int r = prepare(c, s, b->cut, need, it->defs, it->ndefs, arch, &b->p, &err);
	b->p.need = NULL;
	free(need);
	free(err);
	if (r != 0 || cached(c, b->p.key, &from)) {
		if (r == 0)
			prep_free(&b->p);
		free(b->cut);
		return -1;
	}
	return 0;
}

int ccache_compile_batch(ccache *c, const spec *s, const cc_item *items, int n, const char *arch, int width)
{
	if (n <= 0 || nvrtc_load(NULL) != 0)
		return 0;
	pending_settle(c, NULL);
	batch_one *b = xcalloc((size_t)n, sizeof *b);
	int m = 0;
	for (int i = 0; i < n; i++) {
		if (batch_prepare(c, s, &items[i], arch, &b[m]) != 0)
			continue;
		int dup = 0;
		for (int j = 0; j < m && !dup; j++)
			dup = memcmp(b[j].p.key, b[m].p.key, 32) == 0;
		if (dup) {
			prep_free(&b[m].p);
			free(b[m].cut);
		} else {
			m++;
		}
	}
	nvrtc_job *jobs = xcalloc((size_t)m + 1, sizeof *jobs);
	const nvrtc_job **jp = xcalloc((size_t)m + 1, sizeof *jp);
	nvrtc_out *outs = xcalloc((size_t)m + 1, sizeof *outs);
	int *rc = xcalloc((size_t)m + 1, sizeof *rc);
	char **errs = xcalloc((size_t)m + 1, sizeof *errs);
	for (int j = 0; j < m; j++) {
		jobs[j] = job_of(c, s, &b[j].p);
		jp[j] = &jobs[j];
	}
	int made = 0;
	if (m > 0)
		ccs_run_batch(jp, m, width, outs, rc, errs);
	for (int j = 0; j < m; j++) {
		char *err = NULL;
		if (rc[j] == 0 && (s->nlinks == 0 || link_libraries(s, arch, &outs[j], &err) == 0)) {
			unit_made(c, s->path, &b[j].p, &outs[j], NULL);
			made++;
		} else {
			prep_free(&b[j].p); /* the compile that needs it says the error */
		}
		free(err);
		free(errs[j]);
		free(b[j].cut);
	}
	if (getenv("CUPLAY_TRACE"))
		fprintf(stderr, "trace: %d of %d compiles made at once, %d at a time\n", made, n, width < m ? width : m);
	free(jobs);
	free(jp);
	free(outs);
	free(rc);
	free(errs);
	free(b);
	return made;
}
