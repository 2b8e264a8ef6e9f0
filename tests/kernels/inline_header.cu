// inline_header.cu: a kernel whose work is in a header's inlined device
// functions, called from two lines: `lines` shows each header line with
// its file name under the kernel's line that calls it (the cubin's line
// table records where it was inlined), the nested call under the
// kernel's line too (tests/golden/lines_inline.session). The output is
// not checked: the test is about where the lines go.
//@ param  N = 1048576
//@ buffer A float[N] random
//@ buffer B float[N] poison output
//@ grid  cdiv(N, 256)
//@ block 256
#include "inline_header.cuh"

__global__ void sum_neighbours(const float *A, float *B, int N)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= N)
		return;
	float s = load_poly(A, i, N); // [first call]
	s += load_poly(A, i + 1, N); // [second call]
	B[i] = s;
}
