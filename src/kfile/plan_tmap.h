/* plan_tmap.h: the tensor maps of a plan, from the file's //@ tensormap
 * lines. */
#ifndef CUPLAY_PLAN_TMAP_H
#define CUPLAY_PLAN_TMAP_H

#include "plan_types.h"
#include "expr.h"

/* The file's tensor maps (plan_tmap.c), once p's buffers are sized:
 * evaluated with the values t and checked against cuTensorMapEncodeTiled's
 * rules (box, strides, swizzle, interleave, element type) and the device
 * (TMA is sm_90's); errors name the //@ line. */
int plan_tmaps(const spec *s, const symtab *t, const devinfo *dev, plan *p, char **err);

#endif
