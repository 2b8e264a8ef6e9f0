// smem_big.cu: 100 KiB of dynamic shared memory a block (over the 48 KiB default: the launch opts in)
//@ param  n = 1000003
//@ define CHUNK = 25600            // floats a block stages: 100 KiB
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, CHUNK)
//@ block  256
//@ smem   CHUNK * 4
//@ bytes  2 * n * 4
//@ check  y = scale(x, 2)

// Each block stages its chunk in shared memory, then writes it back
// doubled and in reverse thread order (so the staging is really used).
__global__ void stage_big(int n, const float *x, float *y)
{
	extern __shared__ float s[];
	long base = (long)blockIdx.x * CHUNK;
	for (int t = threadIdx.x; t < CHUNK; t += blockDim.x)
		s[t] = base + t < n ? x[base + t] : 0.0f;
	__syncthreads();
	for (int t = CHUNK - 1 - threadIdx.x; t >= 0; t -= blockDim.x)
		if (base + t < n)
			y[base + t] = 2.0f * s[t];
}
