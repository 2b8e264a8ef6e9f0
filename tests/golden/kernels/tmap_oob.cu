// tmap_oob.cu: oob nan on an integer buffer (test fixture)
//@ param  n = 4096
//@ buffer y int[n] poison output
//@ tensormap tm = y[64, 64] box 16, 16 oob nan
//@ grid   1
//@ block  32
#include <cuda.h>

__global__ void k(int n, const __grid_constant__ CUtensorMap tm, int *y)
{
	if (threadIdx.x < n)
		y[threadIdx.x] = 1;
}
