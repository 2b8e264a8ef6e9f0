/* ccache.c: the compile cache (memory, then disk, then NVRTC). */
#include "ccache.h"
#include "cubin.h"
#include "jitlink.h"
#include "sha256.h"
#include "util.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CACHE_MAGIC "CUPLAYC1"
#define INCLUDE_DEPTH 8

void ccache_init(ccache *c, const char *dir)
{
	memset(c, 0, sizeof *c);
	c->max = 64;
	if (dir) {
		c->dir = *dir ? xstrdup(dir) : NULL;
		return;
	}
	const char *x = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	if (x && *x)
		c->dir = xasprintf("%s/cuplay", x);
	else if (home && *home)
		c->dir = xasprintf("%s/.cache/cuplay", home);
}

static void unit_free(cunit *u)
{
	if (!u)
		return;
	free(u->cubin);
	free(u->ptx);
	free(u->warnings);
	for (int i = 0; i < u->nk; i++) {
		free(u->names[i]);
		free(u->lowered[i]);
	}
	free(u->names);
	free(u->lowered);
	free(u->res);
	free(u->options);
	free(u);
}

void ccache_free(ccache *c)
{
	for (cunit *u = c->head, *next; u; u = next) {
		next = u->next;
		unit_free(u);
	}
	free(c->dir);
	memset(c, 0, sizeof *c);
}

int cunit_find(const cunit *u, const char *name)
{
	for (int i = 0; i < u->nk; i++)
		if (strcmp(u->names[i], name) == 0)
			return i;
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char *dir_of(const char *path)
{
	char *p = xstrdup(path);
	char *d = xstrdup(dirname(p));
	free(p);
	return d;
}

/* Hashes each "..." include found in text, relative to dir, recursively. */
static void hash_includes(sha256 *h, const char *dir, const char *text, int depth)
{
	if (depth > INCLUDE_DEPTH)
		return;
	for (const char *p = text; (p = strstr(p, "#include")) != NULL;) {
		p += 8;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '"')
			continue;
		const char *e = strchr(p + 1, '"');
		const char *nl = strchr(p + 1, '\n');
		if (!e || (nl && nl < e))
			continue;
		char *name = xstrndup(p + 1, (size_t)(e - p - 1));
		char *path = xasprintf("%s/%s", dir, name);
		char *body = NULL;
		size_t len = 0;
		sha256_update(h, "include\0", 8);
		sha256_update(h, name, strlen(name) + 1);
		if (read_file(path, &body, &len) == 0) {
			sha256_update(h, body, len);
			char *sub = dir_of(path);
			hash_includes(h, sub, body, depth + 1);
			free(sub);
			free(body);
		} else {
			sha256_update(h, "missing", 7);
		}
		free(path);
		free(name);
		p = e + 1;
	}
}

/* The NVRTC options for this compile; *n set; strings owned by the array. */
static char **build_options(const spec *s, const char *const *defs, int ndefs, int sm, int *n)
{
	char **o = xcalloc((size_t)ndefs + 8, sizeof *o);
	int k = 0;
	o[k++] = xasprintf("-arch=sm_%d", sm);
	char **sorted = xcalloc((size_t)ndefs + 1, sizeof *sorted);
	for (int i = 0; i < ndefs; i++)
		sorted[i] = (char *)defs[i];
	qsort(sorted, (size_t)ndefs, sizeof *sorted, cmp_str);
	for (int i = 0; i < ndefs; i++)
		o[k++] = xasprintf("-D%s", sorted[i]);
	free(sorted);
	char *dir = dir_of(s->path);
	o[k++] = xasprintf("-I%s", dir);
	free(dir);
	o[k++] = xstrdup("-lineinfo");
	o[k++] = xstrdup("--ptxas-options=-v");
	if (s->nlinks > 0)
		o[k++] = xstrdup("-rdc=true");
	*n = k;
	return o;
}

static void free_options(char **o, int n)
{
	for (int i = 0; i < n; i++)
		free(o[i]);
	free(o);
}

static void key_of(const spec *s, char **opts, int nopts, const char *ver, uint8_t key[32])
{
	sha256 h;
	sha256_init(&h);
	sha256_update(&h, CACHE_MAGIC, 8);
	sha256_update(&h, ver, strlen(ver) + 1);
	for (int i = 0; i < nopts; i++)
		sha256_update(&h, opts[i], strlen(opts[i]) + 1);
	sha256_update(&h, "source\0", 7);
	sha256_update(&h, s->src, strlen(s->src));
	char *dir = dir_of(s->path);
	hash_includes(&h, dir, s->src, 0);
	free(dir);
	sha256_final(&h, key);
}

int ccache_key(const spec *s, const char *const *defs, int ndefs, int sm, uint8_t key[32], char **err)
{
	if (nvrtc_load(err) != 0)
		return -1;
	int n;
	char **o = build_options(s, defs, ndefs, sm, &n);
	key_of(s, o, n, nvrtc_version(), key);
	free_options(o, n);
	return 0;
}

