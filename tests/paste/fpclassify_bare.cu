// fpclassify_bare.cu: fpclassify in device code: nvcc has only the FP_ constants
// expect: error
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
__global__ void classify(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = fpclassify(x[i]) == FP_NAN;
}
