/* cuptilib.h: libcupti, found and loaded once with dlopen, for the two
 * parts of cuplay that use it: hardware counters (prof.c) and kernel
 * timestamps (kclock.c). Looked for in $CUPLAY_CUPTI (a file) if set, then
 * under $CUDA_HOME and the built-in toolkit (extras/CUPTI/lib64, lib64,
 * targets/.../lib), then on the library path. */
#ifndef CUPLAY_CUPTILIB_H
#define CUPLAY_CUPTILIB_H

/* The handle, or NULL with *why (caller frees; why may be NULL):
 * "CUPTI not found (...): set CUDA_HOME to the CUDA toolkit". Tried once;
 * later calls give the same answer. */
void *cuptilib_open(char **why);

/* The path it was loaded from, or NULL. */
const char *cuptilib_path(void);

/* A symbol of the loaded library as a function pointer's bytes in *fp (a
 * pointer-sized slot): 0, or -1 when it is missing. */
int cuptilib_sym(const char *name, void *fp);

/* "CUPTI_ERROR_UNKNOWN (an unknown internal error has occurred)", or
 * "CUPTI error N" when the library cannot name it. */
void cuptilib_result_text(int result, char *buf, int n);

/* The name alone, "CUPTI_ERROR_UNKNOWN", or "CUPTI error N". */
void cuptilib_result_name(int result, char *buf, int n);

#endif
