// tmap_shape.cu: a shape larger than the buffer (test fixture)
//@ param  n = 4096
//@ buffer x float[n] random
//@ buffer y int[n] poison output
//@ tensormap tm = x[64, 68] box 16, 16
//@ grid   1
//@ block  32
#include <cuda.h>

__global__ void k(int n, const __grid_constant__ CUtensorMap tm, int *y)
{
	if (threadIdx.x < n)
		y[threadIdx.x] = 1;
}
