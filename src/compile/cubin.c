/* cubin.c: kernel resources from a cubin's ELF sections. */
#include "cubin.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

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

/* A cubin's section headers and their names. */
typedef struct elf {
	const uint8_t *d;
	size_t len;
	uint64_t shoff;
	uint16_t shentsize, shnum;
	sect shstr;
} elf;

/* 0, or -1 when it is not a 64-bit little-endian ELF with section names. */
static int elf_open(elf *e, const void *cubin, size_t len)
{
	const uint8_t *d = cubin;
	if (len < 64 || memcmp(d, "\177ELF", 4) != 0 || d[4] != 2 || d[5] != 1)
		return -1;
	e->d = d;
	e->len = len;
	e->shoff = rd64(d + 0x28);
	e->shentsize = rd16(d + 0x3a);
	e->shnum = rd16(d + 0x3c);
	uint16_t shstrndx = rd16(d + 0x3e);
	return shstrndx < e->shnum && get_sect(d, len, e->shoff, e->shentsize, shstrndx, &e->shstr) == 0 ? 0 : -1;
}

/* Section i: 0, or -1. */
static int elf_get(const elf *e, int i, sect *s)
{
	return get_sect(e->d, e->len, e->shoff, e->shentsize, i, s);
}

/* Section i and its name: 0, or -1. */
static int elf_sect(const elf *e, int i, sect *s, const char **name)
{
	if (elf_get(e, i, s) != 0 || !(*name = str_at(e->d, &e->shstr, s->name)))
		return -1;
	return 0;
}

int cubin_resources(const void *cubin, size_t len, const char *lowered, int sm, kres *r)
{
	const uint8_t *d = cubin;
	memset(r, 0, sizeof *r);
	r->spill_st = r->spill_ld = -1;
	elf el;
	if (elf_open(&el, cubin, len) != 0)
		return -1; /* 64-bit little-endian ELF only */
	char shared_name[600];
	snprintf(shared_name, sizeof shared_name, ".nv.shared.%s", lowered);
	int sym_index = -1;
	sect symtab = { 0 }, info = { 0 };
	int have_symtab = 0, have_info = 0, found_text = 0;
	for (int i = 0; i < el.shnum; i++) {
		sect s;
		const char *n;
		if (elf_sect(&el, i, &s, &n) != 0)
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
	if (elf_get(&el, (int)symtab.link, &strtab) != 0)
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
	elf el;
	sect symtab = { 0 }, strtab;
	if (elf_open(&el, cubin, len) != 0)
		return -1;
	int have_symtab = 0;
	for (int i = 0; i < el.shnum && !have_symtab; i++) {
		sect s;
		if (elf_get(&el, i, &s) == 0 && s.type == 2) { /* SHT_SYMTAB */
			symtab = s;
			have_symtab = 1;
		}
	}
	if (!have_symtab || symtab.entsize < 24 || elf_get(&el, (int)symtab.link, &strtab) != 0)
		return -1;
	for (uint64_t k = 0; k < symtab.size / symtab.entsize; k++) {
		const uint8_t *e = d + symtab.off + k * symtab.entsize;
		const char *n = str_at(d, &strtab, rd32(e));
		if (!n || strcmp(n, sym) != 0 || (e[4] & 0xf) != 1) /* STT_OBJECT */
			continue;
		uint16_t shndx = rd16(e + 6);
		sect s;
		const char *sn = NULL;
		if (shndx < el.shnum && elf_sect(&el, shndx, &s, &sn) != 0)
			sn = NULL;
		*size = rd64(e + 16);
		*is_const = sn && strncmp(sn, ".nv.constant", 12) == 0;
		return 0;
	}
	return -1;
}

static int sect_named(const elf *e, const char *want, sect *out, sect *symtab);

int cubin_text_size(const void *cubin, size_t len, const char *lowered, uint64_t *size)
{
	elf el;
	if (elf_open(&el, cubin, len) != 0)
		return -1;
	char *want = xasprintf(".text.%s", lowered);
	sect s;
	int rc = sect_named(&el, want, &s, NULL);
	free(want);
	if (rc == 0)
		*size = s.size;
	return rc;
}

/* ------------------------------------------------------------ the line table */

/* A section of the opened ELF found by name (and, where symtab is given,
 * the symbol table): 0, or -1. */
static int sect_named(const elf *e, const char *want, sect *out, sect *symtab)
{
	int found = 0;
	for (int i = 0; i < e->shnum; i++) {
		sect s;
		const char *n;
		if (elf_sect(e, i, &s, &n) != 0)
			continue;
		if (symtab && s.type == 2) /* SHT_SYMTAB */
			*symtab = s;
		if (strcmp(n, want) == 0 && s.type != 8)
			*out = s, found = 1;
	}
	return found ? 0 : -1;
}

/* A reader over [p, end): every read bounded, *bad set past the end. */
typedef struct rd { const uint8_t *p, *end; int bad; } rd;

static uint64_t uleb(rd *r)
{
	uint64_t v = 0;
	for (int sh = 0; r->p < r->end; sh += 7) {
		uint8_t b = *r->p++;
		if (sh < 64)
			v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80))
			return v;
	}
	r->bad = 1;
	return 0;
}

