// seq_short.cu: six short kernels in a row (a sequence), for graph timing:
// each adds one to 4096 floats, a microsecond or two of work, so launching
// them one by one costs more than running them
//@ param  N = 4096
//@ buffer out float[N] zero output
//@ grid  cdiv(N, 256)
//@ block 256
//@ check none
//@ sequence six = bump, bump, bump, bump, bump, bump
__global__ void bump(float *out, int N)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N)
		out[i] += 1.0f;
}
