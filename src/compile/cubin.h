/* cubin.h: a kernel's resources read from the cubin itself (its ELF
 * sections), for when NVRTC gives no ptxas report: registers and stack frame
 * from the .nv.info attributes, static shared memory from .nv.shared.<name>.
 * Spills are not recorded there. */
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

#endif