static int64_t sleb(rd *r)
{
	uint64_t v = 0;
	int sh = 0;
	while (r->p < r->end) {
		uint8_t b = *r->p++;
		if (sh < 64)
			v |= (uint64_t)(b & 0x7f) << sh;
		sh += 7;
		if (!(b & 0x80)) {
			if (sh < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << sh;
			return (int64_t)v;
		}
	}
	r->bad = 1;
	return 0;
}

static const char *cstr(rd *r)
{
	const uint8_t *z = r->p < r->end ? memchr(r->p, 0, (size_t)(r->end - r->p)) : NULL;
	if (!z) {
		r->bad = 1;
		return "";
	}
	const char *s = (const char *)r->p;
	r->p = z + 1;
	return s;
}

/* The symbol table and its names, found once; ok 0 where there is none. */
typedef struct syms { sect tab, str; int ok; } syms;

/* The name of the symbol the relocation at section offset off names (the
 * function a sequence's DW_LNE_set_address is against), or NULL. */
static const char *reloc_sym(const uint8_t *d, const sect *rela, const syms *sy, uint64_t off)
{
	if (!rela->size || !sy->ok)
		return NULL;
	for (uint64_t k = 0; k + 24 <= rela->size; k += 24) {
		const uint8_t *e = d + rela->off + k;
		if (rd64(e) != off)
			continue;
		uint64_t sym = rd64(e + 8) >> 32;
		if (sym >= sy->tab.size / sy->tab.entsize)
			return NULL;
		return str_at(d, &sy->str, rd32(d + sy->tab.off + sym * sy->tab.entsize));
	}
	return NULL;
}

/* One sequence's rows, kept while its function is the one wanted. */
typedef struct seq {
	cubin_row *rows;
	int *inl;              /* per row: the row (1-based, in the sequence) it was inlined at; 0 none */
	int n, cap, mine;
} seq;

static void seq_row(seq *q, uint64_t addr, int file, int64_t line, int inl)
{
	if (!q->mine)
		return;
	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 64;
		q->rows = xrealloc(q->rows, (size_t)q->cap * sizeof *q->rows);
		q->inl = xrealloc(q->inl, (size_t)q->cap * sizeof *q->inl);
	}
	cubin_row *w = &q->rows[q->n];
	memset(w, 0, sizeof *w);
	w->pc = (uint32_t)addr;
	w->file = file - 1;
	w->line = line > 0 && line < INT32_MAX ? (int)line : 0;
	q->inl[q->n++] = inl;
}

/* A sequence ended: each inlined row's outermost call site followed
 * through the rows it names, the rows appended to t. */
