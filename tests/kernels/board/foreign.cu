// foreign.cu: includes a header of its own: refused (a submission is one file
// and uses the toolkit's headers alone).
#include <cuda_fp16.h>
#include "helpers.h"

__global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out, int N)
{
	out[0] = in[0];
}
