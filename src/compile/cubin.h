/* cubin.h: a kernel's resources read from the cubin itself (its ELF
 * sections), for when NVRTC gives no ptxas report: registers and stack frame
 * from the .nv.info attributes, static shared memory from .nv.shared.<name>.
 * Spills are not recorded there. And its line table (.debug_line): where
 * each instruction's inlined code was called from. */
#ifndef CUPLAY_CUBIN_H
#define CUPLAY_CUBIN_H

#include <stddef.h>
#include <stdint.h>

/* Resources of one kernel: from the ptxas report (nvrtc.h), else from
 * the cubin (cubin_resources). */
typedef struct kres {
	int known;
	int regs, smem, stack, spill_st, spill_ld, cmem;
} kres;

/* Fills r for the kernel `lowered` of a cubin built for sm. 0 when found;
 * r->spill_st and r->spill_ld are -1 (unknown). */
int cubin_resources(const void *cubin, size_t len, const char *lowered, int sm, kres *r);

/* A variable of the module (a data object of the symbol table) named sym:
 * its size in bytes and whether it lives in constant memory (a section
 * .nv.constant*). 0 when found, -1 when not (or not an ELF cubin). */
int cubin_object(const void *cubin, size_t len, const char *sym, uint64_t *size, int *is_const);

/* The size in bytes of kernel `lowered`'s code (its .text.<lowered>
 * section): 0 when found, -1 when not (or not an ELF cubin). */
int cubin_text_size(const void *cubin, size_t len, const char *lowered, uint64_t *size);

/* Kernel `lowered`'s line table (.debug_line, in a cubin built with
 * -lineinfo), a row per instruction offset where its place changes: the
 * file (an index into files) and line, and for inlined code where it was
 * inlined: the outermost call site, a line of the function that is not
 * inlined (ptxas records, per row, the row of its inlined-at place). */
typedef struct cubin_row {
	uint32_t pc;
	int file, line;            /* file: index into cubin_lines.files */
	int site_file, site_line;  /* the outermost call site; site_line 0: not inlined */
} cubin_row;

typedef struct cubin_lines {
	char **files;              /* the line table's file names, as compiled */
	int nfiles;
	cubin_row *rows;           /* by pc, ascending */
	int n;
} cubin_lines;

/* 0 with t filled (free with cubin_lines_free), or -1 when the cubin has
 * no line table for the kernel (no -lineinfo) or it is malformed. */
int cubin_line_table(const void *cubin, size_t len, const char *lowered, cubin_lines *t);
/* The row of the instruction at pc (the last row at or before it), or NULL. */
const cubin_row *cubin_line_at(const cubin_lines *t, uint32_t pc);
void cubin_lines_free(cubin_lines *t);

#endif
