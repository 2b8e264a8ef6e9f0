/* toolkit.h: the CUDA toolkit's headers, for NVRTC, which is told of none
 * by itself: the toolkit's include directory (from CUDA_HOME, else next to
 * the loaded libnvrtc, else the default toolkit), CCCL's (include/cccl, for
 * cub/, thrust/ and cuda/std/) where the toolkit has one; and stand-ins,
 * handed to NVRTC in memory, for the C headers that NVRTC lacks and kernels
 * include all the same (assert.h, stdint.h, stdio.h, math.h...). */
#ifndef CUPLAY_TOOLKIT_H
#define CUPLAY_TOOLKIT_H

/* The toolkit's include directories in search order (include, then
 * include/cccl, as nvcc has them); *n = 0 when none was found, with *why
 * saying where it looked. Found once; owned here. Needs NVRTC loaded for
 * the directory next to it. */
const char *const *toolkit_include_dirs(int *n, const char **why);

/* A C header NVRTC lacks: its name, the stand-in's text, and the toolkit
 * header it needs (NULL: none), e.g. assert.h -> <cuda/std/cassert>. */
typedef struct toolkit_shim {
	const char *name;
	const char *text;
	const char *needs;
} toolkit_shim;

const toolkit_shim *toolkit_shims(int *n);

#endif
