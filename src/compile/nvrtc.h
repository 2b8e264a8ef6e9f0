/* nvrtc.h: NVRTC loaded with dlopen from CUDA_HOME; one call compiles a
 * source to a cubin and reports each kernel's resources (ptxas -v). */
#ifndef CUPLAY_NVRTC_H
#define CUPLAY_NVRTC_H

#include <stddef.h>

#include "cubin.h"

typedef enum nvrtc_pch {
	PCH_NONE = 0,     /* not asked for, or NVRTC has none (before 12.8) */
	PCH_CREATED,      /* this compile wrote one (perhaps after reading a shorter one) */
	PCH_USED,         /* this compile read one made earlier in this process */
	PCH_HEAP_GREW     /* it would not fit the PCH heap: grown for the next compile */
} nvrtc_pch;

typedef struct nvrtc_out {
	void *cubin;
	size_t cubin_len;
	char *ptx;        /* NULL when not produced */
	char *log;        /* full NVRTC log */
	int nk;
	char **lowered;   /* per requested name expression */
	kres *res;
	nvrtc_pch pch;
} nvrtc_out;

/* One compile. Headers in memory come before any directory (NVRTC's rule);
 * each name expression (a kernel: "saxpy", "course::copy", "reduce<BS>")
 * gets its lowered name; where[i] ("k.cu:12:4", or NULL) is where the user
 * wrote expression i, for messages about it. pch: NVRTC's automatic
 * precompiled headers, which live in this process's PCH heap: a header
 * prefix seen before is not compiled again. They are used only with a
 * pch_dir: NVRTC's own default is a folder in /tmp per process that
 * nobody removes (22 MB each). */
typedef struct nvrtc_job {
	const char *name;  /* the program's */
	const char *path;  /* the user's file, for messages; NULL: name */
	const char *src;
	int nheaders;
	const char *const *header_names;
	const char *const *header_texts;
	const char *const *opts;
	int nopts;
	const char *const *exprs;
	const char *const *where;
	int nexprs;
	int pch;
	const char *pch_dir; /* where NVRTC keeps them; NULL: no precompiled headers */
} nvrtc_job;

/* Loads libnvrtc once; 0 or -1 with *err. */
int nvrtc_load(char **err);
/* "13.0" after a successful load, else NULL */
const char *nvrtc_version(void);
/* The file the library was loaded from (for the toolkit next to it), or NULL. */
const char *nvrtc_path(void);
/* The compute capabilities the loaded NVRTC compiles for (90 for sm_90 and
 * sm_90a), at most max of them into out: how many, or -1 when it cannot say. */
int nvrtc_archs(int *out, int max);
/* Whether the NVRTC loaded compiles for sm_SM with suffix (0, 'a' or 'f':
 * target.h), as it says (nvrtcGetSupportedArchs; family targets from NVRTC
 * 12.9): 0 when it does or cannot tell, else -1 with *why (caller frees):
 * "NVRTC 12.4 does not compile for sm_100a (it compiles for sm_50 to sm_90)". */
int nvrtc_arch_known(int sm, char suffix, char **why);
/* 1 when the loaded NVRTC has precompiled headers (CUDA 12.8+). */
int nvrtc_has_pch(void);

/* Compiles a job. On a compile error: -1, *err is the log reformatted as
 * `path:line: ...`, with errors in name expressions put at where[i]. */
int nvrtc_run(const nvrtc_job *job, nvrtc_out *out, char **err);

/* Compiles src (named `path` in messages) with opts. names[i] are kernel
 * names; their lowered (mangled) names come back in out->lowered.
 * On a compile error: -1, *err is the log reformatted as `path:line: ...`. */
int nvrtc_compile(const char *path, const char *src, const char *const *opts, int nopts,
                  const char *const *names, int nnames, nvrtc_out *out, char **err);
void nvrtc_out_free(nvrtc_out *o);
/* NVRTC's first compile in a process costs ~200 ms (loading its
 * builtins): loads NVRTC and compiles an empty kernel, quietly (a failure
 * is met again, and said, by the first real compile). */
void nvrtc_warm_up(void);

/* Parses a ptxas -v log for the resources of `lowered`. 0 when found. */
int ptxas_parse(const char *log, const char *lowered, kres *r);

/* The NVRTC log with ptxas info lines and precompiled-header notes removed
 * and `path(12): ` turned into `path:12: `; NULL when nothing is left. */
char *nvrtc_user_log(const char *log);
/* The same, with errors in NVRTC's list of name expressions (the lines of
 * its internal `__nv_name_map`) put at where[i] of the expression, or
 * said of kernel 'exprs[i]' when where is NULL. */
char *nvrtc_user_log_names(const char *log, const char *const *exprs, const char *const *where, int n);

#endif
