/* spec_valid.h: the checks that need the whole kernel file. */
#ifndef CUPLAY_SPEC_VALID_H
#define CUPLAY_SPEC_VALID_H

#include "spec_types.h"

/* 0, or -1 with *err "path:line:col: ..." */
int spec_validate(const spec *s, char **err);

#endif
