// limits3d.cu: every launch limit in reach of a `set` (test fixture)
//@ define BX = 256
//@ define BY = 1
//@ define BZ = 1
//@ define STATIC_FLOATS = 32
//@ param  GX = 16
//@ param  GY = 1
//@ param  GZ = 1
//@ param  SMEM = 0
//@ param  N = 4096
//@ buffer out float[N] poison output
//@ grid   GX, GY, GZ
//@ block  BX, BY, BZ
//@ smem   SMEM
//@ check  none
__global__ void fill(float *out, int N)
{
	extern __shared__ float dyn[];
	__shared__ float fixed[STATIC_FLOATS];
	int i = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
	fixed[threadIdx.x % STATIC_FLOATS] = 1.0f;
	__syncthreads();
	if (i < N)
		out[i] = fixed[(i + 1) % STATIC_FLOATS];
}
