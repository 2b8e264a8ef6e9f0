/* spec_free.h: what a parsed kernel file owns, freed. */
#ifndef CUPLAY_SPEC_FREE_H
#define CUPLAY_SPEC_FREE_H

#include "spec_types.h"

void spec_check_free(spec_check *c);
void spec_free(spec *s);

#endif
