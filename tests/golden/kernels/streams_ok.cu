// streams_ok.cu: host buffers (pageable and pinned) and a run cut in chunks
//@ param n = 1000003                  // a prime: chunks of unequal size
//@ param K = 3
//@ param scale = 2.0
//@ buffer x float[n] random host
//@ buffer y float[2*n] zero output host pinned   // two floats a unit of n
//@ buffer w float[4] one                         // on the device: whole, in every chunk
//@ buffer z float[n] zero output                 // on the device, never copied
//@ grid cdiv(n, 128)
//@ block 128
//@ streams K split n
//@ check none
__global__ void pairs(const float *x, float *y, const float *w, float scale, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		y[2 * i] = x[i] * scale * w[0];
		y[2 * i + 1] = x[i];
	}
}
__global__ void device_only(float *z, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		z[i] = 1.0f;
}
