// typed.cu: params typed by the kernel parameters they bind to (test fixture)
//@ param  n = 1000
//@ param  alpha = 5 / 4          // float alpha: computed in floating point, 1.25
//@ param  beta = n / 8           // double beta: 125.0
//@ param  count = 3              // unsigned count
//@ buffer y float[n] zero output
//@ grid   cdiv(n, 128)
//@ block  128
//@ check  none
__global__ void scale_by(int n, float alpha, double beta, unsigned count, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = alpha * (float)beta * count;
}
