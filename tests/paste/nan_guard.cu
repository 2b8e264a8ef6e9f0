// nan_guard.cu: NAN for a bad input, isnan to skip it
// expect: compiles
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
__global__ void guard(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] < -0.99f ? NAN : (isnan(x[i]) ? 0.0f : x[i]);
}
