/* toolkit.c: the CUDA toolkit's include directories and the in-memory
 * stand-ins for C headers that NVRTC lacks. */
#include "toolkit.h"
#include "nvrtc.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef CUDA_HOME_DEFAULT
#define CUDA_HOME_DEFAULT "/usr/local/cuda"
#endif

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* A toolkit include directory: it has cuda_fp16.h. /usr/include is never
 * one (its C library headers would stand in for the stand-ins below and
 * fail under NVRTC). */
static char *include_dir(const char *base, const char *sub)
{
	char *d = xasprintf("%s/%s", base, sub);
	char *real = realpath(d, NULL);
	free(d);
	if (!real)
		return NULL;
	char *probe = xasprintf("%s/cuda_fp16.h", real);
	int ok = is_file(probe) && strcmp(real, "/usr/include") != 0;
	free(probe);
	if (!ok) {
		free(real);
		return NULL;
	}
	return real;
}

static struct {
	int done;
	char *dirs[2];
	int n;
	char *why;
} tk;

const char *const *toolkit_include_dirs(int *n, const char **why)
{
	if (!tk.done) {
		tk.done = 1;
		const char *home = getenv("CUDA_HOME");
		char *libdir = NULL;
		const char *lib = nvrtc_path();
		if (lib) {
			char *real = realpath(lib, NULL);
			const char *p = real ? real : lib;
			const char *slash = strrchr(p, '/');
			libdir = slash ? xstrndup(p, (size_t)(slash - p)) : NULL;
			free(real);
		}
		/* CUDA_HOME; next to libnvrtc (lib64/ or lib/ beside include/, or
		 * targets/<arch>/lib beside targets/<arch>/include); the default */
		const char *bases[4] = { home && *home ? home : NULL, libdir, libdir, CUDA_HOME_DEFAULT };
		const char *subs[4] = { "include", "../include", "../../include", "include" };
		char *inc = NULL;
		for (int i = 0; i < 4 && !inc; i++)
			if (bases[i])
				inc = include_dir(bases[i], subs[i]);
		if (inc) {
			tk.dirs[tk.n++] = inc;
			char *cccl = xasprintf("%s/cccl", inc);
			char *probe = xasprintf("%s/cuda/std", cccl);
			if (is_dir(probe))
				tk.dirs[tk.n++] = cccl;
			else
				free(cccl);
			free(probe);
		} else {
			tk.why = xasprintf("no CUDA include directory (with cuda_fp16.h) in %s%s%s%s%s/include: "
			                   "set CUDA_HOME to the CUDA toolkit",
			                   home && *home ? home : "", home && *home ? "/include, " : "",
			                   libdir ? libdir : "", libdir ? "/../include, " : "", CUDA_HOME_DEFAULT);
		}
		free(libdir);
	}
	*n = tk.n;
	if (why)
		*why = tk.why;
	return (const char *const *)tk.dirs;
}

/* The C headers a pasted kernel includes and NVRTC does not have. Those of
 * CCCL's C++ library (cuda/std/...) are light: they are what the libraries
 * themselves use under NVRTC. <cuda/std/cmath> is not (a second to
 * compile), so math.h adds nothing: what the built-in math functions lack,
 * the prelude gives every file (prelude.c). */
#define SHIM_HEAD "/* cuplay: a stand-in for a C header that NVRTC does not have */\n#pragma once\n"
#define MATH_TEXT SHIM_HEAD \
	"/* NVRTC has the CUDA math functions built in (sqrtf, expf, isnan...); INFINITY,\n" \
	" * NAN, M_PI and std::sqrt come with every compile, as with nvcc (prelude.c) */\n"
#define FLOAT_TEXT SHIM_HEAD \
	"#define FLT_RADIX 2\n#define FLT_MANT_DIG 24\n#define DBL_MANT_DIG 53\n#define FLT_DIG 6\n" \
	"#define DBL_DIG 15\n#define FLT_EPSILON 1.19209290e-07F\n#define DBL_EPSILON 2.2204460492503131e-16\n" \
	"#define FLT_MIN 1.17549435e-38F\n#define DBL_MIN 2.2250738585072014e-308\n" \
	"#define FLT_MAX 3.40282347e+38F\n#define DBL_MAX 1.7976931348623157e+308\n" \
	"#define FLT_MIN_EXP (-125)\n#define FLT_MAX_EXP 128\n#define DBL_MIN_EXP (-1021)\n#define DBL_MAX_EXP 1024\n"
#define STDIO_TEXT SHIM_HEAD "/* NVRTC has printf built in; the rest of <stdio.h> does not run on a GPU */\n"

/* <cuda.h> is the driver API's host header (host functions, which NVRTC
 * refuses); a kernel includes it for CUtensorMap, the type of a
 * `//@ tensormap` parameter: that type alone, as cuda.h has it. */
#define CUDA_H_TEXT SHIM_HEAD \
	"/* a kernel's part of <cuda.h>: the tensor map type of TMA */\n" \
	"#ifndef CU_TENSOR_MAP_NUM_QWORDS\n#define CU_TENSOR_MAP_NUM_QWORDS 16\n" \
	"typedef struct CUtensorMap_st {\n  alignas(64) unsigned long long opaque[CU_TENSOR_MAP_NUM_QWORDS];\n" \
	"} CUtensorMap;\n#endif\n"

static const toolkit_shim shims[] = {
	{ "cuda.h", CUDA_H_TEXT, NULL },
	{ "assert.h", SHIM_HEAD "#include <cuda/std/cassert>\n", "cuda/std/cassert" },
	{ "cassert", SHIM_HEAD "#include <cuda/std/cassert>\n", "cuda/std/cassert" },
	{ "stdint.h", SHIM_HEAD "#include <cuda/std/cstdint>\n", "cuda/std/cstdint" },
	{ "cstdint", SHIM_HEAD "#include <cuda/std/cstdint>\n", "cuda/std/cstdint" },
	{ "stddef.h", SHIM_HEAD "#include <cuda/std/cstddef>\n", "cuda/std/cstddef" },
	{ "cstddef", SHIM_HEAD "#include <cuda/std/cstddef>\n", "cuda/std/cstddef" },
	{ "limits.h", SHIM_HEAD "#include <cuda/std/climits>\n", "cuda/std/climits" },
	{ "climits", SHIM_HEAD "#include <cuda/std/climits>\n", "cuda/std/climits" },
	{ "stdio.h", STDIO_TEXT, NULL },
	{ "cstdio", STDIO_TEXT, NULL },
	{ "math.h", MATH_TEXT, NULL },
	{ "cmath", MATH_TEXT, NULL },
	{ "float.h", FLOAT_TEXT, NULL },
	{ "cfloat", FLOAT_TEXT, NULL },
};

const toolkit_shim *toolkit_shims(int *n)
{
	*n = (int)ARRAY_LEN(shims);
	return shims;
}