static void seq_end(seq *q, cubin_lines *t)
{
	for (int i = 0; q->mine && i < q->n; i++) {
		int at = q->inl[i], steps = 0;
		const cubin_row *r = NULL;
		while (at > 0 && at <= q->n && steps++ < 64) {
			r = &q->rows[at - 1];
			at = q->inl[at - 1];
		}
		if (r && at == 0) {
			q->rows[i].site_file = r->file;
			q->rows[i].site_line = r->line;
		}
	}
	if (q->mine && q->n) {
		t->rows = xrealloc(t->rows, (size_t)(t->n + q->n) * sizeof *t->rows);
		memcpy(t->rows + t->n, q->rows, (size_t)q->n * sizeof *q->rows);
		t->n += q->n;
	}
	q->n = 0;
	q->mine = 0;
}

/* The program of one unit's header h (its std opcodes' lengths, line base,
 * range, ...), the rows of `lowered`'s sequences into t. */
typedef struct lhead { int minlen, line_base, line_range, opbase; const uint8_t *oplen; } lhead;

static void run_program(rd *r, const lhead *h, const uint8_t *d, const sect *rela, const syms *sy,
                        uint64_t sect_off, const char *lowered, int file0, cubin_lines *t)
{
	seq q = { 0 };
	uint64_t addr = 0;
	int64_t line = 1; /* wide: a malformed table's advances cannot overflow it */
	int file = 1, inl = 0;
	while (r->p < r->end && !r->bad) {
		uint8_t op = *r->p++;
		if (op >= h->opbase) {
			int adj = op - h->opbase;
			addr += (uint64_t)(adj / h->line_range * h->minlen);
			line += h->line_base + adj % h->line_range;
			if (line < INT32_MIN || line > INT32_MAX)
				line = 0;
			seq_row(&q, addr, file ? file0 + file : 0, line, inl);
		} else if (op == 0) {
			uint64_t n = uleb(r);
			if (n == 0 || n > (uint64_t)(r->end - r->p)) {
				r->bad = 1;
				break;
			}
			const uint8_t *next = r->p + n;
			uint8_t sub = *r->p++;
			if (sub == 1) { /* end_sequence */
				seq_end(&q, t);
				addr = 0, file = 1, line = 1, inl = 0;
			} else if (sub == 2 && n == 9) { /* set_address, against the function's symbol */
				const char *fn = reloc_sym(d, rela, sy, (uint64_t)(r->p - d) - sect_off);
				q.mine = fn && strcmp(fn, lowered) == 0;
				addr = rd64(r->p);
			} else if (sub == 0x90) { /* ptxas: the row this code was inlined at, its function's name */
				rd a = { r->p, next, 0 };
				uint64_t at = uleb(&a);
			inl = at < INT32_MAX ? (int)at : 0;
			}
			r->p = next;
		} else if (op == 1) {
			seq_row(&q, addr, file ? file0 + file : 0, line, inl);
		} else if (op == 2) {
			addr += uleb(r) * (uint64_t)h->minlen;
		} else if (op == 3) {
			int64_t step = sleb(r);
			line = step > INT32_MAX || step < INT32_MIN ? 0 : line + step;
		} else if (op == 4) {
			uint64_t f = uleb(r);
			file = f < 65536 ? (int)f : 0; /* past any table: no file */
		} else if (op == 8) {
			addr += (uint64_t)((255 - h->opbase) / h->line_range * h->minlen);
		} else if (op == 9) {
			if (r->end - r->p < 2) {
				r->bad = 1;
				break;
			}
			addr += rd16(r->p);
			r->p += 2;
		} else {
			for (int k = 0; k < h->oplen[op - 1]; k++)
				uleb(r);
		}
	}
	free(q.rows);
	free(q.inl);
}

/* One unit of the section at *at: its files appended to t, its rows of
 * `lowered` into t; *at past it. 0, or -1 when malformed. */
