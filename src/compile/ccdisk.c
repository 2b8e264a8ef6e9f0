/* ccdisk.c: the compile cache's entries on disk: a unit written to a
 * temp file and renamed, read back only when its hash verifies, and the
 * directory pruned, least recently used first, under a size bound. */
#include "ccdisk.h"
#include "fileio.h"
#include "sha256.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static char *unit_path(const char *dir, const uint8_t key[32])
{
	char hex[65];
	sha256_hex(key, hex);
	return xasprintf("%s/%s.cubin", dir, hex);
}

int ccdisk_store(const char *dir, const cunit *u, uint64_t max_bytes, int *pruned)
{
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
	sb_add(&file, CCDISK_MAGIC, 8);
	put_u64(&file, pay.len);
	sb_add(&file, (const char *)sum, 32);
	sb_add(&file, pay.s, pay.len);
	sb_free(&pay);
	char *path = unit_path(dir, u->key);
	int rc = 0;
	if (mkdir_p(dir, 0700) != 0 || write_file_atomic(path, file.s, file.len) != 0) {
		int e = errno;
		rc = -1;
		free(path);
		sb_free(&file);
		errno = e;
		return rc;
	}
	*pruned += ccdisk_prune(dir, max_bytes);
	free(path);
	sb_free(&file);
	return rc;
}

/* A cache entry's file name: 64 hex digits and ".cubin". */
static int entry_name(const char *n)
{
	size_t l = strlen(n);
	if (l != 64 + 6 || strcmp(n + 64, ".cubin") != 0)
		return 0;
	for (int i = 0; i < 64; i++)
		if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
			return 0;
	return 1;
}

int ccdisk_prune(const char *dir, uint64_t max_bytes)
{
	dir_file *v;
	int n = dir_files(dir, entry_name, &v), removed = 0;
	uint64_t total = 0;
	for (int i = 0; i < n; i++)
		total += v[i].size;
	/* least recently used first (a hit renews an entry's time); the newest
	 * stays, however small the bound */
	for (int i = 0; i + 1 < n && total > max_bytes; i++)
		if (unlink(v[i].path) == 0) {
			total -= v[i].size;
			removed++;
		}
	dir_files_free(v, n);
	return removed;
}

cunit *ccdisk_load(const char *dir, const uint8_t key[32], int *corrupt)
{
	char *path = unit_path(dir, key);
	char *data = NULL;
	size_t len = 0;
	int r = read_file(path, &data, &len);
	if (r == 0)
		utimensat(AT_FDCWD, path, NULL, 0); /* used now: pruned last */
	free(path);
	if (r != 0)
		return NULL;
	rd f = { (const uint8_t *)data, (const uint8_t *)data + len, 0 };
	char magic[8];
	uint8_t sum[32], got[32];
	get(&f, magic, 8);
	uint64_t plen = get_u64(&f);
	get(&f, sum, 32);
	if (f.bad || memcmp(magic, CCDISK_MAGIC, 8) != 0 || plen != (uint64_t)(f.end - f.p))
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
		cunit_free(u);
		goto corrupt;
	}
	uint32_t nk = get_u32(&f);
	if (f.bad || nk > 4096) {
		cunit_free(u);
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
		cunit_free(u);
		goto corrupt;
	}
	free(data);
	return u;
corrupt:
	(*corrupt)++;
	free(data);
	return NULL;
}
