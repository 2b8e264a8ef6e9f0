/* nvrtc.c: run-time compilation with NVRTC, loaded with dlopen. */
#include "nvrtc.h"
#include "cubin.h"
#include "util.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The few NVRTC entry points used, declared here so that building needs no
 * CUDA headers. nvrtcResult is an int; 0 is NVRTC_SUCCESS. */
typedef struct _nvrtcProgram *nvrtcProgram;
static struct {
	void *lib;
	char version[32];
	const char *(*GetErrorString)(int);
	int (*Version)(int *, int *);
	int (*CreateProgram)(nvrtcProgram *, const char *, const char *, int,
	                     const char *const *, const char *const *);
	int (*DestroyProgram)(nvrtcProgram *);
	int (*CompileProgram)(nvrtcProgram, int, const char *const *);
	int (*GetProgramLogSize)(nvrtcProgram, size_t *);
	int (*GetProgramLog)(nvrtcProgram, char *);
	int (*GetCUBINSize)(nvrtcProgram, size_t *);
	int (*GetCUBIN)(nvrtcProgram, char *);
	int (*GetPTXSize)(nvrtcProgram, size_t *);
	int (*GetPTX)(nvrtcProgram, char *);
	int (*AddNameExpression)(nvrtcProgram, const char *);
	int (*GetLoweredName)(nvrtcProgram, const char *, const char **);
} nv;

static void *try_open(const char *path)
{
	return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

int nvrtc_load(char **err)
{
	if (nv.lib)
		return 0;
	const char *home = getenv("CUDA_HOME");
	const char *cands[8];
	char *owned[3] = {0};
	int n = 0;
	if (home && *home) {
		owned[0] = xasprintf("%s/lib64/libnvrtc.so", home);
		cands[n++] = owned[0];
	}
	owned[1] = xasprintf("%s/lib64/libnvrtc.so", CUDA_HOME_DEFAULT);
	cands[n++] = owned[1];
	cands[n++] = "libnvrtc.so";
	cands[n++] = "libnvrtc.so.13";
	cands[n++] = "libnvrtc.so.12";
	void *lib = NULL;
	const char *why = NULL;
	for (int i = 0; i < n && !lib; i++) {
		lib = try_open(cands[i]);
		if (!lib && !why)
			why = dlerror();
	}
	char *tried = xasprintf("%s", cands[home && *home ? 0 : 0]);
	for (int i = 0; i < 3; i++)
		free(owned[i]);
	if (!lib) {
		fail(err, "cannot load NVRTC from '%s' (set CUDA_HOME to the CUDA toolkit): %s",
		     tried, why ? why : "not found");
		free(tried);
		return -1;
	}
	free(tried);
	struct { void **fp; const char *name; } syms[] = {
		{ (void **)&nv.GetErrorString, "nvrtcGetErrorString" },
		{ (void **)&nv.Version, "nvrtcVersion" },
		{ (void **)&nv.CreateProgram, "nvrtcCreateProgram" },
		{ (void **)&nv.DestroyProgram, "nvrtcDestroyProgram" },
		{ (void **)&nv.CompileProgram, "nvrtcCompileProgram" },
		{ (void **)&nv.GetProgramLogSize, "nvrtcGetProgramLogSize" },
		{ (void **)&nv.GetProgramLog, "nvrtcGetProgramLog" },
		{ (void **)&nv.GetCUBINSize, "nvrtcGetCUBINSize" },
		{ (void **)&nv.GetCUBIN, "nvrtcGetCUBIN" },
		{ (void **)&nv.GetPTXSize, "nvrtcGetPTXSize" },
		{ (void **)&nv.GetPTX, "nvrtcGetPTX" },
		{ (void **)&nv.AddNameExpression, "nvrtcAddNameExpression" },
		{ (void **)&nv.GetLoweredName, "nvrtcGetLoweredName" },
	};
	for (size_t i = 0; i < ARRAY_LEN(syms); i++) {
		*syms[i].fp = dlsym(lib, syms[i].name);
		if (!*syms[i].fp) {
			dlclose(lib);
			memset(&nv, 0, sizeof nv);
			return fail(err, "NVRTC library lacks '%s': toolkit too old", syms[i].name);
		}
	}
	int major = 0, minor = 0;
	if (nv.Version(&major, &minor) != 0) {
		dlclose(lib);
		memset(&nv, 0, sizeof nv);
		return fail(err, "nvrtcVersion failed");
	}
	snprintf(nv.version, sizeof nv.version, "%d.%d", major, minor);
	nv.lib = lib;
	return 0;
}

const char *nvrtc_version(void)
{
	return nv.lib ? nv.version : NULL;
}

static char *get_log(nvrtcProgram prog)
{
	size_t n = 0;
	if (nv.GetProgramLogSize(prog, &n) != 0 || n == 0)
		return xstrdup("");
	char *log = xmalloc(n + 1);
	if (nv.GetProgramLog(prog, log) != 0)
		log[0] = 0;
	log[n] = 0;
	return log;
}

/* Keeps lines that matter to a user: errors, warnings, notes and the source
 * excerpts under them; drops ptxas info lines and the trailing summary. */
char *nvrtc_user_log(const char *log)
{
	sbuf b = {0};
	const char *p = log;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		int skip = 0;
		if (strncmp(p, "ptxas info", 10) == 0 || (n > 0 && strstr(p, " bytes stack frame") && strstr(p, " bytes stack frame") < p + n))
			skip = 1;
		if (n == 0 || (n >= 19 && strstr(p, "errors detected in") && strstr(p, "errors detected in") < p + n) ||
		    (strstr(p, "error detected in") && strstr(p, "error detected in") < p + n))
			skip = 1;
		if (!skip) {
			/* path(12): -> path:12: */
			const char *lp = memchr(p, '(', n);
			const char *rp = lp ? memchr(lp, ')', n - (size_t)(lp - p)) : NULL;
			int digits = lp && rp && rp > lp + 1 && rp + 1 < p + n && rp[1] == ':';
			for (const char *q = lp ? lp + 1 : NULL; digits && q < rp; q++)
				if (*q < '0' || *q > '9')
					digits = 0;
			if (digits) {
				sb_add(&b, p, (size_t)(lp - p));
				sb_putc(&b, ':');
				sb_add(&b, lp + 1, (size_t)(rp - lp - 1));
				sb_add(&b, rp + 1, n - (size_t)(rp + 1 - p));
			} else {
				sb_add(&b, p, n);
			}
			sb_putc(&b, '\n');
		}
		p += n + (e ? 1 : 0);
	}
	if (b.len == 0) {
		sb_free(&b);
		return NULL;
	}
	while (b.len && b.s[b.len - 1] == '\n')
		b.s[--b.len] = 0;
	return sb_steal(&b);
}

