// std_math.cu: std::sqrt, std::exp, std::abs, std::fma, std::isnan on floats
// expect: compiles
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
__global__ void std_math(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = std::abs(x[i]);
		y[i] = std::fma(std::sqrt(v), std::exp(-v), std::isnan(v) ? 1.0f : 0.0f) + (float)std::abs(-3);
	}
}