/* ---- serialisation of a unit, for the disk cache ---- */

static void put_u32(sbuf *b, uint32_t v) { sb_add(b, (const char *)&v, 4); }
static void put_u64(sbuf *b, uint64_t v) { sb_add(b, (const char *)&v, 8); }
static void put_bytes(sbuf *b, const void *p, size_t n)
{
	put_u64(b, p ? n : UINT64_MAX);
	if (p)
		sb_add(b, p, n);
}
static void put_str(sbuf *b, const char *s) { put_bytes(b, s, s ? strlen(s) : 0); }

typedef struct rd { const uint8_t *p, *end; int bad; } rd;

static int get(rd *r, void *dst, size_t n)
{
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return -1;
	}
	memcpy(dst, r->p, n);
	r->p += n;
	return 0;
}
static uint32_t get_u32(rd *r) { uint32_t v = 0; get(r, &v, 4); return v; }
static uint64_t get_u64(rd *r) { uint64_t v = 0; get(r, &v, 8); return v; }
static void *get_bytes(rd *r, size_t *len, int nul)
{
	uint64_t n = get_u64(r);
	if (r->bad || n == UINT64_MAX)
		return NULL;
	if (n > (uint64_t)(r->end - r->p)) {
		r->bad = 1;
		return NULL;
	}
	char *p = xmalloc((size_t)n + 1);
	get(r, p, (size_t)n);
	p[n] = 0;
	if (len)
		*len = (size_t)n;
	(void)nul;
	return p;
}

static char *unit_path(const ccache *c, const uint8_t key[32])
{
	char hex[65];
	sha256_hex(key, hex);
	return xasprintf("%s/%s.cubin", c->dir, hex);
}

static void disk_store(ccache *c, const cunit *u, char **warn)
{
	if (!c->dir)
		return;
	sbuf pay = {0};
	sb_add(&pay, (const char *)u->key, 32);
	put_u32(&pay, (uint32_t)u->nk);
	for (int i = 0; i < u->nk; i++) {
		put_str(&pay, u->names[i]);
		put_str(&pay, u->lowered[i]);
		int v[7] = { u->res[i].known, u->res[i].regs, u->res[i].smem, u->res[i].stack,
		             u->res[i].spill_st, u->res[i].spill_ld, u->res[i].cmem };
		sb_add(&pay, (const char *)v, sizeof v);
	}
	put_str(&pay, u->warnings);
	put_str(&pay, u->options);
	put_bytes(&pay, u->cubin, u->cubin_len);
	put_str(&pay, u->ptx);
	uint8_t sum[32];
	sha256 h;
	sha256_init(&h);
	sha256_update(&h, pay.s, pay.len);
	sha256_final(&h, sum);
	sbuf file = {0};
	sb_add(&file, CACHE_MAGIC, 8);
	put_u64(&file, pay.len);
	sb_add(&file, (const char *)sum, 32);
	sb_add(&file, pay.s, pay.len);
	sb_free(&pay);
	char *path = unit_path(c, u->key);
	if (mkdir_p(c->dir, 0755) != 0 || write_file_atomic(path, file.s, file.len) != 0) {
		if (!c->disk_warned && warn)
			*warn = xasprintf("cannot write compile cache '%s': %s (caching in memory only)",
			                  c->dir, strerror(errno));
		c->disk_warned = 1;
	}
	free(path);
	sb_free(&file);
}

/* A unit from disk, or NULL (absent, unreadable or failing verification). */
static cunit *disk_load(ccache *c, const uint8_t key[32])
{
	if (!c->dir)
		return NULL;
	char *path = unit_path(c, key);
	char *data = NULL;
	size_t len = 0;
	int r = read_file(path, &data, &len);
	free(path);
	if (r != 0)
		return NULL;
	rd f = { (const uint8_t *)data, (const uint8_t *)data + len, 0 };
	char magic[8];
	uint8_t sum[32], got[32];
	get(&f, magic, 8);
	uint64_t plen = get_u64(&f);
	get(&f, sum, 32);
	if (f.bad || memcmp(magic, CACHE_MAGIC, 8) != 0 || plen != (uint64_t)(f.end - f.p))
		goto corrupt;
	sha256 h;
	sha256_init(&h);
	sha256_update(&h, f.p, (size_t)plen);
	sha256_final(&h, got);
	if (memcmp(sum, got, 32) != 0)
		goto corrupt;
	cunit *u = xcalloc(1, sizeof *u);
	get(&f, u->key, 32);
	if (memcmp(u->key, key, 32) != 0) {
		unit_free(u);
		goto corrupt;
	}
	uint32_t nk = get_u32(&f);
	if (f.bad || nk > 4096) {
		unit_free(u);
		goto corrupt;
	}
	u->names = xcalloc(nk + 1, sizeof *u->names);
	u->lowered = xcalloc(nk + 1, sizeof *u->lowered);
	u->res = xcalloc(nk + 1, sizeof *u->res);
	u->nk = (int)nk;
	for (uint32_t i = 0; i < nk && !f.bad; i++) {
		u->names[i] = get_bytes(&f, NULL, 1);
		u->lowered[i] = get_bytes(&f, NULL, 1);
		int v[7] = {0};
		get(&f, v, sizeof v);
		u->res[i] = (kres){ v[0], v[1], v[2], v[3], v[4], v[5], v[6] };
		if (!u->names[i] || !u->lowered[i])
			f.bad = 1;
	}
	u->warnings = get_bytes(&f, NULL, 1);
	u->options = get_bytes(&f, NULL, 1);
	u->cubin = get_bytes(&f, &u->cubin_len, 0);
	u->ptx = get_bytes(&f, NULL, 1);
	if (f.bad || !u->cubin || !u->options) {
		unit_free(u);
		goto corrupt;
	}
	free(data);
	return u;
corrupt:
	c->corrupt++;
	free(data);
	return NULL;
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
	unit_free(v);
	c->n--;
}