static int read_unit(const uint8_t *d, size_t len, const sect *dl, const sect *rela, const syms *sy,
                     uint64_t *at, const char *lowered, cubin_lines *t)
{
	const uint8_t *base = d + dl->off, *u = base + *at, *send = base + dl->size;
	if (send - u < 15)
		return -1;
	uint32_t ulen = rd32(u);
	if (ulen == 0xffffffffu || ulen > (uint64_t)(send - u - 4))
		return -1;
	const uint8_t *uend = u + 4 + ulen;
	int version = rd16(u + 4);
	uint32_t hlen = rd32(u + 6);
	const uint8_t *prog = u + 10 + hlen;
	if (version < 2 || version > 4 || prog > uend)
		return -1;
	rd r = { u + 10, prog, 0 };
	lhead h;
	h.minlen = r.p < r.end ? *r.p++ : 0;
	if (version >= 4 && r.p < r.end)
		r.p++; /* maximum_operations_per_instruction */
	if (r.end - r.p < 4)
		return -1;
	r.p++; /* default_is_stmt */
	h.line_base = (int8_t)*r.p++;
	h.line_range = *r.p++;
	h.opbase = *r.p++;
	if (h.line_range == 0 || h.opbase == 0 || r.end - r.p < h.opbase - 1)
		return -1;
	h.oplen = r.p;
	r.p += h.opbase - 1;
	while (r.p < r.end && *r.p)
		cstr(&r); /* the include directories */
	r.p++;
	int file0 = t->nfiles;
	while (r.p < r.end && *r.p && !r.bad) {
		const char *name = cstr(&r);
		uleb(&r), uleb(&r), uleb(&r);
		t->files = xrealloc(t->files, (size_t)(t->nfiles + 1) * sizeof *t->files);
		t->files[t->nfiles++] = xstrdup(name);
	}
	if (r.bad || r.p >= r.end)
		return -1;
	rd pr = { prog, uend, 0 };
	run_program(&pr, &h, d, rela, sy, dl->off, lowered, file0, t);
	*at = (uint64_t)(uend - base);
	return pr.bad ? -1 : 0;
}

int cubin_line_table(const void *cubin, size_t len, const char *lowered, cubin_lines *t)
{
	const uint8_t *d = cubin;
	memset(t, 0, sizeof *t);
	sect dl, rela = { 0 };
	syms sy = { 0 };
	elf el;
	if (elf_open(&el, d, len) != 0 || sect_named(&el, ".debug_line", &dl, &sy.tab) != 0)
		return -1;
	sect_named(&el, ".rela.debug_line", &rela, NULL);
	sy.ok = sy.tab.entsize >= 24 && elf_get(&el, (int)sy.tab.link, &sy.str) == 0;
	for (uint64_t at = 0; at < dl.size;)
		if (read_unit(d, len, &dl, &rela, &sy, &at, lowered, t) != 0)
			break;
	for (int i = 0; i < t->n; i++) /* a file index the table does not hold: no file */
	{
		if (t->rows[i].file < 0 || t->rows[i].file >= t->nfiles)
			t->rows[i].file = -1;
		if (t->rows[i].site_file < 0 || t->rows[i].site_file >= t->nfiles)
			t->rows[i].site_file = -1, t->rows[i].site_line = 0;
	}
	if (t->n == 0) {
		cubin_lines_free(t);
		return -1;
	}
	/* by pc, stable: the rows at one pc keep their order (the last is the
	 * instruction's place); a sequence's rows mostly come in order already */
	for (int i = 1; i < t->n; i++) {
		cubin_row r = t->rows[i];
		int j = i;
		for (; j > 0 && t->rows[j - 1].pc > r.pc; j--)
			t->rows[j] = t->rows[j - 1];
		t->rows[j] = r;
	}
	return 0;
}

const cubin_row *cubin_line_at(const cubin_lines *t, uint32_t pc)
{
	const cubin_row *best = NULL;
	for (int i = 0; i < t->n && t->rows[i].pc <= pc; i++)
		best = &t->rows[i];
	return best;
}

void cubin_lines_free(cubin_lines *t)
{
	for (int i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	free(t->files);
	free(t->rows);
	memset(t, 0, sizeof *t);
}
