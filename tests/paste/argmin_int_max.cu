// argmin_int_max.cu: INT_MAX and INT_MIN as sentinels (<limits.h>, never included)
// expect: compiles
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
__global__ void argmin(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int best = INT_MAX, worst = INT_MIN;
	if (i < n) {
		best = min(best, (int)(x[i] * 1000));
		worst = max(worst, (int)(x[i] * 1000));
		y[i] = (float)(best - worst) + (float)(UINT_MAX > 0) + (float)CHAR_BIT;
	}
}
