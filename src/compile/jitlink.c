/* jitlink.c: nvJitLink through dlopen. */
#include "jitlink.h"
#include "util.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct nvJitLink *nvJitLinkHandle;
enum { INPUT_CUBIN = 1, INPUT_LIBRARY = 6 };

static struct {
	void *lib;
	int (*Create)(nvJitLinkHandle *, uint32_t, const char **);
	int (*Destroy)(nvJitLinkHandle *);
	int (*AddData)(nvJitLinkHandle, int, const void *, size_t, const char *);
	int (*AddFile)(nvJitLinkHandle, int, const char *);
	int (*Complete)(nvJitLinkHandle);
	int (*GetLinkedCubinSize)(nvJitLinkHandle, size_t *);
	int (*GetLinkedCubin)(nvJitLinkHandle, void *);
	int (*GetErrorLogSize)(nvJitLinkHandle, size_t *);
	int (*GetErrorLog)(nvJitLinkHandle, char *);
} jl;

static const char *cuda_home(void)
{
	const char *h = getenv("CUDA_HOME");
	return h && *h ? h : CUDA_HOME_DEFAULT;
}

static int load(char **err)
{
	if (jl.lib)
		return 0;
	char *path = xasprintf("%s/lib64/libnvJitLink.so", cuda_home());
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		lib = dlopen("libnvJitLink.so", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		lib = dlopen("libnvJitLink.so.13", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fail(err, "cannot load nvJitLink from '%s' (needed by '//@ link'): %s", path, dlerror());
		free(path);
		return -1;
	}
	free(path);
	struct { void **fp; const char *name; } syms[] = {
		{ (void **)&jl.Create, "nvJitLinkCreate" },
		{ (void **)&jl.Destroy, "nvJitLinkDestroy" },
		{ (void **)&jl.AddData, "nvJitLinkAddData" },
		{ (void **)&jl.AddFile, "nvJitLinkAddFile" },
		{ (void **)&jl.Complete, "nvJitLinkComplete" },
		{ (void **)&jl.GetLinkedCubinSize, "nvJitLinkGetLinkedCubinSize" },
		{ (void **)&jl.GetLinkedCubin, "nvJitLinkGetLinkedCubin" },
		{ (void **)&jl.GetErrorLogSize, "nvJitLinkGetErrorLogSize" },
		{ (void **)&jl.GetErrorLog, "nvJitLinkGetErrorLog" },
	};
	for (size_t i = 0; i < ARRAY_LEN(syms); i++)
		if (!(*syms[i].fp = dlsym(lib, syms[i].name))) {
			dlclose(lib);
			return fail(err, "nvJitLink lacks '%s'", syms[i].name);
		}
	jl.lib = lib;
	return 0;
}

static char *link_log(nvJitLinkHandle h)
{
	size_t n = 0;
	if (jl.GetErrorLogSize(h, &n) != 0 || n <= 1)
		return NULL;
	char *s = xmalloc(n + 1);
	if (jl.GetErrorLog(h, s) != 0) {
		free(s);
		return NULL;
	}
	s[n] = 0;
	size_t l = strlen(s);
	while (l && (s[l - 1] == '\n' || s[l - 1] == ' '))
		s[--l] = 0;
	return s;
}

int jitlink(const void *cubin, size_t len, const char *name, const char *arch,
            const char *const *libs, int nlibs, void **out, size_t *out_len, char **err)
{
	*out = NULL;
	*out_len = 0;
	if (load(err) != 0)
		return -1;
	char opt[32];
	snprintf(opt, sizeof opt, "-arch=%s", arch);
	const char *opts[] = { opt };
	nvJitLinkHandle h = NULL;
	int r = jl.Create(&h, 1, opts);
	if (r != 0)
		return fail(err, "nvJitLinkCreate failed (error %d)", r);
	int rc = -1;
	if ((r = jl.AddData(h, INPUT_CUBIN, cubin, len, name)) != 0) {
		char *log = link_log(h);
		fail(err, "%s: nvJitLinkAddData failed (error %d)%s%s", name, r, log ? ": " : "", log ? log : "");
		free(log);
		goto done;
	}
	for (int i = 0; i < nlibs; i++) {
		char *path = xasprintf("%s/lib64/lib%s.a", cuda_home(), libs[i]);
		struct stat st;
		if (stat(path, &st) != 0) {
			fail(err, "%s: '//@ link %s' needs '%s', which does not exist (set CUDA_HOME)", name, libs[i], path);
			free(path);
			goto done;
		}
		r = jl.AddFile(h, INPUT_LIBRARY, path);
		if (r != 0) {
			char *log = link_log(h);
			fail(err, "%s: cannot link '%s' (nvJitLink error %d)%s%s", name, path, r, log ? ": " : "", log ? log : "");
			free(log);
			free(path);
			goto done;
		}
		free(path);
	}
	if ((r = jl.Complete(h)) != 0) {
		char *log = link_log(h);
		fail(err, "%s: link failed (nvJitLink error %d)%s%s", name, r, log ? ": " : "", log ? log : "");
		free(log);
		goto done;
	}
	size_t n = 0;
	if (jl.GetLinkedCubinSize(h, &n) != 0 || n == 0) {
		fail(err, "%s: nvJitLink produced no cubin", name);
		goto done;
	}
	void *buf = xmalloc(n);
	if (jl.GetLinkedCubin(h, buf) != 0) {
		free(buf);
		fail(err, "%s: nvJitLinkGetLinkedCubin failed", name);
		goto done;
	}
	*out = buf;
	*out_len = n;
	rc = 0;
done:
	jl.Destroy(&h);
	return rc;
}
