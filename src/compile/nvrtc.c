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
	/* precompiled headers, CUDA 12.8+ (NULL before) */
	int (*GetPCHCreateStatus)(nvrtcProgram);
	int (*GetPCHHeapSizeRequired)(nvrtcProgram, size_t *);
	int (*GetPCHHeapSize)(size_t *);
	int (*SetPCHHeapSize)(size_t);
	/* the architectures it compiles for (CUDA 11.2+; NULL before) */
	int (*GetNumSupportedArchs)(int *);
	int (*GetSupportedArchs)(int *);
	char path[4096];
} nv;

/* nvrtcResult values of the PCH calls */
#define NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED 13
#define NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED 14

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
	nv.GetPCHCreateStatus = (int (*)(nvrtcProgram))dlsym(lib, "nvrtcGetPCHCreateStatus");
	nv.GetPCHHeapSizeRequired = (int (*)(nvrtcProgram, size_t *))dlsym(lib, "nvrtcGetPCHHeapSizeRequired");
	nv.GetPCHHeapSize = (int (*)(size_t *))dlsym(lib, "nvrtcGetPCHHeapSize");
	nv.SetPCHHeapSize = (int (*)(size_t))dlsym(lib, "nvrtcSetPCHHeapSize");
	nv.GetNumSupportedArchs = (int (*)(int *))dlsym(lib, "nvrtcGetNumSupportedArchs");
	nv.GetSupportedArchs = (int (*)(int *))dlsym(lib, "nvrtcGetSupportedArchs");
	Dl_info info;
	if (dladdr((void *)nv.Version, &info) != 0 && info.dli_fname)
		snprintf(nv.path, sizeof nv.path, "%s", info.dli_fname);
	nv.lib = lib;
	return 0;
}

int nvrtc_archs(int *out, int max)
{
	int n = 0;
	if (!nv.lib || !nv.GetNumSupportedArchs || !nv.GetSupportedArchs || nv.GetNumSupportedArchs(&n) != 0 ||
	    n <= 0)
		return -1;
	int *all = xcalloc((size_t)n, sizeof *all);
	if (nv.GetSupportedArchs(all) != 0) {
		free(all);
		return -1;
	}
	for (int i = 0; i < n && i < max; i++)
		out[i] = all[i];
	free(all);
	return n < max ? n : max;
}

int nvrtc_arch_known(int sm, char suffix, char **why)
{
	int have[128], n = nvrtc_archs(have, 128);
	if (n <= 0)
		return 0;
	char name[24];
	if (suffix)
		snprintf(name, sizeof name, "sm_%d%c", sm, suffix);
	else
		snprintf(name, sizeof name, "sm_%d", sm);
	int k = 0;
	while (k < n && have[k] != sm)
		k++;
	int major = 0, minor = 0;
	sscanf(nv.version, "%d.%d", &major, &minor);
	if (k == n)
		return fail(why, "NVRTC %s does not compile for %s (it compiles for sm_%d to sm_%d)", nv.version, name,
		            have[0], have[n - 1]);
	if (suffix == 'f' && (major < 12 || (major == 12 && minor < 9)))
		return fail(why, "NVRTC %s does not compile for %s (family targets come with CUDA 12.9)", nv.version,
		            name);
	return 0;
}

const char *nvrtc_version(void)
{
	return nv.lib ? nv.version : NULL;
}

const char *nvrtc_path(void)
{
	return nv.lib && nv.path[0] ? nv.path : NULL;
}

