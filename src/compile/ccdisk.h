/* ccdisk.h: the compile cache's entries on disk, one file a unit
 * ("DIR/<64 hex digits of the key>.cubin"): the magic, the payload's
 * length and SHA-256, then the payload (the key, each kernel's names and
 * resources, the warnings, the options, the cubin, the PTX). */
#ifndef CUPLAY_CCDISK_H
#define CUPLAY_CCDISK_H

#include <stdint.h>
#include "cunit.h"

/* The entries' format; part of every cache key, so that a new format
 * never reads an old one's entries. */
#define CCDISK_MAGIC "CUPLAYC2"

/* The largest entry read or written: far above any cubin with its PTX (a
 * larger file is damaged, or planted, and never read into memory). */
#define CCDISK_MAX_ENTRY ((uint64_t)256 << 20)

/* Writes u under dir (made if missing), then prunes dir under max_bytes
 * (*pruned += entries removed). 0, or -1 with errno when it could not be
 * written (EFBIG: over CCDISK_MAX_ENTRY). */
int ccdisk_store(const char *dir, const cunit *u, uint64_t max_bytes, int *pruned);
/* The unit of key from dir, or NULL: absent, unreadable, or failing
 * verification or over CCDISK_MAX_ENTRY (then ++*corrupt). A hit renews the entry's time. */
cunit *ccdisk_load(const char *dir, const uint8_t key[32], int *corrupt);
/* Removes the least recently used entries of dir until its entries take
 * at most max_bytes, keeping the newest; returns how many went. */
int ccdisk_prune(const char *dir, uint64_t max_bytes);

#endif
