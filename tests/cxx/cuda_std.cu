// cuda_std.cu: CCCL's C++ library (<cuda/std/...>) in a kernel: y = x, by way of limits, type traits, swap and array
//@ param  n = 1000003
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ bytes  2 * n * 4
//@ check  y = copy(x)
#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <cuda/std/utility>
#include <cuda/std/array>
#include <cuda/std/cstdint>

template <typename T>
__device__ T clamp_to_type(T v)
{
	static_assert(cuda::std::is_floating_point<T>::value, "a floating-point type");
	const cuda::std::array<T, 2> range = { cuda::std::numeric_limits<T>::lowest(),
	                                        cuda::std::numeric_limits<T>::max() };
	return v < range[0] ? range[0] : v > range[1] ? range[1] : v;
}

__global__ void copy_std(int n, const float *x, float *y)
{
	cuda::std::int64_t i = (cuda::std::int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float a = x[i], b = 0.0f;
		cuda::std::swap(a, b);
		y[i] = clamp_to_type(b);
	}
}