int nvrtc_has_pch(void)
{
	return nv.lib && nv.GetPCHCreateStatus && nv.GetPCHHeapSizeRequired && nv.GetPCHHeapSize &&
	       nv.SetPCHHeapSize;
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

/* `__nv_name_map(N): ` at p: a line of NVRTC's internal file of name
 * expressions (their order there is NVRTC's own). */
static int name_map_line(const char *p, size_t n)
{
	static const char tag[] = "__nv_name_map(";
	return n > sizeof tag - 1 && strncmp(p, tag, sizeof tag - 1) == 0;
}

/* The expression of the name-map excerpt line after the error at e (its
 * newline): "  #pragma nv_mangled_name &red<4,3>". Index in exprs, or -1. */
static int name_map_expr(const char *e, const char *const *exprs, int n)
{
	static const char tag[] = "#pragma nv_mangled_name &";
	if (!e)
		return -1;
	const char *q = e + 1;
	while (*q == ' ' || *q == '\t')
		q++;
	if (strncmp(q, tag, sizeof tag - 1) != 0)
		return -1;
	q += sizeof tag - 1;
	size_t len = strcspn(q, "\r\n");
	for (int i = 0; i < n; i++)
		if (strlen(exprs[i]) == len && strncmp(exprs[i], q, len) == 0)
			return i;
	return -1;
}

static int line_has(const char *p, size_t n, const char *what)
{
	const char *q = strstr(p, what);
	return q && q + strlen(what) <= p + n;
}

/* Keeps lines that matter to a user: errors, warnings, notes and the source
 * excerpts under them; drops ptxas info lines, precompiled-header notes and
 * the trailing summary. */
char *nvrtc_user_log_names(const char *log, const char *const *exprs, const char *const *where, int nexprs)
{
	sbuf b = {0};
	const char *p = log;
	int in_name_map = 0; /* the excerpt under a name-map error: NVRTC's text, not the user's */
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		int skip = 0;
		if (strncmp(p, "ptxas info", 10) == 0 || (n > 0 && line_has(p, n, " bytes stack frame")))
			skip = 1;
		if (n == 0 || (n >= 19 && line_has(p, n, "errors detected in")) || line_has(p, n, "error detected in"))
			skip = 1;
		if (line_has(p, n, "precompiled header file \"") || line_has(p, n, "Error in parsing name expression"))
			skip = 1;
		if (in_name_map && n > 0 && (p[0] == ' ' || p[0] == '\t'))
			skip = 1;
		else
			in_name_map = 0;
		int nm = name_map_line(p, n);
		if (nm)
			in_name_map = 1; /* its excerpt is NVRTC's text, not the user's */
		if (nm && !skip) {
			const char *rest = memchr(p, ')', n);
			rest = rest ? rest + 1 : p + n; /* ": error: ..." */
			size_t rn = n - (size_t)(rest - p);
			int i = name_map_expr(e, exprs, nexprs);
			if (i >= 0 && where && where[i])
				sb_printf(&b, "%s%.*s (in kernel '%s')\n", where[i], (int)rn, rest, exprs[i]);
			else if (i >= 0 && i < nexprs)
				sb_printf(&b, "kernel '%s'%.*s\n", exprs[i], (int)rn, rest);
			else
				sb_printf(&b, "kernel names%.*s\n", (int)rn, rest);
		} else if (!skip) {
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
	/* a "Remark: the warnings can be suppressed" with no warning left above it */
	if (b.len && strncmp(b.s, "Remark: ", 8) == 0 && !strchr(b.s, '\n')[1]) {
		sb_free(&b);
		return NULL;
	}
	if (b.len == 0) {
		sb_free(&b);
		return NULL;
	}
	while (b.len && b.s[b.len - 1] == '\n')
		b.s[--b.len] = 0;
	return sb_steal(&b);
}

char *nvrtc_user_log(const char *log)
{
	return nvrtc_user_log_names(log, NULL, NULL, 0);
}

static int static_smem_over(const char *path, const char *log, char **err);

/* After a compile that asked for precompiled headers: what became of them.
 * A header prefix too big for the PCH heap grows the heap (which drops the
 * headers precompiled so far), so the next compile can keep it. */
static nvrtc_pch pch_outcome(nvrtcProgram prog, const char *log)
{
	int st = nv.GetPCHCreateStatus(prog);
	if (st == 0) /* perhaps also after using a shorter one */
		return PCH_CREATED;
	if (log && strstr(log, ": using precompiled header file \""))
		return PCH_USED;
	if (st == NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED) {
		size_t need = 0, have = 0;
		if (nv.GetPCHHeapSizeRequired(prog, &need) == 0 && nv.GetPCHHeapSize(&have) == 0 && need > have) {
			size_t step = (size_t)64 << 20;
			if (nv.SetPCHHeapSize((need + need / 4 + step - 1) / step * step) == 0)
				return PCH_HEAP_GREW;
		}
	}
	return PCH_NONE;
}

/* The job's options, with those of precompiled headers; compiles.
 * NVRTC's status, the log and what became of the precompiled headers in
 * out. */
static int compile_program(const nvrtc_job *j, nvrtcProgram prog, nvrtc_out *out)
{
	const char **opts = xcalloc((size_t)j->nopts + 4, sizeof *opts);
	int nopts = 0;
	for (int i = 0; i < j->nopts; i++)
		opts[nopts++] = j->opts[i];
	int pch = j->pch && j->pch_dir && nvrtc_has_pch();
	char *pch_dir = pch ? xasprintf("-pch-dir=%s", j->pch_dir) : NULL;
	if (pch) {
		opts[nopts++] = "-pch";
		opts[nopts++] = "-pch-verbose=false";
		opts[nopts++] = pch_dir;
	}
	int r = nv.CompileProgram(prog, nopts, opts);
	free(opts);
	free(pch_dir);
	out->log = get_log(prog);
	if (pch)
		out->pch = pch_outcome(prog, out->log);
	return r;
}

/* The cubin and the PTX (when NVRTC gives it). 0, or -1 with *err. */
static int take_code(const nvrtc_job *j, nvrtcProgram prog, nvrtc_out *out, char **err)
{
	const char *who = j->path ? j->path : j->name;
	size_t n = 0;
	int r;
	if ((r = nv.GetCUBINSize(prog, &n)) != 0 || n == 0)
		return fail(err, "%s: no cubin produced (nvrtcGetCUBINSize: %s)", who, nv.GetErrorString(r));
	out->cubin = xmalloc(n);
	out->cubin_len = n;
	if ((r = nv.GetCUBIN(prog, out->cubin)) != 0)
		return fail(err, "nvrtcGetCUBIN failed: %s", nv.GetErrorString(r));
	if (nv.GetPTXSize(prog, &n) == 0 && n > 1) {
		out->ptx = xmalloc(n + 1);
		if (nv.GetPTX(prog, out->ptx) != 0) {
			free(out->ptx);
			out->ptx = NULL;
		} else {
			out->ptx[n] = 0;
		}
	}
	return 0;
}

/* Each kernel's lowered name and resources: the ptxas report when NVRTC
 * gives one (it also has spills); else the cubin's own records. 0, or -1
 * with *err. */
static int take_kernels(const nvrtc_job *j, nvrtcProgram prog, char *const *exprs, nvrtc_out *out, char **err)
{
	const char *who = j->path ? j->path : j->name;
	int nnames = j->nexprs;
	out->nk = nnames;
	out->lowered = xcalloc((size_t)nnames + 1, sizeof *out->lowered);
	out->res = xcalloc((size_t)nnames + 1, sizeof *out->res);
	for (int i = 0; i < nnames; i++) {
		const char *low = NULL;
		int r = nv.GetLoweredName(prog, exprs[i], &low);
		if (r != 0 || !low) /* compiled, yet the kernel is not there: the source ended early */
			return fail(err, "%s: kernel '%s' is not in the compiled program (did the source end early?)",
			            j->where && j->where[i] ? j->where[i] : who, j->exprs[i]);
		out->lowered[i] = xstrdup(low);
		const char *no_log = getenv("CUPLAY_IGNORE_PTXAS_LOG"); /* tests the cubin path */
		if ((no_log && *no_log) || ptxas_parse(out->log, low, &out->res[i]) != 0) {
			int sm = 0;
			for (int k = 0; k < j->nopts; k++)
				if (strncmp(j->opts[k], "-arch=sm_", 9) == 0)
					sm = atoi(j->opts[k] + 9);
			cubin_resources(out->cubin, out->cubin_len, low, sm, &out->res[i]);
		}
	}
	return 0;
}

int nvrtc_run(const nvrtc_job *j, nvrtc_out *out, char **err)
{
	memset(out, 0, sizeof *out);
	if (nvrtc_load(err) != 0)
		return -1;
	const char *who = j->path ? j->path : j->name;
	nvrtcProgram prog = NULL;
	int r = nv.CreateProgram(&prog, j->src, j->name, j->nheaders, j->header_texts, j->header_names);
	if (r != 0)
		return fail(err, "nvrtcCreateProgram failed: %s", nv.GetErrorString(r));
	int nnames = j->nexprs, rc = -1;
	char **exprs = xcalloc((size_t)nnames + 1, sizeof *exprs);
	for (int i = 0; i < nnames; i++) {
		exprs[i] = xasprintf("&%s", j->exprs[i]);
		r = nv.AddNameExpression(prog, exprs[i]);
		if (r != 0) {
			fail(err, "%s%scannot ask NVRTC for kernel '%s': %s", j->where && j->where[i] ? j->where[i] : "",
			     j->where && j->where[i] ? ": " : "", j->exprs[i], nv.GetErrorString(r));
			goto out;
		}
	}
	if ((r = compile_program(j, prog, out)) != 0) {
		char *ul = nvrtc_user_log_names(out->log, j->exprs, j->where, nnames);
		if (ul)
			*err = ul;
		else if (!static_smem_over(who, out->log, err))
			fail(err, "%s: compilation failed: %s", who, nv.GetErrorString(r));
		goto out;
	}
	if (take_code(j, prog, out, err) == 0 && take_kernels(j, prog, exprs, out, err) == 0)
		rc = 0;
out:
	for (int i = 0; i < nnames; i++)
		free(exprs[i]);
	free(exprs);
	nv.DestroyProgram(&prog);
	if (rc != 0)
		nvrtc_out_free(out);
	return rc;
}

int nvrtc_compile(const char *path, const char *src, const char *const *opts, int nopts,
                  const char *const *names, int nnames, nvrtc_out *out, char **err)
{
	nvrtc_job j = { .name = path, .src = src, .opts = opts, .nopts = nopts, .exprs = names,
	                .nexprs = nnames };
	return nvrtc_run(&j, out, err);
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

void nvrtc_warm_up(void)
{
	char *err = NULL;
	if (nvrtc_load(&err) == 0) {
		const char *opts[] = { "-arch=sm_90" };
		nvrtc_out o;
		if (nvrtc_compile("<warm-up>", "__global__ void warm_up() {}\n", opts, 1, NULL, 0, &o, &err) == 0)
			nvrtc_out_free(&o);
	}
	free(err);
}
