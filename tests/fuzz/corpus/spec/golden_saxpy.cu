// saxpy.cu: y = alpha * x + y, a float param and a grid-stride loop (test fixture)
//@ define BLOCK = 256
//@ param  n = 1000003
//@ param  alpha = 2.5
//@ buffer x float[n] random
//@ buffer y float[n] random output
//@ grid   min(cdiv(n, BLOCK), SM_COUNT * 4)
//@ block  BLOCK
//@ bytes  3 * n * 4
//@ flops  2 * n
//@ check  y = saxpy(alpha, x, y)
__global__ void saxpy(int n, float alpha, const float *x, float *y)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		y[i] = alpha * x[i] + y[i];
}
