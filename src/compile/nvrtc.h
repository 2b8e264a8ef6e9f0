/* nvrtc.h: NVRTC loaded with dlopen from CUDA_HOME; one call compiles a
 * source to a cubin and reports each kernel's resources (ptxas -v). */
#ifndef CUPLAY_NVRTC_H
#define CUPLAY_NVRTC_H

#include <stddef.h>

/* Resources of one kernel from the ptxas report. */
typedef struct kres {
	int known;
	int regs, smem, stack, spill_st, spill_ld, cmem;
} kres;

typedef struct nvrtc_out {
	void *cubin;
	size_t cubin_len;
	char *ptx;        /* NULL when not produced */
	char *log;        /* full NVRTC log */
	int nk;
	char **lowered;   /* per requested name expression */
	kres *res;
} nvrtc_out;

/* Loads libnvrtc once; 0 or -1 with *err. */
int nvrtc_load(char **err);
/* "13.0" after a successful load, else NULL */
const char *nvrtc_version(void);

/* Compiles src (named `path` in messages) with opts. names[i] are kernel
 * names; their lowered (mangled) names come back in out->lowered.
 * On a compile error: -1, *err is the log reformatted as `path:line: ...`. */
int nvrtc_compile(const char *path, const char *src, const char *const *opts, int nopts,
                  const char *const *names, int nnames, nvrtc_out *out, char **err);
void nvrtc_out_free(nvrtc_out *o);

/* Parses a ptxas -v log for the resources of `lowered`. 0 when found. */
int ptxas_parse(const char *log, const char *lowered, kres *r);

/* The NVRTC log with ptxas info lines removed and `path(12): ` turned into
 * `path:12: `; NULL when nothing is left. */
char *nvrtc_user_log(const char *log);

#endif
