/* prelude.c: the names nvcc's implicit cuda_runtime.h gives device code,
 * for NVRTC (prelude.h says which and why). */
#include "prelude.h"

static const char text[] =
	"/* cuplay: what nvcc's implicit cuda_runtime.h makes visible (prelude.c) */\n"
	"#pragma once\n"
	/* <math.h> */
	"__device__ constexpr float INFINITY = __builtin_bit_cast(float, 0x7f800000u);\n"
	"__device__ constexpr float NAN = __builtin_bit_cast(float, 0x7fc00000u);\n"
	"#define HUGE_VALF INFINITY\n"
	"#define HUGE_VAL ((double)INFINITY)\n"
	"#define MAXFLOAT 3.40282347e+38F\n"
	"#define M_E 2.7182818284590452354\n"
	"#define M_LOG2E 1.4426950408889634074\n"
	"#define M_LOG10E 0.43429448190325182765\n"
	"#define M_LN2 0.69314718055994530942\n"
	"#define M_LN10 2.30258509299404568402\n"
	"#define M_PI 3.14159265358979323846\n"
	"#define M_PI_2 1.57079632679489661923\n"
	"#define M_PI_4 0.78539816339744830962\n"
	"#define M_1_PI 0.31830988618379067154\n"
	"#define M_2_PI 0.63661977236758134308\n"
	"#define M_2_SQRTPI 1.12837916709551257390\n"
	"#define M_SQRT2 1.41421356237309504880\n"
	"#define M_SQRT1_2 0.70710678118654752440\n"
	"#define FP_NAN 0\n#define FP_INFINITE 1\n#define FP_ZERO 2\n#define FP_SUBNORMAL 3\n#define FP_NORMAL 4\n"
	"#define MATH_ERRNO 1\n#define MATH_ERREXCEPT 2\n"
	/* <stdlib.h> */
	"#define RAND_MAX 2147483647\n#define EXIT_SUCCESS 0\n#define EXIT_FAILURE 1\n"
	/* <stddef.h>: libcu++'s own, as its <cuda/std/cstddef> has it */
	"#ifndef offsetof\n"
	"#define offsetof(type, member) (::size_t) ((char*) &(((type*) 0)->member) - (char*) 0)\n"
	"#endif\n"
	/* <limits.h>: as <cuda/std/climits> spells them under NVRTC */
	"#define CHAR_BIT 8\n"
	"#define SCHAR_MIN (-128)\n#define SCHAR_MAX 127\n#define UCHAR_MAX 255\n"
	"#if ('\\xff' > 0)\n#define CHAR_MIN 0\n#define CHAR_MAX UCHAR_MAX\n"
	"#else\n#define CHAR_MIN SCHAR_MIN\n#define CHAR_MAX SCHAR_MAX\n#endif\n"
	"#define SHRT_MIN (-SHRT_MAX - 1)\n#define SHRT_MAX 0x7fff\n#define USHRT_MAX 0xffff\n"
	"#define INT_MIN (-INT_MAX - 1)\n#define INT_MAX 0x7fffffff\n#define UINT_MAX 0xffffffff\n"
	"#define LONG_MIN (-LONG_MAX - 1)\n"
	"#ifdef __LP64__\n#define LONG_MAX LLONG_MAX\n#define ULONG_MAX ULLONG_MAX\n"
	"#else\n#define LONG_MAX INT_MAX\n#define ULONG_MAX UINT_MAX\n#endif\n"
	"#define LLONG_MIN (-LLONG_MAX - 1)\n#define LLONG_MAX 0x7fffffffffffffffLL\n"
	"#define ULLONG_MAX 0xffffffffffffffffUL\n"
	/* <sys/types.h>: the signed fixed-width types (as <cuda/std/cstdint>
	 * has them) and the short unsigned names */
	"using int8_t = signed char;\nusing int16_t = signed short;\n"
	"using int32_t = signed int;\nusing int64_t = signed long long;\n"
	"typedef unsigned int uint;\ntypedef unsigned short ushort;\ntypedef unsigned long ulong;\n"
	/* <cmath>: std:: names for the functions NVRTC has built in */
	"namespace std {\n"
	"using ::size_t; using ::ptrdiff_t;\n"
	"using ::abs; using ::labs; using ::llabs; using ::fabs; using ::ceil; using ::floor;\n"
	"using ::sqrt; using ::cbrt; using ::hypot; using ::pow; using ::exp; using ::exp2;\n"
	"using ::expm1; using ::log; using ::log10; using ::log2; using ::log1p; using ::logb;\n"
	"using ::ilogb; using ::fmod; using ::modf; using ::frexp; using ::ldexp; using ::scalbn;\n"
	"using ::scalbln; using ::sin; using ::cos; using ::tan; using ::asin; using ::acos;\n"
	"using ::atan; using ::atan2; using ::sinh; using ::cosh; using ::tanh; using ::asinh;\n"
	"using ::acosh; using ::atanh; using ::erf; using ::erfc; using ::lgamma; using ::tgamma;\n"
	"using ::round; using ::lround; using ::llround; using ::rint; using ::lrint;\n"
	"using ::llrint; using ::nearbyint; using ::trunc; using ::fmin; using ::fmax;\n"
	"using ::fdim; using ::fma; using ::remainder; using ::remquo; using ::copysign;\n"
	"using ::nextafter; using ::nan; using ::nanf; using ::isnan; using ::isinf;\n"
	"using ::isfinite; using ::signbit; using ::fmaxf; using ::fminf; using ::fmaf;\n"
	"using ::roundf; using ::truncf; using ::exp2f; using ::log2f;\n"
	"}\n";

const char *prelude_text(void)
{
	return text;
}
