/* prelude.h: what nvcc's implicit include gives a kernel file that NVRTC
 * does not, handed to NVRTC as a header included before the file.
 *
 * nvcc compiles every .cu file as if it began with #include
 * "cuda_runtime.h", which brings the host's <math.h>, <stdlib.h>,
 * <limits.h> and <cmath> (through crt/math_functions.h): device code sees
 * INFINITY, NAN, HUGE_VALF, M_PI, INT_MAX, RAND_MAX, int64_t, uint, and
 * std::sqrt and the rest of <cmath>'s functions, without an include.
 * NVRTC brings none of them. What nvcc does not give (FLT_MAX, uint32_t,
 * CUDART_INF_F, std::min, std::numeric_limits) is not given here either:
 * tests/paste.sh holds both compilers to the same answer.
 *
 * None of it clashes with the headers that define the same names later:
 * INFINITY and NAN are constants, not macros (libcu++'s <cuda/std/cmath>
 * defines them as macros under NVRTC), the <limits.h> macros have
 * libcu++'s <cuda/std/climits> spelling token for token, the types its
 * <cuda/std/cstdint> types, and the rest is guarded or unknown to them. */
#ifndef CUPLAY_PRELUDE_H
#define CUPLAY_PRELUDE_H

/* The header's name, as NVRTC's -include option names it. */
#define PRELUDE_NAME "__cuplay_prelude.h"

/* Its text. */
const char *prelude_text(void);

#endif
