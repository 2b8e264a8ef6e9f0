// slow_compile.cu: a kernel whose header takes NVRTC minutes (macros doubling 21 times):
// Ctrl-C and 'timeout compile' must stop the compile and keep the session
//@ param  N = 32
//@ buffer x int[N] poison output
//@ grid   1
//@ block  32
//@ check  none
#include "slow_compile.cuh"

__global__ void slow(int *x, int N)
{
	if (threadIdx.x < N)
		x[threadIdx.x] = SLOW21 0;
}
