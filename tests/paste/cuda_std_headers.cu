// cuda_std_headers.cu: libcu++ headers that define INFINITY, NAN and INT_MAX themselves: no clash
// expect: compiles
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
#include <cuda/std/cmath>
#include <cuda/std/climits>
#include <cuda/std/cstdint>
#include <cuda/std/cstddef>
#include <cuda/std/limits>
#include <climits>
#include <limits.h>
__global__ void with_libcu(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	cuda::std::int64_t wide = INT_MAX;
	if (i < n)
		y[i] = cuda::std::fmax(x[i], -INFINITY) + (wide > 0 ? 0.0f : NAN) +
		       (cuda::std::numeric_limits<float>::max() > 0 ? 0.0f : 1.0f) + (float)(LLONG_MAX > 0);
}
