// template_explicit.cu: a template kernel instantiated in the source: each explicit instantiation is a kernel
// T is the element type: its parameters bind as float and double buffers.
//@ param  n = 1000003
//@ param  alpha = 2.5
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ bytes  2 * n * 4
//@ check  y = scale(x, alpha)

template <typename T, int UNROLL>
__global__ void scale_t(int n, T alpha, const T *__restrict__ x, T *__restrict__ y)
{
	int i = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
#pragma unroll
	for (int u = 0; u < UNROLL; u++)
		if (i + u < n)
			y[i + u] = alpha * x[i + u];
}

template __global__ void scale_t<float, 1>(int, float, const float *__restrict__, float *__restrict__);
template __global__ void scale_t<float, 4>(int, float, const float *__restrict__, float *__restrict__);
//@ kernel scale_t<float, 4> grid cdiv(n, 1024)