static char *join_options(char **o, int n)
{
	sbuf b = {0};
	for (int i = 0; i < n; i++) {
		if (i)
			sb_putc(&b, ' ');
		sb_puts(&b, o[i]);
	}
	return sb_steal(&b);
}

const cunit *ccache_compile(ccache *c, const spec *s, const char *const *defs, int ndefs,
                            int sm, cc_source *src, double *ms, char **warn, char **err)
{
	uint64_t t0 = now_ns();
	if (nvrtc_load(err) != 0)
		return NULL;
	int nopts;
	char **opts = build_options(s, defs, ndefs, sm, &nopts);
	uint8_t key[32];
	key_of(s, opts, nopts, nvrtc_version(), key);

	for (cunit *u = c->head; u; u = u->next)
		if (memcmp(u->key, key, 32) == 0) {
			u->used = ++c->tick;
			c->hits_mem++;
			*src = CC_MEMORY;
			*ms = (double)(now_ns() - t0) / 1e6;
			free_options(opts, nopts);
			return u;
		}
	cunit *u = disk_load(c, key);
	if (u) {
		c->hits_disk++;
		*src = CC_DISK;
		mem_insert(c, u);
		*ms = (double)(now_ns() - t0) / 1e6;
		free_options(opts, nopts);
		return u;
	}

	/* every launchable kernel gets a name expression */
	const char **names = xcalloc((size_t)s->nkernels + 1, sizeof *names);
	int nn = 0;
	for (int i = 0; i < s->nkernels; i++)
		if (!s->kernels[i].is_template)
			names[nn++] = s->kernels[i].name;
	nvrtc_out out;
	int r = nvrtc_compile(s->path, s->src, (const char *const *)opts, nopts, names, nn, &out, err);
	if (r != 0) {
		/* say which -D values were in force */
		if (err && *err && ndefs > 0) {
			sbuf b = {0};
			sb_puts(&b, *err);
			sb_puts(&b, "\n(compiled with");
			for (int i = 0; i < nopts; i++)
				if (strncmp(opts[i], "-D", 2) == 0)
					sb_printf(&b, " %s", opts[i]);
			sb_puts(&b, ")");
			free(*err);
			*err = sb_steal(&b);
		}
		free(names);
		free_options(opts, nopts);
		return NULL;
	}
	if (s->nlinks > 0) {
		void *linked;
		size_t llen;
		if (jitlink(out.cubin, out.cubin_len, s->path, sm, (const char *const *)s->links, s->nlinks,
		            &linked, &llen, err) != 0) {
			nvrtc_out_free(&out);
			free(names);
			free_options(opts, nopts);
			return NULL;
		}
		free(out.cubin);
		out.cubin = linked;
		out.cubin_len = llen;
		/* resources read from the cubin: from the linked one, where shared
		 * memory is placed */
		for (int i = 0; i < out.nk; i++)
			if (out.res[i].spill_st < 0)
				cubin_resources(out.cubin, out.cubin_len, out.lowered[i], sm, &out.res[i]);
	}
	if (getenv("CUPLAY_NVRTC_LOG") && *getenv("CUPLAY_NVRTC_LOG"))
		fprintf(stderr, "nvrtc %s log of %s:\n%s\n", nvrtc_version(), s->path, out.log ? out.log : "(none)");
	u = xcalloc(1, sizeof *u);
	memcpy(u->key, key, 32);
	u->cubin = out.cubin;
	u->cubin_len = out.cubin_len;
	u->ptx = out.ptx;
	u->warnings = nvrtc_user_log(out.log);
	u->nk = nn;
	u->names = xcalloc((size_t)nn + 1, sizeof *u->names);
	for (int i = 0; i < nn; i++)
		u->names[i] = xstrdup(names[i]);
	u->lowered = out.lowered;
	u->res = out.res;
	u->options = join_options(opts, nopts);
	free(out.log);
	free(names);
	free_options(opts, nopts);
	c->misses++;
	disk_store(c, u, warn);
	mem_insert(c, u);
	*src = CC_COMPILED;
	*ms = (double)(now_ns() - t0) / 1e6;
	return u;
}
