// fill_copy.cu: copies random inputs of several types to outputs, for the
// test of the GPU fill (tests/gpu_check.sh): each check compares what the
// GPU fill wrote, copied by the kernel, with the host copy of the same
// random stream. The floats' tolerance is far below one rounding step of
// any element, and the integers are compared exactly, so a single bit off
// fails; the test also asks for rel_err 0.
//@ param  N = 1000003
//@ buffer xf float[N] random
//@ buffer xd double[N] random
//@ buffer xi int[N] random
//@ buffer xu unsigned[N] random
//@ buffer xl long[N] random
//@ buffer yf float[N] poison output
//@ buffer yd double[N] poison output
//@ buffer yi int[N] poison output
//@ buffer yu unsigned[N] poison output
//@ buffer yl long[N] poison output
//@ grid  min(SM_COUNT * 8, cdiv(N, 256))
//@ block 256
//@ check yf = copy(xf) tol 1e-300
//@ check yd = copy(xd) tol 1e-300
//@ check yi = copy(xi)
//@ check yu = copy(xu)
//@ check yl = copy(xl)

__global__ void fill_copy(const float *xf, const double *xd, const int *xi, const unsigned *xu,
                          const long long *xl, float *yf, double *yd, int *yi, unsigned *yu,
                          long long *yl, int N)
{
	for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < N; i += (long)gridDim.x * blockDim.x) {
		yf[i] = xf[i];
		yd[i] = xd[i];
		yi[i] = xi[i];
		yu[i] = xu[i];
		yl[i] = xl[i];
	}
}
