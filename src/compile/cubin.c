/* cubin.c: kernel resources from a cubin's ELF sections. */
#include "cubin.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { EIFMT_SVAL = 4, EIATTR_FRAME_SIZE = 0x11, EIATTR_REGCOUNT = 0x2f };

typedef struct sect { uint32_t name, type; uint64_t off, size; uint32_t link; uint64_t entsize; } sect;

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static int get_sect(const uint8_t *d, size_t len, uint64_t shoff, uint16_t shentsize, int i, sect *s)
{
	uint64_t o = shoff + (uint64_t)i * shentsize;
	if (shentsize < 64 || o + 64 > len)
		return -1;
	const uint8_t *p = d + o;
	s->name = rd32(p);
	s->type = rd32(p + 4);
	s->off = rd64(p + 24);
	s->size = rd64(p + 32);
	s->link = rd32(p + 40);
	s->entsize = rd64(p + 56);
	/* NOBITS (8) sections have a size but no bytes in the file */
	if (s->type != 8 && (s->off > len || s->size > len - s->off))
		return -1;
	return 0;
}

static const char *str_at(const uint8_t *d, const sect *strtab, uint32_t off)
{
	if (off >= strtab->size)
		return NULL;
	const char *s = (const char *)d + strtab->off + off;
	if (!memchr(s, 0, strtab->size - off))
		return NULL;
	return s;
}

int cubin_resources(const void *cubin, size_t len, const char *lowered, int sm, kres *r)
{
	const uint8_t *d = cubin;
	memset(r, 0, sizeof *r);
	r->spill_st = r->spill_ld = -1;
	if (len < 64 || memcmp(d, "\177ELF", 4) != 0 || d[4] != 2 || d[5] != 1)
		return -1; /* 64-bit little-endian ELF only */
	uint64_t shoff = rd64(d + 0x28);
	uint16_t shentsize = rd16(d + 0x3a), shnum = rd16(d + 0x3c), shstrndx = rd16(d + 0x3e);
	sect shstr;
	if (shstrndx >= shnum || get_sect(d, len, shoff, shentsize, shstrndx, &shstr) != 0)
		return -1;
	char shared_name[600];
	snprintf(shared_name, sizeof shared_name, ".nv.shared.%s", lowered);
	int sym_index = -1;
	sect symtab = { 0 }, info = { 0 };
	int have_symtab = 0, have_info = 0, found_text = 0;
	for (int i = 0; i < shnum; i++) {
		sect s;
		if (get_sect(d, len, shoff, shentsize, i, &s) != 0)
			continue;
		const char *n = str_at(d, &shstr, s.name);
		if (!n)
			continue;
		if (s.type == 2) { /* SHT_SYMTAB */
			symtab = s;
			have_symtab = 1;
		} else if (strcmp(n, ".nv.info") == 0) {
			info = s;
			have_info = 1;
		} else if (strcmp(n, shared_name) == 0) {
			long v = (long)s.size - (sm >= 90 && s.size >= 1024 ? 1024 : 0); /* sm_90: 1 KiB reserved */
			r->smem = (int)(v > 0 ? v : 0);
		} else if (strncmp(n, ".text.", 6) == 0 && strcmp(n + 6, lowered) == 0) {
			found_text = 1;
		}
	}
	if (!found_text || !have_symtab || !have_info || symtab.entsize < 24)
		return -1;
	sect strtab;
	if (get_sect(d, len, shoff, shentsize, (int)symtab.link, &strtab) != 0)
		return -1;
	for (uint64_t k = 0; k < symtab.size / symtab.entsize; k++) {
		const uint8_t *e = d + symtab.off + k * symtab.entsize;
		const char *n = str_at(d, &strtab, rd32(e));
		if (n && strcmp(n, lowered) == 0) {
			sym_index = (int)k;
			break;
		}
	}
	if (sym_index < 0)
		return -1;
	/* .nv.info: records of {u8 format, u8 attribute, u16 size, data} */
	const uint8_t *p = d + info.off, *end = p + info.size;
	while (p + 4 <= end) {
		uint8_t fmt = p[0], attr = p[1];
		uint16_t sz = rd16(p + 2);
		if (fmt != EIFMT_SVAL) {
			p += 4;
			continue;
		}
		if (p + 4 + sz > end)
			break;
		if (sz == 8 && rd32(p + 4) == (uint32_t)sym_index) {
			if (attr == EIATTR_REGCOUNT) {
				r->regs = (int)rd32(p + 8);
				r->known = 1;
			} else if (attr == EIATTR_FRAME_SIZE) {
				r->stack = (int)rd32(p + 8);
			}
		}
		p += 4 + sz;
	}
	return r->known ? 0 : -1;
}

int cubin_object(const void *cubin, size_t len, const char *sym, uint64_t *size, int *is_const)
{
	const uint8_t *d = cubin;
	if (len < 64 || memcmp(d, "\177ELF", 4) != 0 || d[4] != 2 || d[5] != 1)
		return -1;
	uint64_t shoff = rd64(d + 0x28);
	uint16_t shentsize = rd16(d + 0x3a), shnum = rd16(d + 0x3c), shstrndx = rd16(d + 0x3e);
	sect shstr, symtab = { 0 }, strtab;
	if (shstrndx >= shnum || get_sect(d, len, shoff, shentsize, shstrndx, &shstr) != 0)
		return -1;
	int have_symtab = 0;
	for (int i = 0; i < shnum && !have_symtab; i++) {
		sect s;
		if (get_sect(d, len, shoff, shentsize, i, &s) == 0 && s.type == 2) { /* SHT_SYMTAB */
			symtab = s;
			have_symtab = 1;
		}
	}
	if (!have_symtab || symtab.entsize < 24 || get_sect(d, len, shoff, shentsize, (int)symtab.link, &strtab) != 0)
		return -1;
	for (uint64_t k = 0; k < symtab.size / symtab.entsize; k++) {
		const uint8_t *e = d + symtab.off + k * symtab.entsize;
		const char *n = str_at(d, &strtab, rd32(e));
		if (!n || strcmp(n, sym) != 0 || (e[4] & 0xf) != 1) /* STT_OBJECT */
			continue;
		uint16_t shndx = rd16(e + 6);
		sect s;
		const char *sn = NULL;
		if (shndx < shnum && get_sect(d, len, shoff, shentsize, shndx, &s) == 0)
			sn = str_at(d, &shstr, s.name);
		*size = rd64(e + 16);
		*is_const = sn && strncmp(sn, ".nv.constant", 12) == 0;
		return 0;
	}
	return -1;
}

int cubin_text_size(const void *cubin, size_t len, const char *lowered, uint64_t *size)
{
	const uint8_t *d = cubin;
	if (len < 64 || memcmp(d, "\177ELF", 4) != 0 || d[4] != 2 || d[5] != 1)
		return -1;
	uint64_t shoff = rd64(d + 0x28);
	uint16_t shentsize = rd16(d + 0x3a), shnum = rd16(d + 0x3c), shstrndx = rd16(d + 0x3e);
	sect shstr;
	if (shstrndx >= shnum || get_sect(d, len, shoff, shentsize, shstrndx, &shstr) != 0)
		return -1;
	for (int i = 0; i < shnum; i++) {
		sect s;
		const char *n;
		if (get_sect(d, len, shoff, shentsize, i, &s) != 0 || !(n = str_at(d, &shstr, s.name)))
			continue;
		if (strncmp(n, ".text.", 6) == 0 && strcmp(n + 6, lowered) == 0) {
			*size = s.size;
			return 0;
		}
	}
	return -1;
}
