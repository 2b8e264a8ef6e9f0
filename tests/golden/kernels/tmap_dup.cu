// tmap_dup.cu: a tensormap named as a buffer (test fixture)
//@ param  n = 4096
//@ buffer x float[n] random
//@ buffer y int[n] poison output
//@ tensormap x = x[64, 64] box 16, 16
//@ grid   1
//@ block  32
#include <cuda.h>

__global__ void k(int n, const __grid_constant__ CUtensorMap x, int *y)
{
	if (threadIdx.x < n)
		y[threadIdx.x] = 1;
}
