/* cubin.h: a kernel's resources read from the cubin itself (its ELF
 * sections), for when NVRTC gives no ptxas report: registers and stack frame
 * from the .nv.info attributes, static shared memory from .nv.shared.<name>.
 * Spills are not recorded there. */
#ifndef CUPLAY_CUBIN_H
#define CUPLAY_CUBIN_H

#include <stddef.h>
#include "nvrtc.h"

/* Fills r for the kernel `lowered` of a cubin built for sm. 0 when found;
 * r->spill_st and r->spill_ld are -1 (unknown). */
int cubin_resources(const void *cubin, size_t len, const char *lowered, int sm, kres *r);

#endif
