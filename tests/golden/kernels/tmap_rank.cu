// tmap_rank.cu: a box of another rank than the buffer's shape (test fixture)
//@ param  n = 4096
//@ buffer x float[n] random
//@ buffer y int[n] poison output
//@ tensormap tm = x[64, 64] box 16
//@ grid   1
//@ block  32
#include <cuda.h>

__global__ void k(int n, const __grid_constant__ CUtensorMap tm, int *y)
{
	if (threadIdx.x < n)
		y[threadIdx.x] = 1;
}
