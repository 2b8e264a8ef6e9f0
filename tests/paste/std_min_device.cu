// std_min_device.cu: std::min in device code: a host function to nvcc without --expt-relaxed-constexpr
// expect: error
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
__global__ void host_min(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = std::min(x[i], 0.5f);
}
