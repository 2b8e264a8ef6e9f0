/* jitlink.h: links relocatable device code (NVRTC -rdc=true) with the CUDA
 * device runtime (libcudadevrt.a) through nvJitLink, loaded with dlopen,
 * for kernels that launch kernels (`//@ link cudadevrt`). */
#ifndef CUPLAY_JITLINK_H
#define CUPLAY_JITLINK_H

#include <stddef.h>

/* Links cubin for arch ("sm_90a") with the named libraries. On success *out / *out_len
 * hold the linked cubin (caller frees). -1 with *err otherwise. */
int jitlink(const void *cubin, size_t len, const char *name, const char *arch,
            const char *const *libs, int nlibs, void **out, size_t *out_len, char **err);

#endif
