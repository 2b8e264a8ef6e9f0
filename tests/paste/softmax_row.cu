// softmax_row.cu: a row softmax as tutorials write it: -INFINITY, fmaxf, expf
// expect: compiles
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
__global__ void softmax_row(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float m = -INFINITY;
	for (int j = 0; j < n; j++)
		m = fmaxf(m, x[j]);
	float s = 0.0f;
	for (int j = 0; j < n; j++)
		s += expf(x[j] - m);
	if (i < n)
		y[i] = expf(x[i] - m) / s;
}
