// huge_valf_min.cu: a block minimum that starts at HUGE_VALF
// expect: compiles
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
__global__ void block_min(int n, const float *x, float *y)
{
	__shared__ float s[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	s[threadIdx.x] = i < n ? x[i] : HUGE_VALF;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k /= 2) {
		if (threadIdx.x < k)
			s[threadIdx.x] = fminf(s[threadIdx.x], s[threadIdx.x + k]);
		__syncthreads();
	}
	if (i < n)
		y[i] = s[0] + (float)(HUGE_VAL > 0.0);
}
