// types_vec.cu: vector types: a float4 buffer copied four floats at a time,
// and a double2 scale; references see their scalars
//@ param  n = 250001
//@ buffer x float4[n] random
//@ buffer y float4[n] poison output
//@ buffer d double2[n] random
//@ buffer e double2[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ bytes  2 * n * 16 + 2 * n * 16
//@ check  y = copy(x)
//@ check  e = scale(d, 2)

__global__ void copy_vec(int n, const float4 *x, float4 *y, const double2 *d, double2 *e)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		y[i] = x[i];
		double2 v = d[i];
		e[i] = make_double2(2 * v.x, 2 * v.y);
	}
}

// a float * over a float4 buffer: the same bytes, one float a thread
__global__ void copy_scalar(int n, const float *x, float *y, const double *d, double *e)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < 4 * n; i += gridDim.x * blockDim.x) {
		y[i] = x[i];
		if (i < 2 * n)
			e[i] = 2 * d[i];
	}
}
