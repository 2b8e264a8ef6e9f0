// namespace.cu: kernels inside namespaces, named with their qualification
//   course::copy_ns          namespace course { ... }
//   course::detail::twice    namespace course::detail { ... } (C++17 nested)
//   course::copy_anon        in an anonymous namespace inside course
//   course::copy_outside     declared in course, defined outside as course::copy_outside
//@ param  n = 1000003
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ bytes  2 * n * 4
//@ check  y = copy(x)
//@ kernel course::detail::twice check y = scale(x, 2)

namespace course {

__device__ inline float same(float v) { return v; }

__global__ void copy_ns(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = same(x[i]);
}

namespace {
__global__ void copy_anon(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i];
}
} // namespace

__global__ void copy_outside(int n, const float *x, float *y);

} // namespace course

namespace course::detail {
__global__ void twice(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i];
}
}

__global__ void course::copy_outside(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i];
}