static int static_smem_over(const char *path, const char *log, char **err);

int nvrtc_compile(const char *path, const char *src, const char *const *opts, int nopts,
                  const char *const *names, int nnames, nvrtc_out *out, char **err)
{
	memset(out, 0, sizeof *out);
	if (nvrtc_load(err) != 0)
		return -1;
	nvrtcProgram prog = NULL;
	int r = nv.CreateProgram(&prog, src, path, 0, NULL, NULL);
	if (r != 0)
		return fail(err, "nvrtcCreateProgram failed: %s", nv.GetErrorString(r));
	char **exprs = xcalloc((size_t)nnames + 1, sizeof *exprs);
	for (int i = 0; i < nnames; i++) {
		exprs[i] = xasprintf("&%s", names[i]);
		r = nv.AddNameExpression(prog, exprs[i]);
		if (r != 0) {
			fail(err, "nvrtcAddNameExpression('%s') failed: %s", names[i], nv.GetErrorString(r));
			goto bad;
		}
	}
	r = nv.CompileProgram(prog, nopts, opts);
	out->log = get_log(prog);
	if (r != 0) {
		char *ul = nvrtc_user_log(out->log);
		if (ul)
			*err = ul, ul = NULL;
		else if (!static_smem_over(path, out->log, err))
			fail(err, "%s: compilation failed: %s", path, nv.GetErrorString(r));
		goto bad;
	}
	size_t n = 0;
	if ((r = nv.GetCUBINSize(prog, &n)) != 0 || n == 0) {
		fail(err, "%s: no cubin produced (nvrtcGetCUBINSize: %s)", path, nv.GetErrorString(r));
		goto bad;
	}
	out->cubin = xmalloc(n);
	out->cubin_len = n;
	if ((r = nv.GetCUBIN(prog, out->cubin)) != 0) {
		fail(err, "nvrtcGetCUBIN failed: %s", nv.GetErrorString(r));
		goto bad;
	}
	if (nv.GetPTXSize(prog, &n) == 0 && n > 1) {
		out->ptx = xmalloc(n + 1);
		if (nv.GetPTX(prog, out->ptx) != 0) {
			free(out->ptx);
			out->ptx = NULL;
		} else {
			out->ptx[n] = 0;
		}
	}
	out->nk = nnames;
	out->lowered = xcalloc((size_t)nnames + 1, sizeof *out->lowered);
	out->res = xcalloc((size_t)nnames + 1, sizeof *out->res);
	for (int i = 0; i < nnames; i++) {
		const char *low = NULL;
		r = nv.GetLoweredName(prog, exprs[i], &low);
		if (r != 0 || !low) {
			fail(err, "nvrtcGetLoweredName('%s') failed: %s", names[i], nv.GetErrorString(r));
			goto bad;
		}
		out->lowered[i] = xstrdup(low);
		/* the ptxas report when NVRTC gives one (it also has spills); else
		 * the cubin's own records */
		const char *no_log = getenv("CUPLAY_IGNORE_PTXAS_LOG"); /* tests the cubin path */
		if ((no_log && *no_log) || ptxas_parse(out->log, low, &out->res[i]) != 0) {
			int sm = 0;
			for (int k = 0; k < nopts; k++)
				if (strncmp(opts[k], "-arch=sm_", 9) == 0)
					sm = atoi(opts[k] + 9);
			cubin_resources(out->cubin, out->cubin_len, low, sm, &out->res[i]);
		}
	}
	for (int i = 0; i < nnames; i++)
		free(exprs[i]);
	free(exprs);
	nv.DestroyProgram(&prog);
	return 0;
bad:
	for (int i = 0; i < nnames; i++)
		free(exprs[i]);
	free(exprs);
	nv.DestroyProgram(&prog);
	nvrtc_out_free(out);
	return -1;
}

