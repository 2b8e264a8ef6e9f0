// extern_c.cu: extern "C" kernels (unmangled names), alone and in an extern "C" block
//@ param  n = 1000003
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ bytes  2 * n * 4
//@ check  y = copy(x)

extern "C" __global__ void copy_c(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i];
}

extern "C" {
__global__ void copy_c_block(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i];
}
}
