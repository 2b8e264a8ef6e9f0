// err_assert_fail.cu: a device assertion that fails: its message is shown, the worker restarts
//@ param  n = 4099
//@ buffer x float[n] iota
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  y = copy(x)
#include <assert.h>

__global__ void copy_assert(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		assert(x[i] < 4000.0f); /* iota: fails from i = 4000 */
		y[i] = x[i];
	}
}