void nvrtc_out_free(nvrtc_out *o)
{
	free(o->cubin);
	free(o->ptx);
	free(o->log);
	for (int i = 0; i < o->nk; i++)
		free(o->lowered ? o->lowered[i] : NULL);
	free(o->lowered);
	free(o->res);
	memset(o, 0, sizeof *o);
}

static int num_before(const char *line, const char *end, const char *word, int *v)
{
	size_t wl = strlen(word);
	for (const char *p = line; p + wl <= end; p++) {
		if (memcmp(p, word, wl) != 0)
			continue;
		const char *q = p;
		while (q > line && q[-1] == ' ')
			q--;
		const char *d = q;
		while (d > line && d[-1] >= '0' && d[-1] <= '9')
			d--;
		if (d == q)
			continue;
		*v = atoi(d);
		return 1;
	}
	return 0;
}

/* The static shared memory limit of a kernel on every architecture. */
#define STATIC_SMEM_MAX 49152

/* NVRTC 13 fails a kernel whose static shared memory is over the limit with
 * an empty log but for the ptxas report, where the kernel's "N bytes smem"
 * shows it: say which kernel and how much. 1 when *err was set so. */
static int static_smem_over(const char *path, const char *log, char **err)
{
	char name[256] = "";
	for (const char *p = log; p && *p;) {
		const char *e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		const char *q = strstr(p, "Compiling entry function '");
		int v;
		if (q && q < e) {
			q += strlen("Compiling entry function '");
			const char *n = q;
			size_t len = 0;
			if (q[0] == '_' && q[1] == 'Z' && q[2] >= '0' && q[2] <= '9') { /* _Z15transpose_tiledPKfPfi */
				len = strtoul(q + 2, (char **)&n, 10);
				if ((size_t)(e - n) < len)
					len = 0;
			} else {
				while (n + len < e && n[len] != '\'')
					len++;
			}
			snprintf(name, sizeof name, "%.*s", (int)len, n);
		} else if (name[0] && num_before(p, e, "bytes smem", &v) && v > STATIC_SMEM_MAX) {
			fail(err, "%s: static shared memory of kernel '%s' is %d bytes, over the limit of %d "
			     "(declare it extern and size it with '//@ smem' to use more)", path, name, v,
			     STATIC_SMEM_MAX);
			return 1;
		}
		p = *e ? e + 1 : e;
	}
	return 0;
}

/* ptxas -v prints, per entry function:
 *   ptxas info    : Compiling entry function '_Z4copyPfS_' for 'sm_90'
 *   ptxas info    : Function properties for _Z4copyPfS_
 *       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
 *   ptxas info    : Used 8 registers, used 1 barriers, 4224 bytes smem, 368 bytes cmem[0]
 */
int ptxas_parse(const char *log, const char *lowered, kres *r)
{
	memset(r, 0, sizeof *r);
	if (!log)
		return -1;
	int in = 0;
	size_t ll = strlen(lowered);
	for (const char *p = log; *p;) {
		const char *e = strchr(p, '\n');
		if (!e)
			e = p + strlen(p);
		const char *q;
		if ((q = strstr(p, "Compiling entry function '")) && q < e) {
			q += strlen("Compiling entry function '");
			in = (size_t)(e - q) > ll && strncmp(q, lowered, ll) == 0 && q[ll] == '\'';
		} else if ((q = strstr(p, "Function properties for ")) && q < e) {
			q += strlen("Function properties for ");
			in = (size_t)(e - q) >= ll && strncmp(q, lowered, ll) == 0 &&
			     (q + ll == e || q[ll] == '\r' || q[ll] == ' ');
		} else if (in) {
			int v;
			if (num_before(p, e, "bytes stack frame", &v)) {
				r->stack = v;
				r->known = 1;
			}
			if (num_before(p, e, "bytes spill stores", &v))
				r->spill_st = v;
			if (num_before(p, e, "bytes spill loads", &v))
				r->spill_ld = v;
			if (num_before(p, e, "registers", &v)) {
				r->regs = v;
				r->known = 1;
			}
			if (num_before(p, e, "bytes smem", &v))
				r->smem = v;
			if (num_before(p, e, "bytes cmem[0]", &v))
				r->cmem = v;
		}
		p = *e ? e + 1 : e;
	}
	return r->known ? 0 : -1;
}
