// globals.cu: __constant__ weights given as a list and as a value, and a __device__ variable the kernel writes (an output checked like a buffer)
//@ param  n = 1000003
//@ global w     float[5] {0.0625, 0.25, 0.375, 0.25, 0.0625}   // a binomial smoothing mask
//@ global gain  float value(2)
//@ global total float zero output
//@ buffer x float[n] random
//@ buffer ones float[n] one
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  y = conv1d(x, w, n, 2)
//@ check  total = sum(ones)        // exact: n < 2^24, so every partial sum is a float
//@ kernel smooth_gain check y = scale(x, 2)

__constant__ float w[5];
__constant__ float gain;
__device__ float total;

__global__ void smooth(int n, const float *x, const float *ones, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float acc = 0.0f;
	for (int j = -2; j <= 2; j++)
		if (i + j >= 0 && i + j < n)
			acc += w[j + 2] * x[i + j];
	y[i] = acc;
	atomicAdd(&total, ones[i]); /* reset to zero before every launch */
}

// a scalar global
__global__ void smooth_gain(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = gain * x[i];
}
