// hang.cu: a submission that never ends: every thread spins on a flag nothing
// sets. --verify stops it at a third of the exercise's time limit: "timeout".
__device__ volatile int never_set;

__global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out, int N)
{
	while (!never_set)
		;
	out[0] = in[0];
}
