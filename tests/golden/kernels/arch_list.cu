// arch_list.cu: the first target the device runs: sm_90a on sm_90 (test fixture)
//@ arch sm_100a, sm_90a, native
//@ param  n = 1000
//@ buffer x float[n] random
//@ buffer y float[n] poison output
//@ grid   cdiv(n, 128)
//@ block  128
//@ check  y = copy(x)
__global__ void copy(int n, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i];
}
