/* arch.h: the facts of a GPU architecture without a device (compile-only
 * mode): what `set`, `show`, `device` and the plan use where no worker
 * reports the real ones. */
#ifndef CUPLAY_ARCH_H
#define CUPLAY_ARCH_H

#include "plan.h"

/* Facts of a GPU architecture without a device (compile-only mode): sm_90
 * gives an H100's limits; an sm without a row, the nearest older one. */
void devinfo_for_arch(int sm, devinfo *d);

#endif
