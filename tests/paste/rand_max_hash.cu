// rand_max_hash.cu: a hash scaled to [0, 1] by RAND_MAX, LLONG_MAX as a bound
// expect: compiles
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
__global__ void hash01(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned h = (unsigned)i * 2654435761u;
	long long big = LLONG_MAX;
	if (i < n)
		y[i] = (float)(h % RAND_MAX) / RAND_MAX + (big > 0 ? 0.0f : 1.0f);
}
