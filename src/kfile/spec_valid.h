/* spec_valid.h: the checks that need the whole kernel file. */
#ifndef CUPLAY_SPEC_VALID_H
#define CUPLAY_SPEC_VALID_H

#include "spec_err.h"
#include "spec_types.h"

/* Adds each error found to e ("path:line:col: ..."). */
void spec_validate(const spec *s, spec_errs *e);

#endif
