/* ccdisk.c: the compile cache's entries on disk: a unit written to a
 * temp file and renamed, read back only when its hash verifies, and the
 * directory pruned, least recently used first, under a size bound. */
#include "ccdisk.h"
#include "fileio.h"
#include "pack.h"
#include "sha256.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	pack_u32(&pay, (uint32_t)u->nk);
	for (int i = 0; i < u->nk; i++) {
		pack_str(&pay, u->names[i]);
		pack_str(&pay, u->lowered[i]);
		int v[7] = { u->res[i].known, u->res[i].regs, u->res[i].smem, u->res[i].stack,
		             u->res[i].spill_st, u->res[i].spill_ld, u->res[i].cmem };
		sb_add(&pay, (const char *)v, sizeof v);
	}
	pack_str(&pay, u->warnings);
	pack_str(&pay, u->options);
	pack_bytes(&pay, u->cubin, u->cubin_len);
	pack_str(&pay, u->ptx);
	uint8_t sum[32];
	sha256 h;
	sha256_init(&h);
	sha256_update(&h, pay.s, pay.len);
	sha256_final(&h, sum);
	sbuf file = {0};
	sb_add(&file, CCDISK_MAGIC, 8);
	pack_u64(&file, pay.len);
	sb_add(&file, (const char *)sum, 32);
	sb_add(&file, pay.s, pay.len);
	sb_free(&pay);
	if (file.len > CCDISK_MAX_ENTRY) {
		sb_free(&file);
		errno = EFBIG;
		return -1;
	}
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
	int r = read_file_max(path, &data, &len, CCDISK_MAX_ENTRY);
	if (r == 0)
		utimensat(AT_FDCWD, path, NULL, 0); /* used now: pruned last */
	free(path);
	if (r != 0 && errno == EFBIG) /* damaged: never read, recompiled and replaced */
		goto corrupt;
	if (r != 0)
		return NULL;
	unpack f;
	unpack_init(&f, data, len);
	char magic[8];
	uint8_t sum[32], got[32];
	unpack_take(&f, magic, 8);
	uint64_t plen = unpack_u64(&f);
	unpack_take(&f, sum, 32);
	if (f.bad || memcmp(magic, CCDISK_MAGIC, 8) != 0 || plen != (uint64_t)(f.end - f.p))
		goto corrupt;
	sha256 h;
	sha256_init(&h);
	sha256_update(&h, f.p, (size_t)plen);
	sha256_final(&h, got);
	if (memcmp(sum, got, 32) != 0)
		goto corrupt;
	cunit *u = xcalloc(1, sizeof *u);
	unpack_take(&f, u->key, 32);
	if (memcmp(u->key, key, 32) != 0) {
		cunit_free(u);
		goto corrupt;
	}
	uint32_t nk = unpack_u32(&f);
	if (f.bad || nk > 4096) {
		cunit_free(u);
		goto corrupt;
	}
	u->names = xcalloc(nk + 1, sizeof *u->names);
	u->lowered = xcalloc(nk + 1, sizeof *u->lowered);
	u->res = xcalloc(nk + 1, sizeof *u->res);
	u->nk = (int)nk;
	for (uint32_t i = 0; i < nk && !f.bad; i++) {
		u->names[i] = unpack_bytes(&f, NULL);
		u->lowered[i] = unpack_bytes(&f, NULL);
		int v[7] = {0};
		unpack_take(&f, v, sizeof v);
		u->res[i] = (kres){ v[0], v[1], v[2], v[3], v[4], v[5], v[6] };
		if (!u->names[i] || !u->lowered[i])
			f.bad = 1;
	}
	u->warnings = unpack_bytes(&f, NULL);
	u->options = unpack_bytes(&f, NULL);
	u->cubin = unpack_bytes(&f, &u->cubin_len);
	u->ptx = unpack_bytes(&f, NULL);
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
