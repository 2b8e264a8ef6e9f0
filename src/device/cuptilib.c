/* cuptilib.c: finding and loading libcupti. */
#include "cuptilib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_abi.h"
#include "util.h"

#ifndef CUDA_HOME_DEFAULT
#define CUDA_HOME_DEFAULT "/usr/local/cuda"
#endif

#if defined(__aarch64__)
#define TARGET_DIR "targets/sbsa-linux/lib"
#else
#define TARGET_DIR "targets/x86_64-linux/lib"
#endif

static struct {
	int tried;
	void *lib;
	char *path;
	char *why;
	CUptiResult (*GetResultString)(CUptiResult, const char **);
	CUptiResult (*GetErrorMessage)(CUptiResult, const char **);
} L;

void *cuptilib_open(char **why)
{
	if (!L.tried) {
		L.tried = 1;
		const char *home = getenv("CUDA_HOME");
		const char *homes[2] = { home && *home ? home : NULL, CUDA_HOME_DEFAULT };
		const char *subdirs[] = { "extras/CUPTI/lib64", "lib64", TARGET_DIR };
		char *cands[16];
		int n = 0;
		const char *own = getenv("CUPLAY_CUPTI");
		if (own && *own)
			cands[n++] = xstrdup(own);
		for (int h = 0; h < 2; h++) {
			if (!homes[h] || (h == 1 && homes[0] && strcmp(homes[0], homes[1]) == 0))
				continue;
			for (size_t s = 0; s < ARRAY_LEN(subdirs); s++)
				cands[n++] = xasprintf("%s/%s/libcupti.so", homes[h], subdirs[s]);
		}
		cands[n++] = xstrdup("libcupti.so.13");
		cands[n++] = xstrdup("libcupti.so.12");
		cands[n++] = xstrdup("libcupti.so");
		char *first_err = NULL;
		for (int i = 0; i < n && !L.lib; i++) {
			dlerror();
			L.lib = dlopen(cands[i], RTLD_NOW | RTLD_LOCAL);
			if (L.lib) {
				L.path = xstrdup(cands[i]);
			} else if (!first_err && cands[i][0] == '/') {
				/* a file that exists but does not load says more than "not found" */
				const char *e = dlerror();
				if (e && !strstr(e, "No such file"))
					first_err = xstrdup(e);
			}
		}
		for (int k = 0; k < n; k++)
			free(cands[k]);
		if (L.lib) {
			cuptilib_sym("cuptiGetResultString", &L.GetResultString);
			cuptilib_sym("cuptiGetErrorMessage", &L.GetErrorMessage);
		} else {
			L.why = xasprintf("CUPTI not found (%s): set CUDA_HOME to the CUDA toolkit",
			                  first_err ? first_err : "no libcupti.so under " CUDA_HOME_DEFAULT
			                                          " or on the library path");
		}
		free(first_err);
	}
	if (!L.lib && why)
		*why = xstrdup(L.why);
	return L.lib;
}

const char *cuptilib_path(void)
{
	return L.path;
}

int cuptilib_sym(const char *name, void *fp)
{
	void *p = L.lib ? dlsym(L.lib, name) : NULL;
	/* dlsym's object pointer into a function pointer slot: copy the bytes */
	memcpy(fp, &p, sizeof p);
	return p ? 0 : -1;
}

void cuptilib_result_text(int r, char *buf, int n)
{
	const char *name = NULL, *msg = NULL;
	if (L.GetResultString && L.GetResultString(r, &name) != CUPTI_SUCCESS)
		name = NULL;
	if (L.GetErrorMessage && L.GetErrorMessage(r, &msg) != CUPTI_SUCCESS)
		msg = NULL;
	if (name && msg && strcmp(name, msg) != 0)
		snprintf(buf, (size_t)n, "%s (%s)", name, msg);
	else if (name)
		snprintf(buf, (size_t)n, "%s", name);
	else
		snprintf(buf, (size_t)n, "CUPTI error %d", r);
}

void cuptilib_result_name(int r, char *buf, int n)
{
	const char *name = NULL;
	if (L.GetResultString && L.GetResultString(r, &name) == CUPTI_SUCCESS && name)
		snprintf(buf, (size_t)n, "%s", name);
	else
		snprintf(buf, (size_t)n, "CUPTI error %d", r);
}
