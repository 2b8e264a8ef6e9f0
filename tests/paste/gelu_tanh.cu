// gelu_tanh.cu: GELU, tanh form: M_PI and M_SQRT1_2 from <math.h> without an include
// expect: compiles
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 256)
//@ block  256
//@ check  none
__global__ void gelu(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		float k = sqrtf(2.0f / (float)M_PI);
		y[i] = 0.5f * v * (1.0f + tanhf(k * (v + 0.044715f * v * v * v))) + 0.0f * (float)M_SQRT1_2;
	}
}
